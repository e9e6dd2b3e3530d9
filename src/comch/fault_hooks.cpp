// SPDX-License-Identifier: Apache-2.0
//
// Faults on demand in the data path (comch/fault_hooks.hpp says where each hook sits).
#include "comch/fault_hooks.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>

#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "comch/fastpath.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "core/pe.hpp"
#include "transport/fabric.hpp"

namespace softcomch::comch {

namespace {

// Connections this process opened or accepted so far: the conn=N of a rule.
std::atomic<uint32_t> g_connections{0};

// While a received message is held, the program is woken this often (at the latest) to note
// when later messages arrive: their delay counts from the first look that saw them.
constexpr uint64_t k_arrival_look_ns = 1'000'000;

// `r` wakes the program within `in_ns` at the latest.
void wake_within(core::arm_result &r, uint64_t in_ns) noexcept
{
    if (in_ns == 0)
        in_ns = 1;
    if (r.timeout_ns == 0 || r.timeout_ns > in_ns)
        r.timeout_ns = in_ns;
}

} // namespace

// ---- the producer's and the consumer's hooks (any thread) ----

bool fault_submit_again(doca_comch_connection &conn) noexcept
{
    return conn.faults_->faults.submit_again();
}

doca_error_t fault_consumer_start(doca_comch_connection &conn) noexcept
{
    return conn.faults_->faults.consumer_start();
}

bool fault_kill_channel(doca_comch_connection &conn) noexcept
{
    return conn.faults_->faults.kill_channel();
}

void fault_kill_connection(doca_comch_connection &conn) noexcept
{
    // As comch_ctx::end_fast_path does for a dead peer, for this side's producers; the map
    // itself is the connection engine's to clear when it sees the end.
    {
        std::lock_guard<std::mutex> g(conn.fast_.mu);
        for (auto &[id, r] : conn.fast_.remote)
            r->expired.store(true, std::memory_order_release);
    }
    conn.fast_.generation.fetch_add(1, std::memory_order_acq_rel);
    // The link lives until the connection's engine sees the end (abort_connection), which
    // expires the remote consumers first: the producer got here with one not expired. (The
    // consumer's announce_expired relies on the same order.)
    if (conn.link_)
        conn.link_->drop();
}

// ---- comch_ctx: the plan, and each new connection's faults ----

doca_error_t comch_ctx::load_faults()
{
    fault_plan plan;
    std::string why;
    if (faults_from_env(&plan, &why) != DOCA_SUCCESS) {
        SC_LOG_ERR("doca_ctx_start: %s '%s': %s", kind_name(), name_.c_str(), why.c_str());
        return DOCA_ERROR_BAD_CONFIG;
    }
    if (!plan.empty())
        SC_LOG_INFO("%s '%s': SOFTCOMCH_FAULTS asks for %zu fault rule(s); each is logged when it "
                    "fires",
                    kind_name(), name_.c_str(), plan.rules.size());
    fault_plan_ = std::move(plan);
    return DOCA_SUCCESS;
}

void comch_ctx::attach_faults(doca_comch_connection *conn, const char *side)
{
    const uint32_t ordinal = g_connections.fetch_add(1, std::memory_order_relaxed) + 1;
    if (fault_plan_.empty())
        return; // the usual case: no object, and faults_on_ stays false
    const fault_scope scope{transport::fabric_name(), name_, side, ordinal};
    auto f = std::make_unique<connection_fault_state>(fault_plan_, scope, coarse_now_ns());
    // The number a conn=N rule names, for every connection while a plan is set.
    SC_LOG_INFO("%s '%s': connection %u (%s side): %s", kind_name(), name_.c_str(), ordinal, side,
                f->faults.any() ? "fault rules apply" : "no fault rule matches");
    if (!f->faults.any())
        return;
    conn->faults_ = std::move(f);
    conn->faults_on_ = true;
}

// ---- comch_ctx: the hooks of the connection's engine ----

void comch_ctx::fault_drop(doca_comch_connection *conn) noexcept
{
    connection_fault_state &f = *conn->faults_;
    if (f.dropped)
        return;
    f.dropped = true;
    conn->link_->drop();
}

void comch_ctx::fault_sent(doca_comch_connection *conn) noexcept
{
    if (conn->faults_->faults.on_send())
        fault_drop(conn);
    update_hang(conn, coarse_now_ns());
}

void comch_ctx::update_hang(doca_comch_connection *conn, uint64_t now_ns) noexcept
{
    connection_fault_state &f = *conn->faults_;
    const bool hung = f.faults.hung(now_ns);
    if (hung == f.hung || conn->state_ == doca_comch_connection::state::closed)
        return;
    if (hung) {
        // As a process that stopped: nothing of the connection is read, nothing wakes us for
        // it, no heartbeat (tick_connection) goes out.
        conn->watch_.unwatch();
        f.hung = true;
        return;
    }
    if (register_connection(conn) != DOCA_SUCCESS)
        return; // still out of the epoll set: hung until the next tick manages
    f.hung = false;
    // This side did not look at the peer meanwhile: judge it from now.
    conn->peer_seen_ns_ = now_ns;
    conn->peer_asleep_ = false;
    SC_LOG_INFO("%s '%s': serves the connection again after the injected hang (SOFTCOMCH_FAULTS)",
                kind_name(), name_.c_str());
    pe()->request_service();
}

bool comch_ctx::fault_tick(doca_comch_connection *conn, uint64_t now_ns) noexcept
{
    connection_fault_state &f = *conn->faults_;
    if (!f.dropped && f.faults.disconnect_due(now_ns))
        fault_drop(conn);
    update_hang(conn, now_ns);
    return f.hung;
}

bool comch_ctx::fault_due(doca_comch_connection *conn)
{
    connection_fault_state &f = *conn->faults_;
    const uint64_t delay = f.faults.delivery_delay_ns();
    if (delay == 0)
        return true;
    const uint64_t now = now_ns();
    const transport::link::queue_counts q = conn->link_->receive_counts();
    if (f.arrivals.empty() || q.arrived > f.arrivals.back().first)
        f.arrivals.emplace_back(q.arrived, now);
    // The oldest message is number q.taken (from 0): it arrived by the first look whose count
    // is above that.
    while (!f.arrivals.empty() && f.arrivals.front().first <= q.taken)
        f.arrivals.pop_front();
    if (f.arrivals.empty()) // seen before the peer's count says so: it arrived now
        f.arrivals.emplace_back(q.taken + 1, now);
    const uint64_t due = f.arrivals.front().second + delay;
    if (now >= due) {
        f.held_until_ns = 0;
        return true;
    }
    if (f.held_until_ns == 0)
        f.faults.delaying(); // logged once
    f.held_until_ns = due;
    return false;
}

bool comch_ctx::fault_arm(doca_comch_connection *conn, core::arm_result &r) noexcept
{
    connection_fault_state &f = *conn->faults_;
    // Time-triggered faults are seen by the tick, at most k_tick_interval_ns after they are due.
    if (const uint64_t due = f.faults.next_timer_ns()) {
        const uint64_t now = coarse_now_ns();
        wake_within(r, due > now ? due - now + k_tick_interval_ns : 1);
    }
    if (f.hung)
        return true; // nothing of it is served: only its timers wake the program
    if (f.held_until_ns == 0)
        return false;
    // A message is held in the ring: not busy (the ring is not armed, or the program would
    // spin), woken when it is due, and meanwhile every k_arrival_look_ns to see later ones.
    const transport::link &l = *conn->link_;
    if (l.slow_pending() || conn->peer_closed_)
        r.busy = true;
    if (l.peer_gone())
        conn->watch_.unwatch(); // its hang-up would wake the program until the messages are due
    const uint64_t now = now_ns();
    wake_within(r, std::min(f.held_until_ns > now ? f.held_until_ns - now : 1, k_arrival_look_ns));
    return true;
}

} // namespace softcomch::comch
