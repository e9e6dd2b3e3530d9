// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>
#include <vector>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/watch.hpp"
#include "common/visibility.hpp"
#include "transport/transport.hpp"

struct doca_dev_rep;

// The Comch server (DPU side). Listens on (BlueField, host function of its representor, name);
// start is synchronous.
// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_comch_server>() needs its typeinfo.
struct SOFTCOMCH_API doca_comch_server final : softcomch::comch::comch_ctx {
    doca_comch_server(doca_dev *dev, doca_dev_rep *rep, std::string name);
    ~doca_comch_server() override;

    doca_error_t
    event_connection_register(doca_comch_event_connection_status_changed_cb_t connect_cb,
                              doca_comch_event_connection_status_changed_cb_t disconnect_cb,
                              const char *func);
    // `conn` nullptr: a connection that closed and was freed (NOT_CONNECTED).
    doca_error_t disconnect(doca_comch_connection *conn);
    doca_dev_rep *rep() const noexcept { return rep_; }
    bool owns(const doca_comch_connection *conn) const noexcept override;
    size_t open_connections() const noexcept;
    doca_error_t require_no_children(const char *func) const override;

    unsigned poll() override;
    softcomch::core::arm_result try_arm() override;

protected:
    doca_error_t do_start() override;
    void do_stop() override;
    bool quiesce() override { return open_connections() == 0; }

private:
    // Why a connection is refused (bit of refusals_logged_): before its handshake is read, or
    // (refused_clients) after it.
    enum refusal : uint32_t {
        refused_busy = 1,        // SOFTCOMCH_MAX_HANDSHAKES handshakes in progress
        refused_budget = 2,      // the descriptor budget has room for no more connections
        refused_descriptors = 4, // the process is out of descriptors (EMFILE, ENFILE)
        refused_clients = 8,     // max_clients connections are open (read after the handshake)
    };

    unsigned accept_new();
    unsigned service_handshakes();
    // Frees the closed connections nothing refers to any more (their handles go stale), at the
    // end of poll when one closed, and every millisecond while closed ones wait for their
    // consumers and producers to go (those may be destroyed on other threads).
    void reclaim_connections() noexcept;
    void release_all() noexcept;
    void on_tick(uint64_t now_ns) noexcept override;
    void unpark(doca_comch_connection *conn) noexcept override;
    // The descriptor budget against RLIMIT_NOFILE (at start): raises the soft limit or says
    // how many clients fit, and sets fd_fit_.
    void check_descriptor_budget(const softcomch::transport::transport_ops &t);
    // Answers `p` with a REJECT for `why` (it is dropped by the caller); the first refusal of
    // each kind per start is logged.
    void refuse(softcomch::transport::pending &p, refusal why);
    // Closes the handshakes past their deadline.
    void drop_late_handshakes(uint64_t now_ns) noexcept;
    // Stops watching the listener for a while after an accept failure it cannot refuse.
    void pause_listening() noexcept;

    doca_dev_rep *rep_;
    doca_comch_event_connection_status_changed_cb_t connect_cb_ = nullptr;
    doca_comch_event_connection_status_changed_cb_t disconnect_cb_ = nullptr;
    doca_comch_event_connection_status_changed conn_event_{};

    std::unique_ptr<softcomch::transport::listener> listener_;
    softcomch::comch::watch_set listen_watch_; // `ready`: a client may be waiting

    struct handshake {
        std::unique_ptr<softcomch::transport::pending> pending;
        softcomch::comch::watch_set watch; // `ready` starts set: try once right after accept
        uint64_t deadline_ns = 0;
    };
    std::vector<std::unique_ptr<handshake>> handshakes_;
    // Connections the process's descriptors have room for (check_descriptor_budget), and the
    // limit behind it, for refusals.
    uint64_t fd_fit_ = UINT64_MAX;
    uint64_t fd_soft_limit_ = 0;
    // Handshakes held at once: SOFTCOMCH_MAX_HANDSHAKES, less under a tight descriptor limit.
    uint64_t max_handshakes_ = 0;
    // The listener is out of the epoll set until then (0: it is watched), see pause_listening.
    uint64_t listen_resume_ns_ = 0;
    // Refusal kinds already logged since the start: each is logged once per start (a local
    // stand-in until the library's rate-limited logging exists).
    uint32_t refusals_logged_ = 0;
    // Connections: open ones, and closed ones until reclaim_connections() frees them.
    std::vector<std::unique_ptr<doca_comch_connection>> connections_;
    // Idle connections cost nothing (docs/design.md): poll visits `active_` only; a connection
    // idle for a whole tick is parked (transport::link::park) and leaves it, and comes back
    // when its bell rings (the listener's take_bells), one of its handles fires, a send is
    // queued on it, or a tick finds a message in it (the net under a peer that silences
    // bells). Every open connection is parked or in active_ (closed ones drop out).
    std::vector<doca_comch_connection *> active_;
    std::vector<doca_comch_connection *> by_bell_; // link bell -> its connection
    bool repark_ = false; // a notification request replaced the parks by sleeping arms
    // Whether `c` may be parked now (open, nothing queued or pending on its slow channel).
    bool parkable(const doca_comch_connection *c) const noexcept;
    // The tick's half of parking: parks the connections idle since the last tick, polls again
    // those that must not stay parked (or that hold a message).
    void park_idle() noexcept;
    // Parks again the parked connections whose parks a notification request replaced.
    void repark() noexcept;
    static void on_bell(void *self, uint32_t bell) noexcept;
    uint64_t next_connection_id_ = 1;
    bool reclaim_due_ = false;     // a connection closed since the last reclaim
    size_t closed_waiting_ = 0;    // closed connections kept for their consumers/producers
    uint64_t next_reclaim_ns_ = 0; // coarse clock
};
