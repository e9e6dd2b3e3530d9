// SPDX-License-Identifier: Apache-2.0
#include "comch/faults.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "common/enum_names.hpp"
#include "common/error_names.hpp"
#include "common/log.hpp"
#include "common/trace.hpp"

namespace softcomch::comch {

namespace {

constexpr const char *k_faults_env = "SOFTCOMCH_FAULTS";

constexpr enum_name<fault_kind> k_fault_kinds[] = {
    {fault_kind::disconnect, "disconnect"},
    {fault_kind::delay, "delay"},
    {fault_kind::submit_again, "submit-again"},
    {fault_kind::consumer_start_fail, "consumer-start-fail"},
    {fault_kind::kill_channel, "kill-channel"},
    {fault_kind::hang, "hang"},
};

std::string_view trim(std::string_view s) noexcept
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// A count from 1 to 2^32.
bool parse_count(std::string_view v, uint64_t *out) noexcept
{
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n == 0 || n > (uint64_t(1) << 32))
        return false;
    *out = n;
    return true;
}

// A duration: a count followed by "ms" or "s", at most a day.
bool parse_duration(std::string_view v, uint64_t *out_ns) noexcept
{
    uint64_t unit = 0;
    if (v.size() > 2 && v.substr(v.size() - 2) == "ms") {
        unit = 1'000'000;
        v.remove_suffix(2);
    } else if (v.size() > 1 && v.back() == 's') {
        unit = 1'000'000'000;
        v.remove_suffix(1);
    } else {
        return false;
    }
    uint64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n == 0 || n * unit > 86'400'000'000'000)
        return false;
    *out_ns = n * unit;
    return true;
}

bool parse_error_code(std::string_view v, doca_error_t *out) noexcept
{
    for (int32_t c = 1; c < error_count; ++c)
        if (v == error_name(c)) {
            *out = static_cast<doca_error_t>(c);
            return true;
        }
    return false;
}

// Which options each fault takes besides the scope ones.
bool takes(fault_kind k, std::string_view key) noexcept
{
    switch (k) {
    case fault_kind::disconnect:
        return key == "after" || key == "at";
    case fault_kind::delay:
        return key == "ms";
    case fault_kind::submit_again:
        return key == "every";
    case fault_kind::consumer_start_fail:
        return key == "code";
    case fault_kind::kill_channel:
        return key == "after";
    case fault_kind::hang:
        return key == "after" || key == "at" || key == "for";
    }
    return false;
}

// What a rule of its kind still lacks ("ms=N"), or nullptr when it is complete.
const char *missing_parameter(const fault_rule &r) noexcept
{
    switch (r.kind) {
    case fault_kind::disconnect:
    case fault_kind::hang:
        return (r.after != 0) == (r.at_ns != 0) ? "exactly one of after=N and at=T" : nullptr;
    case fault_kind::delay:
        return r.delay_ns == 0 ? "ms=N" : nullptr;
    case fault_kind::submit_again:
        return r.every == 0 ? "every=N" : nullptr;
    case fault_kind::kill_channel:
        return r.after == 0 ? "after=N" : nullptr;
    case fault_kind::consumer_start_fail:
        break;
    }
    return nullptr;
}

