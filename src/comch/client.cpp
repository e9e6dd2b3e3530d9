// SPDX-License-Identifier: Apache-2.0
#include "comch/client.hpp"

#include <system_error>

#include "comch/diagnostics.hpp"
#include "comch/trace_hooks.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"
#include "core/device.hpp"
#include "transport/transport.hpp"

namespace transport = softcomch::transport;

doca_comch_client::doca_comch_client(doca_dev *dev, std::string name)
    : comch_ctx("comch client", dev, std::move(name))
{}

doca_comch_client::~doca_comch_client()
{
    handshake_watch_.unwatch();
    if (connection_ && connection_->state_ != doca_comch_connection::state::closed)
        abort_connection(connection_.get(), softcomch::comch::k_status_connection_lost);
}

doca_error_t doca_comch_client::do_start()
{
    if (doca_error_t rc = load_bounds(); rc != DOCA_SUCCESS)
        return rc;
    if (doca_error_t rc = load_faults(); rc != DOCA_SUCCESS)
        return rc;
    // The previous connection (closed: the client was IDLE) is freed below; not under its
    // consumers and producers, which refer to it.
    if (doca_error_t rc = require_no_children("doca_ctx_start"); rc != DOCA_SUCCESS)
        return rc;
    const transport::transport_ops *t = nullptr;
    std::string why;
    if (doca_error_t rc = transport::select_transport(t, why); rc != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: comch client '%s': %s", name_.c_str(), why.c_str());
        return rc;
    }
    const transport::endpoint_key key{dev_->info()->bluefield_id(), dev_->info()->pci_addr(),
                                      name_};
    std::unique_ptr<transport::connector> c;
    if (t->connect(key, link_params(), c, why) != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: comch client '%s': %s", name_.c_str(), why.c_str());
        return DOCA_ERROR_INITIALIZATION;
    }
    connection_.reset();
    connector_ = std::move(c);
    next_attempt_ns_ = 0;
    waiting_logged_ = false;
    busy_logged_ = false;
    handshake_since_ns_ = 0;
    silence_logged_ = false;
    started_ns_ = softcomch::coarse_now_ns();
    waiting_for_server_ = false;
    starting_explained_ = false;
    handshake_watch_.ready = true;
    SC_TRACE(softcomch::comch::tracing::starting(*this, false));
    pe()->request_service();
    return DOCA_ERROR_IN_PROGRESS;
}

void doca_comch_client::do_stop()
{
    if (connection_)
        begin_close(connection_.get());
    handshake_watch_.unwatch();
    if (connector_)
        connector_.reset();
}

bool doca_comch_client::wrong_representor_hint(std::string &why) const
{
    // A server with this name on another host function of the same BlueField: on hardware the
    // connection is refused (the server's representor does not represent this client's function).
    std::vector<transport::endpoint_info> eps;
    try {
        eps = transport::list_endpoints(transport::fabric_dir(transport::fabric_name()));
    } catch (const std::system_error &) {
        return false;
    }
    for (const auto &e : eps) {
        if (e.key.name == name_ && e.key.bluefield == dev_->info()->bluefield_id() &&
            e.key.host_function != dev_->info()->pci_addr()) {
            why = "server '" + name_ + "' is bound to representor " + e.representor +
                  " of host function " + e.key.host_function + ", but this client's device is " +
                  dev_->info()->pci_addr() + "; start the server with the representor of " +
                  dev_->info()->pci_addr() + " or run the client on " + e.key.host_function;
            return true;
        }
    }
    return false;
}

