// SPDX-License-Identifier: Apache-2.0
#include "comch/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "comch/trace_hooks.hpp"
#include "common/clock.hpp"
#include "common/error_names.hpp"
#include "common/fd_budget.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/device.hpp"
#include "transport/transport.hpp"

using softcomch::comch::comch_ctx;
namespace transport = softcomch::transport;

namespace {
// Connections accepted (or refused) per progress call: a backlog of thousands is taken over
// several calls (the listener stays readable, so the next slow path comes back to it).
constexpr unsigned k_accepts_per_poll = 64;
// After an accept failure that could not even be refused (out of descriptors with the reserve
// spent), the listener leaves the epoll set this long instead of making every poll spin on it.
constexpr uint64_t k_listen_pause_ns = 100'000'000;
// Descriptors a server keeps free beyond its connections and handshakes: the segment's memfd
// while a connection is set up, the listener's reserve, a few for the program.
constexpr uint64_t k_fd_headroom = 8;
// Handshakes completed per progress call. Setting a connection up (segment, descriptors,
// answer) takes tens of microseconds; a burst of hundreds of clients is spread over several
// calls so that established connections keep being served in between.
constexpr unsigned k_handshakes_per_poll = 16;
} // namespace

doca_comch_server::doca_comch_server(doca_dev *dev, doca_dev_rep *rep, std::string name)
    : comch_ctx("comch server", dev, std::move(name)), rep_(rep)
{
    listen_watch_.ready = false; // nothing to accept before the first start
    rep_->hold();
}

doca_comch_server::~doca_comch_server()
{
    release_all();
    rep_->release();
}

