// SPDX-License-Identifier: Apache-2.0
//
// Faults on demand (SOFTCOMCH_FAULTS, docs/failure-model.md): a program under test asks the
// library to misbehave in the ways a real connection can, to exercise its error handling. The
// plan is parsed at each doca_ctx_start of a server or client (a bad value fails the start with
// BAD_CONFIG and a line naming the rule and what is wrong); each new connection then carries
// the rules that match it (comch/fault_hooks.hpp says where each one acts), and each fault
// writes one warning line when it fires. Unset, nothing of this exists for a connection.
//
//   SOFTCOMCH_FAULTS = rule *(";" rule)
//   rule  = fault *("," option)
//   fault = disconnect | delay | submit-again | consumer-start-fail | kill-channel | hang
//
// Options that choose where a rule applies (all optional; a rule with none applies everywhere):
//   fabric=NAME   only in that fabric (SOFTCOMCH_FABRIC)
//   server=NAME   only on connections of the server of that name (either side)
//   side=host|dpu only in a process on that side (a client is on the host, a server on the DPU)
//   conn=N        only on the Nth connection this process opens or accepts (from 1, all servers
//                 and clients of the process, every start; logged at info while a plan is set)
// Options of each fault (N a count from 1; T a duration such as 250ms or 2s):
//   disconnect,after=N | disconnect,at=T   the connection drops, as if this process died, after
//                                          the Nth control-path send that reached the peer's
//                                          queue, or T after the connection came up
//   delay,ms=N                             each received control-path message is delivered N ms
//                                          after it arrived (held in the ring, in order)
//   submit-again,every=N                   every Nth doca_task_submit of a task on the
//                                          connection (send, producer send, post-receive)
//                                          returns DOCA_ERROR_AGAIN and changes nothing
//   consumer-start-fail[,code=DOCA_ERROR_X] doca_ctx_start of a consumer fails (DOCA_ERROR_DRIVER)
//   kill-channel,after=N                   the Nth fast-path producer send drops the connection
//                                          half-way through its copy (that send fails)
//   hang,after=N|at=T[,for=T]              after N sends, or T after it is up, the process stops
//                                          serving the connection (for ever, or for T): the peer
//                                          sees a hung peer, not a closed one
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace softcomch::comch {

enum class fault_kind : uint8_t {
    disconnect,
    delay,
    submit_again,
    consumer_start_fail,
    kill_channel,
    hang,
};

const char *fault_kind_name(fault_kind k) noexcept;

struct fault_rule {
    fault_kind kind = fault_kind::disconnect;
    // Where it applies; empty or 0: anywhere.
    std::string fabric;
    std::string server;
    std::string side; // "host", "dpu" or ""
    uint32_t conn = 0;
    // When and how it fires (which apply depends on the kind; 0: not given).
    uint64_t after = 0;                    // count
    uint64_t at_ns = 0;                    // since the connection is up
    uint64_t every = 0;                    // submit-again
    uint64_t delay_ns = 0;                 // delay
    uint64_t for_ns = 0;                   // hang; 0: for ever
    doca_error_t code = DOCA_ERROR_DRIVER; // consumer-start-fail
    std::string text;                      // the rule as written, for log lines
};

struct fault_plan {
    std::vector<fault_rule> rules;
    bool empty() const noexcept { return rules.empty(); }
};

// Parses `text` (the grammar above). BAD_CONFIG with *why naming the rule and the problem.
doca_error_t parse_faults(std::string_view text, fault_plan *out, std::string *why);

// The plan SOFTCOMCH_FAULTS asks for (empty when unset). Read at each call.
doca_error_t faults_from_env(fault_plan *out, std::string *why);

// Where a connection is, for matching rules.
struct fault_scope {
    std::string fabric;
    std::string server;
    std::string side;
    uint32_t conn = 0;    // ordinal of the connection in this process
    uint64_t link_id = 0; // the link's id, as the trace names the connection (0: none)
};

// The faults of one connection: the rules of a plan that match its scope, with their counters.
// Every query that fires logs one warning naming the rule and the connection. Thread-safe: the
// connection's engine asks most, but a producer or consumer of the connection may run on
// another thread (submit-again, kill-channel, consumer-start-fail); a mutex guards the counters
// (only connections with a matching rule have an object of this class at all).
class connection_faults {
public:
    connection_faults() = default;
    connection_faults(const fault_plan &plan, const fault_scope &scope, uint64_t up_ns);
    connection_faults(const connection_faults &) = delete;
    connection_faults &operator=(const connection_faults &) = delete;

    bool any() const noexcept { return !active_.empty(); }
    // A control-path send was accepted: true when the connection must drop now.
    bool on_send() noexcept;
    // Progress at `now_ns`: true when a time-triggered disconnect is due.
    bool disconnect_due(uint64_t now_ns) noexcept;
    // How late received messages are delivered (0: at once).
    uint64_t delivery_delay_ns() const noexcept { return delay_ns_; }
    // A received message is held for the delay: logs the delay rule once.
    void delaying() noexcept;
    // A doca_task_submit on this connection: true when it must return DOCA_ERROR_AGAIN.
    bool submit_again() noexcept;
    // A fast-path send: true when the channel must be killed during this one.
    bool kill_channel() noexcept;
    // True while the process must not serve the connection (`now_ns`: the engine's clock).
    bool hung(uint64_t now_ns) noexcept;
    // The earliest time (the engine's clock) at which a time-triggered fault is due or a hang
    // ends, so that a program asleep in epoll_wait is woken for it; 0 when there is none.
    uint64_t next_timer_ns() const noexcept;
    // A consumer start on this connection: DOCA_SUCCESS, or the code it must fail with.
    doca_error_t consumer_start() noexcept;

private:
    struct active {
        fault_rule rule;
        uint64_t count = 0;
        bool fired = false;
        uint64_t hang_until = 0; // hang: end of the hang once it fired (UINT64_MAX: for ever)
    };
    void fire(active &a, const char *what) noexcept;
    // Under mu_: fires, once each and saying `what`, the rules of kind `k` that have not fired
    // and for which `due(a)` holds (evaluated only for those); whether any fired.
    template <class Due> bool fire_due(fault_kind k, const char *what, Due &&due) noexcept;

    mutable std::mutex mu_;
    std::vector<active> active_;
    fault_scope scope_; // for the log lines
    uint64_t up_ns_ = 0;
    uint64_t delay_ns_ = 0;
};

} // namespace softcomch::comch