unsigned doca_comch_client::poll_connecting()
{
    if (!connector_)
        return 0;
    if (handshake_watch_.watching()) {
        // Waiting for the server's answer: nothing to do until the socket is readable (the
        // engine's slow path notices that; in epoll mode it wakes the program).
        if (!handshake_watch_.ready)
            return 0;
    } else if (softcomch::coarse_now_ns() < next_attempt_ns_) {
        return 0;
    }
    handshake_watch_.ready = false;
    // Out of the epoll set before the step, which may close the socket (refused, reset) or
    // hand it to the link: a descriptor is removed from the set before it is closed, never
    // after, and a socket reopened with the same number is added again.
    handshake_watch_.unwatch();
    std::unique_ptr<transport::link> l;
    std::string why;
    const transport::connector::result res = connector_->step(l, why);
    waiting_for_server_ = res == transport::connector::result::no_server; // explain_starting
    // The socket of a handshake in flight (or none): the next step happens when it is readable.
    uint64_t now = softcomch::coarse_now_ns();
    if (res == transport::connector::result::in_progress) {
        (void)handshake_watch_.watch(pe(), *connector_);
        if (!handshake_since_ns_)
            handshake_since_ns_ = now;
    } else {
        handshake_since_ns_ = 0;
    }
    switch (res) {
    case transport::connector::result::in_progress:
        return 0;
    case transport::connector::result::busy:
        // Too many handshakes in progress at the server (a burst, or a flood): try again soon.
        if (!busy_logged_) {
            SC_LOG_INFO("comch client '%s': the server is busy, retrying: %s", name_.c_str(),
                        why.c_str());
            busy_logged_ = true;
        }
        next_attempt_ns_ = now + retry_interval_ns;
        return 0;
    case transport::connector::result::no_server:
        if (wrong_representor_hint(why)) {
            SC_LOG_ERR("comch client '%s': connection refused: %s", name_.c_str(), why.c_str());
            connector_.reset();
            set_state(DOCA_CTX_STATE_IDLE); // may destroy this client: return at once
            return 1;
        }
        if (!waiting_logged_) {
            SC_LOG_INFO(
                "comch client '%s': waiting for the server on host function %s (fabric '%s')",
                name_.c_str(), dev_->info()->pci_addr().c_str(), transport::fabric_name().c_str());
            waiting_logged_ = true;
        }
        next_attempt_ns_ = now + retry_interval_ns;
        return 0;
    case transport::connector::result::rejected:
    case transport::connector::result::failed:
        SC_LOG_ERR("comch client '%s': connection refused: %s", name_.c_str(), why.c_str());
        connector_.reset();
        set_state(DOCA_CTX_STATE_IDLE); // may destroy this client: return at once
        return 1;
    case transport::connector::result::connected:
        break;
    }
    connector_.reset(); // its socket is the link's now (already out of the epoll set)
    connection_ = std::make_unique<doca_comch_connection>(this, std::move(l));
    if (!connection_->handle() || register_connection(connection_.get()) != DOCA_SUCCESS) {
        SC_LOG_ERR("comch client '%s': cannot watch the connection's descriptors", name_.c_str());
        abort_connection(connection_.get(), softcomch::comch::k_status_connection_lost);
        set_state(DOCA_CTX_STATE_IDLE);
        return 1;
    }
    first_beat(connection_.get());
    attach_faults(connection_.get(), "host");
    SC_TRACE(softcomch::comch::tracing::connected(*this, *connection_));
    SC_LOG_INFO("comch client '%s': connected (max message %u bytes)", name_.c_str(),
                connection_->link_->max_msg_size());
    set_state(DOCA_CTX_STATE_RUNNING);
    return 1;
}