doca_error_t doca_comch_server::event_connection_register(
    doca_comch_event_connection_status_changed_cb_t connect_cb,
    doca_comch_event_connection_status_changed_cb_t disconnect_cb, const char *func)
{
    if (doca_error_t rc = require_idle(func); rc != DOCA_SUCCESS)
        return rc;
    if (!connect_cb || !disconnect_cb) {
        SC_LOG_ERR("%s: both the connect and the disconnect callback are required", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    connect_cb_ = connect_cb;
    disconnect_cb_ = disconnect_cb;
    return DOCA_SUCCESS;
}

bool doca_comch_server::owns(const doca_comch_connection *conn) const noexcept
{
    return conn && conn->owner_ == this;
}

doca_error_t doca_comch_server::require_no_children(const char *func) const
{
    for (const auto &c : connections_)
        if (doca_error_t rc = refuse_children(func, *c); rc != DOCA_SUCCESS)
            return rc;
    return DOCA_SUCCESS;
}

size_t doca_comch_server::open_connections() const noexcept
{
    return size_t(std::count_if(connections_.begin(), connections_.end(), [](const auto &c) {
        return c->state_ != doca_comch_connection::state::closed;
    }));
}

doca_error_t doca_comch_server::do_start()
{
    if (send_pool_.capacity() == 0)
        SC_LOG_WARN(
            "comch server '%s': started without send tasks (doca_comch_server_task_send_set_conf); "
            "it cannot reply",
            name_.c_str());
    if (!recv_cb_)
        SC_LOG_WARN(
            "comch server '%s': started without a receive callback; received messages are dropped",
            name_.c_str());
    reclaim_connections(); // all closed (the server was IDLE); those with children stay
    if (doca_error_t rc = load_bounds(); rc != DOCA_SUCCESS)
        return rc;
    if (doca_error_t rc = load_faults(); rc != DOCA_SUCCESS)
        return rc;
    fd_fit_ = UINT64_MAX;
    max_handshakes_ = bounds_.max_handshakes;
    listen_resume_ns_ = 0;
    refusals_logged_ = 0;
    const transport::transport_ops *t = nullptr;
    std::string why;
    if (doca_error_t rc = transport::select_transport(t, why); rc != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: comch server '%s': %s", name_.c_str(), why.c_str());
        return rc;
    }
    transport::endpoint_info info;
    info.key.bluefield = dev_->info()->bluefield_id();
    info.key.host_function = rep_->info()->pci_addr();
    info.key.name = name_;
    info.pid = int(::getpid());
    info.dpu_device = dev_->info()->pci_addr();
    info.representor = rep_->info()->name();
    info.max_msg_size = max_msg_size_;
    info.recv_queue_size = recv_queue_size_;
    const std::string fabric = transport::fabric_name();
    doca_error_t rc = t->listen(info, listener_, why);
    if (rc == DOCA_ERROR_ALREADY_EXIST) {
        SC_LOG_ERR("doca_ctx_start: comch server '%s': another live server already uses this name "
                   "for host function %s "
                   "(fabric '%s')",
                   name_.c_str(), info.key.host_function.c_str(), fabric.c_str());
        return rc;
    }
    if (rc != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: comch server '%s': %s", name_.c_str(), why.c_str());
        return DOCA_ERROR_INITIALIZATION;
    }
    rc = listen_watch_.watch(pe(), *listener_);
    if (rc != DOCA_SUCCESS) {
        listener_.reset();
        return DOCA_ERROR_INITIALIZATION;
    }
    listen_watch_.ready = true;
    check_descriptor_budget(*t);
    SC_TRACE(softcomch::comch::tracing::starting(*this, true));
    SC_LOG_INFO("comch server '%s' listening for host function %s via representor %s (fabric '%s')",
                name_.c_str(), info.key.host_function.c_str(), info.representor.c_str(),
                fabric.c_str());
    return DOCA_SUCCESS;
}

void doca_comch_server::do_stop()
{
    // Stop accepting at once; the open connections drain and close from poll.
    if (listener_) {
        listen_watch_.unwatch();
        listener_.reset();
    }
    for (auto &h : handshakes_) {
        h->watch.unwatch();
        h->pending->reject(DOCA_ERROR_SHUTDOWN, "the server is stopping");
    }
    handshakes_.clear();
    listen_resume_ns_ = 0;
    for (auto &c : connections_) {
        unpark(c.get()); // closing connections are polled until closed
        begin_close(c.get());
    }
}

void doca_comch_server::check_descriptor_budget(const transport::transport_ops &t)
{
    const uint64_t per_conn = t.descriptors_per_connection;
    if (per_conn == 0)
        return;
    uint64_t in_use = softcomch::open_descriptors();
    if (in_use == 0)
        in_use = 64; // /proc unreadable: assume a modest program
    const uint64_t clients = caps().max_clients;
    const uint64_t per_hs = t.descriptors_per_handshake;
    const softcomch::nofile_limit lim = softcomch::raise_nofile(
        in_use + k_fd_headroom + bounds_.max_handshakes * per_hs + clients * per_conn);
    fd_soft_limit_ = lim.soft;
    if (lim.soft == UINT64_MAX)
        return; // unlimited
    // What the limit leaves, of which handshakes in progress may take at most an eighth (the
    // cap shrinks under a tight limit), connections the rest.
    const uint64_t spare =
        lim.soft > in_use + k_fd_headroom ? lim.soft - in_use - k_fd_headroom : 0;
    max_handshakes_ =
        std::min<uint64_t>(max_handshakes_, std::max<uint64_t>(1, spare / (8 * per_hs)));
    const uint64_t reserved = in_use + k_fd_headroom + max_handshakes_ * per_hs;
    fd_fit_ = lim.soft > reserved ? (lim.soft - reserved) / per_conn : 0;
    if (lim.raised)
        SC_LOG_INFO("comch server '%s': raised the soft RLIMIT_NOFILE from %lu to %lu "
                    "descriptors, room for its %lu clients (%lu descriptors each)",
                    name_.c_str(), (unsigned long)lim.soft_before, (unsigned long)lim.soft,
                    (unsigned long)clients, (unsigned long)per_conn);
    if (fd_fit_ < clients)
        SC_LOG_WARN("comch server '%s': RLIMIT_NOFILE (soft %lu, hard %lu) leaves room for %lu of "
                    "the %lu clients it may have (%lu descriptors each, %lu in use, %lu "
                    "handshakes at once); clients beyond are refused: raise the limit "
                    "(ulimit -n; limits.conf nofile or systemd LimitNOFILE= for the hard limit)",
                    name_.c_str(), (unsigned long)lim.soft, (unsigned long)lim.hard,
                    (unsigned long)fd_fit_, (unsigned long)clients, (unsigned long)per_conn,
                    (unsigned long)in_use, (unsigned long)max_handshakes_);
}

void doca_comch_server::refuse(transport::pending &p, refusal why)
{
    char text[200];
    doca_error_t reason = DOCA_ERROR_FULL;
    switch (why) {
    case refused_busy:
        reason = DOCA_ERROR_AGAIN;
        std::snprintf(text, sizeof text,
                      "the server is busy with %zu handshakes in progress "
                      "(SOFTCOMCH_MAX_HANDSHAKES %lu); retry",
                      handshakes_.size(), (unsigned long)max_handshakes_);
        break;
    case refused_budget:
        std::snprintf(text, sizeof text,
                      "the server has descriptors for %lu connections (RLIMIT_NOFILE %lu) and "
                      "holds them all; raise its limit (ulimit -n)",
                      (unsigned long)fd_fit_, (unsigned long)fd_soft_limit_);
        break;
    case refused_descriptors:
        std::snprintf(text, sizeof text,
                      "the server's process is out of file descriptors (RLIMIT_NOFILE %lu) with "
                      "%zu connections; raise its limit (ulimit -n)",
                      (unsigned long)fd_soft_limit_, open_connections());
        break;
    case refused_clients:
        std::snprintf(text, sizeof text,
                      "the server (pid %d) holds its maximum of %u clients "
                      "(doca_comch_cap_get_max_clients); another can connect once one of them "
                      "disconnects",
                      int(::getpid()), caps().max_clients);
        break;
    }
    p.reject(reason, text);
    if (refusals_logged_ & why)
        return;
    refusals_logged_ |= why;
    if (why == refused_busy) // a burst of honest clients does this too: they retry
        SC_LOG_INFO("comch server '%s': refused a connection for now: %s (logged once per start)",
                    name_.c_str(), text);
    else
        SC_LOG_WARN("comch server '%s': refused a client: %s (logged once per start)",
                    name_.c_str(), text);
}

void doca_comch_server::pause_listening() noexcept
{
    listen_watch_.unwatch();
    listen_watch_.ready = false;
    listen_resume_ns_ = softcomch::coarse_now_ns() + k_listen_pause_ns;
}

void doca_comch_server::drop_late_handshakes(uint64_t now_ns) noexcept
{
    for (size_t i = 0; i < handshakes_.size();) {
        handshake &h = *handshakes_[i];
        if (now_ns < h.deadline_ns) {
            ++i;
            continue;
        }
        SC_LOG_WARN("comch server '%s': closed a connection that sent no handshake within %lu ms "
                    "(SOFTCOMCH_HANDSHAKE_TIMEOUT_MS)",
                    name_.c_str(), (unsigned long)(bounds_.handshake_ns / 1'000'000));
        h.watch.unwatch();
        try {
            h.pending->reject(DOCA_ERROR_TIME_OUT, "no handshake in time");
        } catch (...) { // the text's allocation: the connection closes without it
        }
        handshakes_.erase(handshakes_.begin() + long(i));
    }
}

void doca_comch_server::on_tick(uint64_t now_ns) noexcept
{
    if (listen_resume_ns_ && now_ns >= listen_resume_ns_ && listener_) {
        listen_resume_ns_ = 0;
        if (listen_watch_.watch(pe(), *listener_) == DOCA_SUCCESS)
            listen_watch_.ready = true;
        else
            pause_listening();
    }
    if (!handshakes_.empty())
        drop_late_handshakes(now_ns);
    for (auto &c : connections_)
        tick_connection(c.get(), now_ns);
    park_idle();
}

bool doca_comch_server::parkable(const doca_comch_connection *c) const noexcept
{
    const transport::link &l = *c->link_;
    return state() == DOCA_CTX_STATE_RUNNING && c->state_ == doca_comch_connection::state::open &&
           !c->faults_on_ && c->pending_.empty() && !c->peer_closed_ && !c->peer_timed_out_ &&
           !l.slow_pending() && !l.peer_gone() && l.bell() != transport::link::k_no_bell;
}

void doca_comch_server::park_idle() noexcept
{
    bool parked_some = false;
    for (auto &cp : connections_) {
        doca_comch_connection *c = cp.get();
        if (c->state_ == doca_comch_connection::state::closed)
            continue;
        if (c->parked_) {
            // The net: a peer may silence its bell (any client can write the page), and
            // liveness may have changed what the connection needs.
            if (!parkable(c) || c->link_->has_message())
                unpark(c);
        } else if (!c->worked_ && parkable(c) && c->link_->park()) {
            c->parked_ = true;
            parked_some = true;
        }
        c->worked_ = false;
    }
    if (parked_some)
        std::erase_if(active_, [](const doca_comch_connection *c) { return c->parked_; });
}

void doca_comch_server::unpark(doca_comch_connection *c) noexcept
{
    if (!c->parked_)
        return;
    c->parked_ = false;
    c->worked_ = true;
    // Within the capacity reserved when the connection was added: no allocation.
    active_.push_back(c);
}

void doca_comch_server::on_bell(void *self, uint32_t bell) noexcept
{
    auto *s = static_cast<doca_comch_server *>(self);
    // A hint: an unknown or stale bell, or one of an active connection, changes nothing.
    if (bell < s->by_bell_.size())
        if (doca_comch_connection *c = s->by_bell_[bell])
            s->unpark(c);
}

void doca_comch_server::repark() noexcept
{
    repark_ = false;
    for (auto &cp : connections_) {
        doca_comch_connection *c = cp.get();
        if (c->parked_ && !(parkable(c) && c->link_->park()))
            unpark(c);
    }
}

unsigned doca_comch_server::accept_new()
{
    if (!listener_ || !listen_watch_.ready)
        return 0;
    listen_watch_.ready = false;
    unsigned n = 0;
    for (unsigned k = 0; k < k_accepts_per_poll; ++k) {
        std::unique_ptr<transport::pending> p;
        doca_error_t rc = listener_->accept(p);
        if (rc == DOCA_ERROR_AGAIN)
            break;
        if (rc == DOCA_ERROR_FULL) { // accepted on the reserve descriptor, only to refuse it
            refuse(*p, refused_descriptors);
            ++n;
            continue;
        }
        if (rc != DOCA_SUCCESS) {
            if (!(refusals_logged_ & refused_descriptors))
                SC_LOG_WARN("comch server '%s': accept failed: %s; not accepting for %lu ms",
                            name_.c_str(), softcomch::error_name(rc),
                            (unsigned long)(k_listen_pause_ns / 1'000'000));
            refusals_logged_ |= refused_descriptors;
            pause_listening();
            break;
        }
        ++n;
        // Refused before its handshake is read, so none of the client's descriptors is taken:
        // for good when the descriptors are all taken by connections, for now when handshakes
        // in progress hold them (or the cap on those is reached).
        const size_t open = open_connections();
        if (open >= fd_fit_) {
            refuse(*p, refused_budget);
            continue;
        }
        if (handshakes_.size() >= max_handshakes_ || open + handshakes_.size() >= fd_fit_) {
            refuse(*p, refused_busy);
            continue;
        }
        auto h = std::make_unique<handshake>();
        h->pending = std::move(p);
        h->deadline_ns = softcomch::coarse_deadline_ns(bounds_.handshake_ns);
        if (h->watch.watch(pe(), *h->pending) != DOCA_SUCCESS)
            continue;
        handshakes_.push_back(std::move(h));
    }
    return n;
}

unsigned doca_comch_server::service_handshakes()
{
    unsigned work = 0;
    unsigned done = 0;
    for (size_t i = 0; i < handshakes_.size() && done < k_handshakes_per_poll;) {
        handshake &h = *handshakes_[i];
        if (!h.watch.ready) { // nothing arrived; the tick closes it at its deadline
            ++i;
            continue;
        }
        h.watch.ready = false;
        transport::hello_info hello;
        doca_error_t rc = h.pending->read_hello(hello);
        if (rc == DOCA_ERROR_AGAIN) {
            ++i;
            continue;
        }
        std::unique_ptr<doca_comch_connection> conn;
        if (rc == DOCA_ERROR_CONNECTION_RESET) {
            // Closed before saying hello: a liveness probe (list_endpoints) or a client that
            // gave up. Nothing to report.
            SC_LOG_DBG("comch server '%s': a peer connected and closed without a handshake",
                       name_.c_str());
        } else if (rc != DOCA_SUCCESS) {
            SC_LOG_WARN("comch server '%s': dropped a client with an invalid handshake (%s)",
                        name_.c_str(),
                        hello.why.empty() ? softcomch::error_name(rc) : hello.why.c_str());
        } else if (hello.name != name_ || hello.host_function != rep_->info()->pci_addr() ||
                   hello.bluefield != dev_->info()->bluefield_id()) {
            // Cannot happen through the endpoint naming, but a hand-made client could try.
            h.pending->reject(DOCA_ERROR_NOT_FOUND, "no such server on this host function");
        } else if (open_connections() >= caps().max_clients) {
            refuse(*h.pending, refused_clients);
        } else {
            // The accepted socket becomes the connection's liveness channel: hand its epoll
            // registration over from the handshake watcher to the connection's.
            h.watch.unwatch();
            const transport::link_params mine = link_params();
            std::unique_ptr<transport::link> l;
            rc = h.pending->accept(mine, hello, next_connection_id_++, l);
            if (rc == DOCA_SUCCESS) {
                conn = std::make_unique<doca_comch_connection>(this, std::move(l));
                if (!conn->handle() || register_connection(conn.get()) != DOCA_SUCCESS)
                    conn.reset();
                else {
                    first_beat(conn.get());
                    attach_faults(conn.get(), "dpu");
                }
            } else {
                SC_LOG_ERR(
                    "comch server '%s': could not set up the connection of client pid %d: %s",
                    name_.c_str(), hello.pid, softcomch::error_name(rc));
            }
        }
        h.watch.unwatch(); // harmless if already removed
        handshakes_.erase(handshakes_.begin() + long(i));
        ++work;
        ++done;
        if (conn) {
            doca_comch_connection *c = conn.get();
            SC_LOG_INFO("comch server '%s': client pid %d connected (max message %u bytes)",
                        name_.c_str(), hello.pid, c->link_->max_msg_size());
            connections_.push_back(std::move(conn));
            // Room for every connection in active_, so that unpark() never allocates.
            active_.reserve(connections_.capacity());
            active_.push_back(c);
            if (const uint32_t b = c->link_->bell(); b != transport::link::k_no_bell) {
                if (b >= by_bell_.size())
                    by_bell_.resize(size_t(b) + 1, nullptr);
                by_bell_[b] = c;
                c->bell_ = b;
            }
            SC_TRACE(softcomch::comch::tracing::connected(*this, *c));
            work += pe()->flush_completions();
            if (connect_cb_)
                connect_cb_(&conn_event_, c->handle(), 1);
        }
    }
    return work;
}

unsigned doca_comch_server::poll()
{
    doca_ctx_states st = state();
    if (st == DOCA_CTX_STATE_IDLE)
        return 0;
    settle_sends();
    unsigned work = 0;
    if (st == DOCA_CTX_STATE_RUNNING) {
        work += accept_new();
        if (!handshakes_.empty())
            work += service_handshakes();
    }
    // The parked connections whose bells rang come back first.
    if (listener_)
        listener_->take_bells(&on_bell, this);
    if (repark_) [[unlikely]]
        repark();
    // Index loop: a callback may unpark connections (appended; within the reserved capacity).
    for (size_t i = 0; i < active_.size(); ++i) {
        doca_comch_connection *c = active_[i];
        if (c->state_ == doca_comch_connection::state::closed)
            continue;
        bool ended = false;
        if (const unsigned w = service_connection(c, ended)) {
            work += w;
            c->worked_ = true;
        }
        if (ended) {
            if (const char *v = c->link_->violation())
                SC_LOG_ERR("comch server '%s': disconnected the client (pid %d): protocol "
                           "violation: %s",
                           name_.c_str(), c->link_->peer_pid(), v);
            else if (c->peer_timed_out_ && !c->peer_closed_ && !c->link_->peer_gone())
                SC_LOG_WARN("comch server '%s': disconnected the client (pid %d): it did not "
                            "progress for %lu ms (SOFTCOMCH_PEER_TIMEOUT_MS)",
                            name_.c_str(), c->link_->peer_pid(),
                            (unsigned long)(bounds_.timeout_ns / 1'000'000));
            else if (!c->peer_closed_)
                SC_LOG_WARN(
                    "comch server '%s': the client (pid %d) went away without disconnecting",
                    name_.c_str(), c->link_->peer_pid());
            abort_connection(c, softcomch::comch::k_status_connection_lost);
            reclaim_due_ = true;
            ++work;
            work += pe()->flush_completions();
            // The handle is valid during the callback; freed after it (reclaim_connections).
            if (disconnect_cb_)
                disconnect_cb_(&conn_event_, c->handle(), 1);
            continue;
        }
        if (c->state_ != doca_comch_connection::state::closing)
            continue;
        if (close_connection(c)) {
            reclaim_due_ = true;
            ++work;
        } else if (c->linger_over_) {
            abort_lingering(c, "client");
            reclaim_due_ = true;
            ++work;
        }
    }
    if (reclaim_due_ || closed_waiting_ != 0) {
        const uint64_t now = softcomch::coarse_now_ns();
        if (reclaim_due_ || now >= next_reclaim_ns_) {
            reclaim_connections();
            next_reclaim_ns_ = now + 1'000'000;
        }
    }
    if (state() == DOCA_CTX_STATE_STOPPING && open_connections() == 0) {
        if (try_finish_stop()) {
            // IDLE: the state callback may have destroyed this server; touch nothing.
            return work + 1;
        }
    }
    return work;
}

softcomch::core::arm_result doca_comch_server::try_arm()
{
    softcomch::core::arm_result r;
    settle_sends(); // before this side sleeps
    if (listen_watch_.ready)
        r.busy = true;
    // Timers of the tick: the listener's pause, the handshakes' deadlines.
    uint64_t due = listen_resume_ns_;
    for (auto &h : handshakes_)
        if (due == 0 || h->deadline_ns < due)
            due = h->deadline_ns;
    if (due) {
        const uint64_t now = softcomch::coarse_now_ns();
        r.timeout_ns = due > now ? due - now + k_tick_interval_ns : 1;
    }
    for (auto &h : handshakes_)
        if (h->watch.ready)
            r.busy = true;
    for (auto &c : connections_) {
        arm_connection(c.get(), r);
        // The sleeping arm replaced the park: parked again at the next poll.
        repark_ = repark_ || c->parked_;
    }
    if (state() == DOCA_CTX_STATE_STOPPING)
        r.busy = true;
    return r;
}

doca_error_t doca_comch_server::disconnect(doca_comch_connection *conn)
{
    if (state() != DOCA_CTX_STATE_RUNNING) {
        SC_LOG_ERR("doca_comch_server_disconnect: the server is %s",
                   softcomch::core::state_name(state()));
        return DOCA_ERROR_BAD_STATE;
    }
    if (conn && !owns(conn)) {
        SC_LOG_ERR("doca_comch_server_disconnect: the connection does not belong to this server");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!conn || conn->state_ == doca_comch_connection::state::closed) {
        SC_LOG_ERR("doca_comch_server_disconnect: the connection is already closed");
        return DOCA_ERROR_NOT_CONNECTED;
    }
    uint32_t consumers = conn->fast_.consumers.count();
    uint32_t producers = conn->fast_.producers.count();
    if (consumers || producers) {
        SC_LOG_ERR("doca_comch_server_disconnect: %u consumer(s) and %u producer(s) still use the "
                   "connection; "
                   "destroy them first",
                   consumers, producers);
        return DOCA_ERROR_IN_USE;
    }
    unpark(conn);
    if (!close_connection(conn)) {
        SC_LOG_DBG("doca_comch_server_disconnect: sends still queued; retry after progress");
        conn->state_ = doca_comch_connection::state::open;
        return DOCA_ERROR_AGAIN;
    }
    // Freed at the end of the next poll (this call may come from a callback inside one).
    reclaim_due_ = true;
    return DOCA_SUCCESS;
}

void doca_comch_server::reclaim_connections() noexcept
{
    reclaim_due_ = false;
    closed_waiting_ = 0;
    // Closed connections are polled no more; the freed ones leave the bell map.
    std::erase_if(active_, [](const doca_comch_connection *c) {
        return c->state_ == doca_comch_connection::state::closed;
    });
    auto keep = std::remove_if(connections_.begin(), connections_.end(), [&](const auto &c) {
        if (c->state_ != doca_comch_connection::state::closed)
            return false;
        if (!c->reclaimable()) {
            ++closed_waiting_;
            return false;
        }
        if (c->bell_ < by_bell_.size() && by_bell_[c->bell_] == c.get())
            by_bell_[c->bell_] = nullptr;
        return true;
    });
    connections_.erase(keep, connections_.end());
}

void doca_comch_server::release_all() noexcept
{
    listen_watch_.unwatch();
    for (auto &h : handshakes_)
        h->watch.unwatch();
    listener_.reset();
    handshakes_.clear();
    for (auto &c : connections_)
        if (c->state_ != doca_comch_connection::state::closed)
            abort_connection(c.get(), softcomch::comch::k_status_connection_lost);
    active_.clear();
    by_bell_.clear();
    connections_.clear();
}
