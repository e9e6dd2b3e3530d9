// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <memory>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/watch.hpp"
#include "common/visibility.hpp"
#include "transport/transport.hpp"

// The Comch client (host side). Start is asynchronous: STARTING until the server accepted it.
// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_comch_client>() needs its typeinfo.
struct SOFTCOMCH_API doca_comch_client final : softcomch::comch::comch_ctx {
    doca_comch_client(doca_dev *dev, std::string name);
    ~doca_comch_client() override;

    doca_comch_connection *connection() const noexcept { return connection_.get(); }
    bool owns(const doca_comch_connection *conn) const noexcept override
    {
        return conn && conn == connection_.get();
    }
    doca_error_t require_no_children(const char *func) const override
    {
        return connection_ ? refuse_children(func, *connection_) : DOCA_SUCCESS;
    }

    unsigned poll() override;
    softcomch::core::arm_result try_arm() override;

protected:
    doca_error_t do_start() override;
    void do_stop() override;
    bool quiesce() override
    {
        return !connection_ || connection_->state_ == doca_comch_connection::state::closed;
    }

private:
    unsigned poll_connecting();
    void on_tick(uint64_t now_ns) noexcept override;
    bool wrong_representor_hint(std::string &why) const;
    // Once per start, SOFTCOMCH_DIAG_DELAY_MS after it, while no server is found: what the
    // client waits for and what the fabric has instead (comch/diagnostics.cpp).
    void explain_starting(uint64_t now_ns) noexcept;

    std::unique_ptr<softcomch::transport::connector> connector_;
    // The handshake in flight (the connector's handles) in the engine's epoll set, so that a
    // client waiting for the server's answer sleeps on it instead of on a timer. `ready`: the
    // answer may be there (or the first attempt is due).
    softcomch::comch::watch_set handshake_watch_;
    std::unique_ptr<doca_comch_connection> connection_;
    uint64_t next_attempt_ns_ = 0;
    bool waiting_logged_ = false;
    bool busy_logged_ = false;
    // When the handshake in flight began (0: none), and whether its silence was logged.
    uint64_t handshake_since_ns_ = 0;
    bool silence_logged_ = false;
    // Diagnostics (explain_starting): when this start began, whether the last attempt found no
    // server, and whether the client said so.
    uint64_t started_ns_ = 0;
    bool waiting_for_server_ = false;
    bool starting_explained_ = false;

    static constexpr uint64_t retry_interval_ns = 10'000'000; // 10 ms between connect attempts
};
