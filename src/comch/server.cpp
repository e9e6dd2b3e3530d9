// SPDX-License-Identifier: Apache-2.0
#include "comch/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "common/clock.hpp"
#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/device.hpp"
#include "transport/transport.hpp"

using softcomch::comch::comch_ctx;
namespace transport = softcomch::transport;

namespace {
// A client that connected but sent no hello within this time is dropped.
constexpr uint64_t k_handshake_timeout_ns = 5'000'000'000ull;
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
    connections_.clear(); // all closed: the server was IDLE
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
    for (auto &c : connections_)
        if (c->state_ == doca_comch_connection::state::open)
            c->state_ = doca_comch_connection::state::closing;
}

unsigned doca_comch_server::accept_new()
{
    if (!listener_ || !listen_watch_.ready)
        return 0;
    listen_watch_.ready = false;
    unsigned n = 0;
    for (;;) {
        std::unique_ptr<transport::pending> p;
        doca_error_t rc = listener_->accept(p);
        if (rc == DOCA_ERROR_AGAIN)
            break;
        if (rc != DOCA_SUCCESS) {
            SC_LOG_WARN("comch server '%s': accept failed: %s", name_.c_str(),
                        softcomch::error_name(rc));
            break;
        }
        auto h = std::make_unique<handshake>();
        h->pending = std::move(p);
        h->deadline_ns = softcomch::now_ns() + k_handshake_timeout_ns;
        if (h->watch.watch(pe(), *h->pending) != DOCA_SUCCESS)
            continue;
        handshakes_.push_back(std::move(h));
        ++n;
    }
    return n;
}

unsigned doca_comch_server::service_handshakes()
{
    unsigned work = 0;
    unsigned done = 0;
    uint64_t now = 0;
    for (size_t i = 0; i < handshakes_.size() && done < k_handshakes_per_poll;) {
        handshake &h = *handshakes_[i];
        if (!h.watch.ready) {
            if (!now)
                now = softcomch::now_ns();
            if (now < h.deadline_ns) {
                ++i;
                continue;
            }
            SC_LOG_WARN("comch server '%s': dropped a client that sent no handshake in time",
                        name_.c_str());
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
            SC_LOG_WARN(
                "comch server '%s': refused a client: already %zu clients (the device maximum)",
                name_.c_str(), open_connections());
            h.pending->reject(DOCA_ERROR_FULL,
                              "the server has reached its maximum number of clients");
        } else {
            // The accepted socket becomes the connection's liveness channel: hand its epoll
            // registration over from the handshake watcher to the connection's.
            h.watch.unwatch();
            const transport::link_params mine = link_params();
            std::unique_ptr<transport::link> l;
            rc = h.pending->accept(mine, hello, next_connection_id_++, l);
            if (rc == DOCA_SUCCESS) {
                conn = std::make_unique<doca_comch_connection>(this, std::move(l));
                if (register_connection(conn.get()) != DOCA_SUCCESS)
                    conn.reset();
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
            work += pe()->flush_completions();
            if (connect_cb_)
                connect_cb_(&conn_event_, c, 1);
        }
    }
    return work;
}

unsigned doca_comch_server::poll()
{
    doca_ctx_states st = state();
    if (st == DOCA_CTX_STATE_IDLE)
        return 0;
    unsigned work = 0;
    if (st == DOCA_CTX_STATE_RUNNING) {
        work += accept_new();
        if (!handshakes_.empty())
            work += service_handshakes();
    }
    // Index loop: callbacks may not add connections, but keep it robust anyway.
    for (size_t i = 0; i < connections_.size(); ++i) {
        doca_comch_connection *c = connections_[i].get();
        if (c->state_ == doca_comch_connection::state::closed)
            continue;
        bool ended = false;
        work += service_connection(c, ended);
        if (ended) {
            bool died = !c->peer_closed_;
            if (const char *v = c->link_->violation())
                SC_LOG_ERR("comch server '%s': disconnected the client (pid %d): protocol "
                           "violation: %s",
                           name_.c_str(), c->link_->peer_pid(), v);
            else if (died)
                SC_LOG_WARN(
                    "comch server '%s': the client (pid %d) went away without disconnecting",
                    name_.c_str(), c->link_->peer_pid());
            abort_connection(c, softcomch::comch::k_status_connection_lost);
            ++work;
            work += pe()->flush_completions();
            if (disconnect_cb_)
                disconnect_cb_(&conn_event_, c, 1);
            continue;
        }
        if (c->state_ == doca_comch_connection::state::closing && close_connection(c))
            ++work;
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
    if (listen_watch_.ready)
        r.busy = true;
    for (auto &h : handshakes_)
        if (h->watch.ready)
            r.busy = true;
    for (auto &c : connections_)
        arm_connection(c.get(), r);
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
    if (!owns(conn)) {
        SC_LOG_ERR("doca_comch_server_disconnect: the connection does not belong to this server");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (conn->state_ == doca_comch_connection::state::closed) {
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
    if (!close_connection(conn)) {
        SC_LOG_DBG("doca_comch_server_disconnect: sends still queued; retry after progress");
        conn->state_ = doca_comch_connection::state::open;
        return DOCA_ERROR_AGAIN;
    }
    return DOCA_SUCCESS;
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
    connections_.clear();
}