unsigned doca_comch_client::poll()
{
    switch (state()) {
    case DOCA_CTX_STATE_IDLE:
        return 0;
    case DOCA_CTX_STATE_STARTING:
        return poll_connecting();
    case DOCA_CTX_STATE_RUNNING:
    case DOCA_CTX_STATE_STOPPING:
        break;
    }
    settle_sends();
    unsigned work = 0;
    doca_comch_connection *c = connection_.get();
    if (c && c->state_ != doca_comch_connection::state::closed) {
        bool ended = false;
        work += service_connection(c, ended);
        if (ended) {
            // The server disconnected us, stopped, or died (or, where the program opted in,
            // stopped progressing): the client stops.
            if (const char *v = c->link_->violation())
                SC_LOG_ERR("comch client '%s': closed the connection to the server (pid %d): "
                           "protocol violation: %s",
                           name_.c_str(), c->link_->peer_pid(), v);
            else if (c->peer_closed_)
                SC_LOG_INFO("comch client '%s': the server closed the connection", name_.c_str());
            else if (c->peer_timed_out_ && !c->link_->peer_gone())
                SC_LOG_WARN("comch client '%s': disconnected from the server (pid %d): it did not "
                            "progress for %lu ms (SOFTCOMCH_PEER_TIMEOUT_MS)",
                            name_.c_str(), c->link_->peer_pid(),
                            (unsigned long)(bounds_.timeout_ns / 1'000'000));
            else
                SC_LOG_WARN("comch client '%s': the server (pid %d) went away", name_.c_str(),
                            c->link_->peer_pid());
            abort_connection(c, softcomch::comch::k_status_connection_lost);
            ++work;
            if (state() == DOCA_CTX_STATE_RUNNING)
                set_state(DOCA_CTX_STATE_STOPPING);
        } else if (c->state_ == doca_comch_connection::state::closing) {
            if (close_connection(c)) {
                ++work;
            } else if (c->linger_over_) {
                abort_lingering(c, "server");
                ++work;
            }
        }
    }
    if (state() == DOCA_CTX_STATE_STOPPING &&
        (!c || c->state_ == doca_comch_connection::state::closed)) {
        if (try_finish_stop())
            return work + 1; // IDLE: the state callback may have destroyed this client
    }
    return work;
}

void doca_comch_client::on_tick(uint64_t now_ns) noexcept
{
    if (state() == DOCA_CTX_STATE_STARTING) {
        // A server that accepted our connection but does not answer: it is stopped or not
        // progressing (a dead one hangs up). The client keeps waiting, as it waits for a server
        // that is not there yet, and says so once.
        if (handshake_since_ns_ && !silence_logged_ &&
            now_ns - handshake_since_ns_ >= bounds_.handshake_ns) {
            const std::string hint = softcomch::comch::diag::silent_server_hint(
                dev_->info()->bluefield_id(), dev_->info()->pci_addr(), name_);
            SC_LOG_WARN("comch client '%s': the server has not answered the handshake for %lu ms "
                        "(it is stopped or not progressing); still waiting%s",
                        name_.c_str(), (unsigned long)((now_ns - handshake_since_ns_) / 1'000'000),
                        hint.c_str());
            silence_logged_ = true;
        }
        explain_starting(now_ns);
        return;
    }
    if (connection_)
        tick_connection(connection_.get(), now_ns);
}

softcomch::core::arm_result doca_comch_client::try_arm()
{
    softcomch::core::arm_result r;
    settle_sends(); // before this side sleeps
    switch (state()) {
    case DOCA_CTX_STATE_STARTING: {
        if (handshake_watch_.watching()) {
            // The server's answer makes the watched socket readable; the timer is only for
            // saying once that it does not come (on_tick).
            r.busy = handshake_watch_.ready;
            if (!silence_logged_ && handshake_since_ns_) {
                const uint64_t due = handshake_since_ns_ + bounds_.handshake_ns;
                const uint64_t now = softcomch::coarse_now_ns();
                r.timeout_ns = due > now ? due - now + k_tick_interval_ns : 1;
            }
            return r;
        }
        // Looking for the server: try again when the retry interval is over.
        uint64_t now = softcomch::coarse_now_ns();
        r.timeout_ns = next_attempt_ns_ > now ? next_attempt_ns_ - now : 1;
        r.busy = next_attempt_ns_ <= now;
        return r;
    }
    case DOCA_CTX_STATE_STOPPING:
        r.busy = true;
        break;
    default:
        break;
    }
    if (connection_)
        arm_connection(connection_.get(), r);
    return r;
}
