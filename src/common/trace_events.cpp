// SPDX-License-Identifier: Apache-2.0
//
// What the library records (trace.hpp): the process's role, context states, task spans, the
// fast path's counters, faults, and the per-message budget.
#include <cstdio>
#include <cstring>
#include <string>

#include "common/clock.hpp"
#include "common/error_names.hpp"
#include "common/trace.hpp"
#include "common/trace_internal.hpp"

extern char *program_invocation_short_name; // glibc

namespace softcomch::trace {

using detail::rec;

namespace detail {

void report_dropped() noexcept
{
    const uint64_t dropped = rec().budget_dropped.exchange(0, std::memory_order_relaxed);
    if (dropped == 0)
        return;
    event('i', "trace", "events not recorded")
        .arg("dropped", dropped)
        .arg("budget_per_second", k_budget_per_second)
        .emit();
}

} // namespace detail

bool take_budget() noexcept
{
    detail::recorder &r = rec();
    const uint64_t second = softcomch::coarse_now_ns() / 1'000'000'000u;
    uint64_t window = r.budget_window.load(std::memory_order_relaxed);
    if (window != second &&
        r.budget_window.compare_exchange_strong(window, second, std::memory_order_relaxed)) {
        r.budget_used.store(0, std::memory_order_relaxed);
        detail::report_dropped();
    }
    if (r.budget_used.fetch_add(1, std::memory_order_relaxed) < k_budget_per_second)
        return true;
    r.budget_dropped.fetch_add(1, std::memory_order_relaxed);
    return false;
}

void name_process(const char *side, const char *role, std::string_view name) noexcept
{
    if (!on())
        return;
    try {
        {
            std::lock_guard<std::mutex> g(rec().mu);
            if (rec().role_named)
                return;
            rec().role_named = true;
        }
        detail::ensure_metadata(); // the program's name first: the role's replaces it
        const std::string label = std::string(side) + ": " + role + " '" + std::string(name) + "'";
        event('M', "__metadata", "process_name").arg("name", label).emit();
        event('M', "__metadata", "process_labels")
            .arg("labels", program_invocation_short_name ? program_invocation_short_name : "?")
            .emit();
        // The DPU side above the host side (chrome://tracing sorts processes by this).
        event('M', "__metadata", "process_sort_index")
            .arg("sort_index", std::strcmp(side, "DPU") == 0 ? 0 : 1)
            .emit();
    } catch (...) { // an allocation: the process keeps its program's name
    }
}

void label(const void *ctx, std::string_view text) noexcept
{
    if (!on())
        return;
    try {
        std::lock_guard<std::mutex> g(rec().mu);
        rec().ctxs[ctx].label.assign(text);
    } catch (...) {
    }
}

void state_change(const void *ctx, const char *kind, const char *from, const char *to) noexcept
{
    if (!on())
        return;
    try {
        std::string id;
        std::string label;
        {
            std::lock_guard<std::mutex> g(rec().mu);
            auto &e = rec().ctxs[ctx];
            if (e.id.empty())
                e.id = detail::next_id();
            id = e.id;
            label = e.label.empty() ? kind : e.label;
            if (std::strcmp(to, "IDLE") == 0) // restarted, it is labelled and numbered anew
                rec().ctxs.erase(ctx);
        }
        if (std::strcmp(from, "IDLE") != 0)
            event('e', "state", label + " " + from, id).emit();
        event('i', "state", label + " -> " + to)
            .arg("object", label)
            .arg("from", from)
            .arg("to", to)
            .emit();
        if (std::strcmp(to, "IDLE") != 0)
            event('b', "state", label + " " + to, id).arg("kind", kind).emit();
    } catch (...) {
    }
    flush_counters();
}

namespace {

// Records `task` as open under a fresh id and returns the id ("" when over budget or off).
std::string open_task(const void *task, std::string_view name, const char *cat)
{
    if (!on() || !take_budget())
        return {};
    std::string id = detail::next_id();
    std::lock_guard<std::mutex> g(rec().mu);
    rec().tasks[task] = detail::recorder::task_entry{id, std::string(name), cat};
    rec().open_tasks.store(rec().tasks.size(), std::memory_order_relaxed);
    return id;
}

} // namespace

void task_begin(const void *task, std::string_view name, uint64_t conn, uint32_t len) noexcept
{
    try {
        if (const std::string id = open_task(task, name, "comch"); !id.empty())
            event('b', "comch", name, id).arg("conn", conn).arg("len", len).emit();
    } catch (...) {
    }
}

void engine_task_begin(const void *task, std::string_view name, const void *ctx) noexcept
{
    try {
        if (const std::string id = open_task(task, name, "engine"); !id.empty()) {
            char where[32];
            std::snprintf(where, sizeof where, "%p", ctx);
            event('b', "engine", name, id).arg("ctx", std::string_view(where)).emit();
        }
    } catch (...) {
    }
}

void memory(const char *what, std::string_view detail) noexcept
{
    if (!on())
        return;
    try {
        event('i', "memory", what).arg("detail", detail).emit();
    } catch (...) {
    }
}

void task_end(const void *task, int status) noexcept
{
    if (!on())
        return;
    try {
        detail::recorder::task_entry e;
        {
            std::lock_guard<std::mutex> g(rec().mu);
            auto it = rec().tasks.find(task);
            if (it == rec().tasks.end())
                return;
            e = std::move(it->second);
            rec().tasks.erase(it);
            rec().open_tasks.store(rec().tasks.size(), std::memory_order_relaxed);
        }
        event('e', e.cat, e.name, e.id)
            .arg("status", status < 0 ? "withdrawn" : softcomch::error_name(int32_t(status)))
            .emit();
    } catch (...) {
    }
}

bool tasks_open() noexcept
{
    return rec().open_tasks.load(std::memory_order_relaxed) != 0;
}

namespace {

void sample() noexcept
{
    detail::recorder &r = rec();
    std::lock_guard<std::mutex> g(r.sample_mu);
    static constexpr const char *names[4] = {"fastpath.tx_messages", "fastpath.tx_bytes",
                                             "fastpath.rx_messages", "fastpath.rx_bytes"};
    const uint64_t now[4] = {
        r.tx_messages.load(std::memory_order_relaxed), r.tx_bytes.load(std::memory_order_relaxed),
        r.rx_messages.load(std::memory_order_relaxed), r.rx_bytes.load(std::memory_order_relaxed)};
    for (int i = 0; i < 4; ++i) {
        if (now[i] == r.shown[i])
            continue;
        r.shown[i] = now[i];
        event('C', "fastpath", names[i]).arg("value", now[i]).emit();
    }
}

void maybe_sample() noexcept
{
    detail::recorder &r = rec();
    const uint64_t now = softcomch::coarse_now_ns();
    uint64_t next = r.next_sample_ns.load(std::memory_order_relaxed);
    if (now >= next && r.next_sample_ns.compare_exchange_strong(next, now + k_counter_interval_ns,
                                                                std::memory_order_relaxed))
        sample();
}

// One fast-path message of `bytes` in the recorder's `messages` and `total` counters (relaxed:
// sample() reads them when it is due), while tracing is on.
void count_fast(std::atomic<uint64_t> detail::recorder::*messages,
                std::atomic<uint64_t> detail::recorder::*total, uint64_t bytes) noexcept
{
    if (!on())
        return;
    (rec().*messages).fetch_add(1, std::memory_order_relaxed);
    (rec().*total).fetch_add(bytes, std::memory_order_relaxed);
    maybe_sample();
}

} // namespace

void fast_sent(uint64_t bytes) noexcept
{
    count_fast(&detail::recorder::tx_messages, &detail::recorder::tx_bytes, bytes);
}

void fast_received(uint64_t bytes) noexcept
{
    count_fast(&detail::recorder::rx_messages, &detail::recorder::rx_bytes, bytes);
}

void flush_counters() noexcept
{
    if (!on())
        return;
    sample();
    detail::report_dropped();
}

void fault(const char *kind, uint64_t conn, std::string_view detail) noexcept
{
    if (!on() || !take_budget())
        return;
    event('i', "fault", kind).arg("conn", conn).arg("detail", detail).emit();
}

} // namespace softcomch::trace