// One rule; false with *why on a mistake.
bool parse_rule(std::string_view text, fault_rule *r, std::string *why)
{
    r->text = std::string(text);
    size_t comma = text.find(',');
    const std::string fault(trim(text.substr(0, comma)));
    if (!value_of(k_fault_kinds, fault.c_str(), &r->kind)) {
        *why = "unknown fault \"" + fault +
               "\" (known: disconnect, delay, submit-again, consumer-start-fail, kill-channel, "
               "hang)";
        return false;
    }
    while (comma != std::string_view::npos) {
        text.remove_prefix(comma + 1);
        comma = text.find(',');
        const std::string_view opt = trim(text.substr(0, comma));
        const size_t eq = opt.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == opt.size()) {
            *why = "option \"" + std::string(opt) + "\" is not key=value";
            return false;
        }
        const std::string_view key = opt.substr(0, eq);
        const std::string_view val = opt.substr(eq + 1);
        bool ok = true;
        if (key == "fabric")
            r->fabric = std::string(val);
        else if (key == "server")
            r->server = std::string(val);
        else if (key == "side") {
            ok = val == "host" || val == "dpu";
            r->side = std::string(val);
        } else if (key == "conn") {
            uint64_t n = 0;
            ok = parse_count(val, &n) && n <= std::numeric_limits<uint32_t>::max();
            r->conn = static_cast<uint32_t>(n);
        } else if (!takes(r->kind, key)) {
            *why = "\"" + fault + "\" takes no option \"" + std::string(key) + "\"";
            return false;
        } else if (key == "after")
            ok = parse_count(val, &r->after);
        else if (key == "every")
            ok = parse_count(val, &r->every);
        else if (key == "ms") {
            ok = parse_count(val, &r->delay_ns) && r->delay_ns <= 86'400'000;
            r->delay_ns *= 1'000'000;
        } else if (key == "at")
            ok = parse_duration(val, &r->at_ns);
        else if (key == "for")
            ok = parse_duration(val, &r->for_ns);
        else if (key == "code")
            ok = parse_error_code(val, &r->code);
        if (!ok) {
            *why = "bad value \"" + std::string(val) + "\" for " + std::string(key) +
                   (key == "at" || key == "for" ? " (a duration such as 250ms or 2s)"
                    : key == "side"             ? " (host or dpu)"
                    : key == "code"             ? " (a DOCA_ERROR_* name)"
                                                : " (a count from 1)");
            return false;
        }
    }
    if (const char *missing = missing_parameter(*r)) {
        *why = "\"" + fault + "\" needs " + missing;
        return false;
    }
    return true;
}

bool matches(const fault_rule &r, const fault_scope &s) noexcept
{
    return (r.fabric.empty() || r.fabric == s.fabric) &&
           (r.server.empty() || r.server == s.server) && (r.side.empty() || r.side == s.side) &&
           (r.conn == 0 || r.conn == s.conn);
}

} // namespace

const char *fault_kind_name(fault_kind k) noexcept
{
    return name_of(k_fault_kinds, k);
}

doca_error_t parse_faults(std::string_view text, fault_plan *out, std::string *why)
{
    fault_plan plan;
    while (!text.empty()) {
        const size_t semi = text.find(';');
        const std::string_view rule = trim(text.substr(0, semi));
        text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
        if (rule.empty())
            continue;
        fault_rule r;
        if (!parse_rule(rule, &r, why)) {
            *why = std::string(k_faults_env) + ": rule \"" + std::string(rule) + "\": " + *why;
            return DOCA_ERROR_BAD_CONFIG;
        }
        plan.rules.push_back(std::move(r));
    }
    *out = std::move(plan);
    return DOCA_SUCCESS;
}

doca_error_t faults_from_env(fault_plan *out, std::string *why)
{
    const char *v = std::getenv(k_faults_env);
    if (v == nullptr) {
        *out = fault_plan{};
        return DOCA_SUCCESS;
    }
    return parse_faults(v, out, why);
}

connection_faults::connection_faults(const fault_plan &plan, const fault_scope &scope,
                                     uint64_t up_ns)
    : scope_(scope), up_ns_(up_ns)
{
    for (const fault_rule &r : plan.rules)
        if (matches(r, scope)) {
            active_.push_back(active{r});
            if (r.kind == fault_kind::delay && r.delay_ns > delay_ns_)
                delay_ns_ = r.delay_ns;
        }
}

void connection_faults::fire(active &a, const char *what) noexcept
{
    SC_LOG_WARN("fault injected (%s, SOFTCOMCH_FAULTS) on connection %u of server '%s' (%s side): "
                "%s",
                a.rule.text.c_str(), scope_.conn, scope_.server.c_str(), scope_.side.c_str(), what);
    SC_TRACE(trace::fault(fault_kind_name(a.rule.kind), scope_.link_id, a.rule.text));
}

template <class Due>
bool connection_faults::fire_due(fault_kind k, const char *what, Due &&due) noexcept
{
    bool any = false;
    for (active &a : active_)
        if (a.rule.kind == k && !a.fired && due(a)) {
            a.fired = true;
            fire(a, what);
            any = true;
        }
    return any;
}

bool connection_faults::on_send() noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    for (active &a : active_)
        if (a.rule.kind == fault_kind::hang && a.rule.after != 0)
            ++a.count; // hang,after=N: counted here, fires in hung()
    return fire_due(fault_kind::disconnect, "the connection drops after this send",
                    [](active &a) { return a.rule.after != 0 && ++a.count == a.rule.after; });
}

bool connection_faults::disconnect_due(uint64_t now_ns) noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    return fire_due(fault_kind::disconnect, "the connection drops now", [&](const active &a) {
        return a.rule.at_ns != 0 && now_ns >= up_ns_ + a.rule.at_ns;
    });
}

void connection_faults::delaying() noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    for (active &a : active_)
        if (a.rule.kind == fault_kind::delay && a.rule.delay_ns == delay_ns_ && !a.fired) {
            a.fired = true;
            char what[96];
            std::snprintf(what, sizeof what,
                          "received messages are delivered %lu ms late (logged once)",
                          (unsigned long)(delay_ns_ / 1'000'000));
            fire(a, what);
            break;
        }
}

bool connection_faults::submit_again() noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    bool again = false;
    for (active &a : active_)
        if (a.rule.kind == fault_kind::submit_again && ++a.count % a.rule.every == 0) {
            if (!a.fired)
                fire(a, "doca_task_submit returns DOCA_ERROR_AGAIN (every time the rule fires; "
                        "logged once)");
            a.fired = true;
            again = true;
        }
    return again;
}

bool connection_faults::kill_channel() noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    return fire_due(fault_kind::kill_channel, "the connection drops during this fast-path send",
                    [](active &a) { return ++a.count == a.rule.after; });
}

bool connection_faults::hung(uint64_t now_ns) noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    bool hung = false;
    for (active &a : active_) {
        if (a.rule.kind != fault_kind::hang)
            continue;
        if (!a.fired) {
            const bool due =
                a.rule.after != 0 ? a.count >= a.rule.after : now_ns >= up_ns_ + a.rule.at_ns;
            if (!due)
                continue;
            a.fired = true;
            a.hang_until = a.rule.for_ns ? now_ns + a.rule.for_ns : UINT64_MAX;
            fire(a, a.rule.for_ns ? "this process stops serving the connection for a while"
                                  : "this process stops serving the connection");
        }
        if (now_ns < a.hang_until)
            hung = true;
        else
            a.hang_until = 0; // over (a hang fires once)
    }
    return hung;
}

uint64_t connection_faults::next_timer_ns() const noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    uint64_t due = 0;
    auto earliest = [&](uint64_t t) {
        if (due == 0 || t < due)
            due = t;
    };
    for (const active &a : active_) {
        const bool timed = a.rule.kind == fault_kind::disconnect || a.rule.kind == fault_kind::hang;
        if (timed && !a.fired && a.rule.at_ns != 0)
            earliest(up_ns_ + a.rule.at_ns);
        else if (a.rule.kind == fault_kind::hang && a.fired && a.hang_until != 0 &&
                 a.hang_until != UINT64_MAX)
            earliest(a.hang_until);
    }
    return due;
}

doca_error_t connection_faults::consumer_start() noexcept
{
    std::lock_guard<std::mutex> g(mu_);
    for (active &a : active_)
        if (a.rule.kind == fault_kind::consumer_start_fail) {
            char what[96];
            std::snprintf(what, sizeof what, "doca_ctx_start of a consumer fails with %s",
                          error_name(a.rule.code));
            fire(a, what);
            return a.rule.code;
        }
    return DOCA_SUCCESS;
}

} // namespace softcomch::comch
