// SPDX-License-Identifier: Apache-2.0
//
// The trace recorder (SOFTCOMCH_TRACE=FILE; docs/trace.md). Every process that has the variable
// appends what it does to FILE, one event per line in Chrome's trace-event JSON ("array format":
// the first writer puts "[\n", every event is a line "{...},\n"), with CLOCK_MONOTONIC time in
// microseconds, the process id and the thread id: the DPU side and the host side of a pair land
// on one timeline that Perfetto or chrome://tracing opens (`softcomch trace FILE` makes it strict
// JSON). Off by default.
//
// Cost when off: every event site is `SC_TRACE(call);`, one relaxed load of a global that is
// false once the first event site found the variable unset (it starts true so that the first
// site resolves it), and one branch. Nothing else is compiled into the data path.
//
// When on: one write(2) per event, of one complete line of at most k_max_line bytes, to a
// descriptor opened with O_APPEND, so that lines of several processes never interleave. The
// per-message events (sends, receives) take at most k_budget_per_second lines a second per
// process; beyond that they are counted, and the count is recorded once the second is over. The
// fast path is never traced message by message: its messages and bytes are counters, recorded
// at most every k_counter_interval_ns. A file that cannot be opened (or that is not a trace in
// progress) gives one SDK error line at the first event site and tracing stays off; the program
// is never failed by its trace.
//
// Thread safety: every function may be called from any thread. No thread of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace softcomch::trace {

inline constexpr const char *k_env = "SOFTCOMCH_TRACE";
inline constexpr size_t k_max_line = 1024;                    // bytes of one event line
inline constexpr uint32_t k_budget_per_second = 10000;        // per-message events, per process
inline constexpr uint64_t k_counter_interval_ns = 10'000'000; // fast-path counter samples

namespace detail {
// True until the first event site found tracing off, and while it is on. Hidden (only the
// library's own code reads it): a PC-relative load, not one through the GOT.
extern __attribute__((visibility("hidden"))) std::atomic<bool> g_armed;
} // namespace detail

// The data path's test (see SC_TRACE).
inline bool armed() noexcept
{
    return detail::g_armed.load(std::memory_order_relaxed);
}

// Whether tracing is on, resolving it from the environment at the first call (opening the file;
// off, with one error line, if that fails). Every event function below starts with it, so event
// sites need not call it.
bool on() noexcept;

// ---- building one event ----

// One event line, built in place (no allocation) and written by emit(). Strings are escaped for
// JSON (and cut to fit the line): '"' and '\' escaped, control characters other than \n \t \r and
// bytes that are not UTF-8 replaced by '?', never a \u escape (Perfetto's JSON tokenizer has
// none).
class event {
public:
    // ph: 'i' instant (thread scope), 'b'/'e' async begin/end (`id` required, unique across
    // processes), 'C' counter, 'M' metadata. The timestamp is taken here. Nothing is built while
    // tracing is off.
    event(char ph, const char *cat, std::string_view name, std::string_view id = {}) noexcept;
    event(const event &) = delete;
    event &operator=(const event &) = delete;

    // Arguments ("args"). One that does not fit the line is left out; a string is cut.
    event &arg(const char *key, int64_t v) noexcept;
    event &arg(const char *key, uint64_t v) noexcept;
    event &arg(const char *key, int v) noexcept { return arg(key, int64_t(v)); }
    event &arg(const char *key, unsigned v) noexcept { return arg(key, uint64_t(v)); }
    event &arg(const char *key, bool v) noexcept;
    event &arg(const char *key, std::string_view v) noexcept;
    event &arg(const char *key, const char *v) noexcept { return arg(key, std::string_view(v)); }
    // Writes the line (nothing when tracing is off), after this process's and thread's metadata
    // when they are not written yet. Once only.
    void emit() noexcept;

private:
    // Writes the key and `v` (a JSON string when `quoted`, else as it is); an argument that does
    // not fit is dropped whole.
    event &put(const char *k, std::string_view v, bool quoted) noexcept;
    void raw(std::string_view s) noexcept;
    void str(std::string_view s) noexcept;
    void key(const char *k) noexcept;

    char buf_[k_max_line];
    size_t len_ = 0;
    bool live_ = false;
    bool meta_ = false;
    bool in_args_ = false;
    bool overflow_ = false;
};

// Whether one more per-message event fits this second's budget (counted as dropped if not).
bool take_budget() noexcept;

// ---- what the library records (each a no-op when tracing is off) ----

// Names this process after its first Comch role: "DPU: server 'x'" or "host: client 'x'" (the
// process is first named after its program). Later roles do not rename it.
void name_process(const char *side, const char *role, std::string_view name) noexcept;

// The label state changes of `ctx` are shown under ("server 'x'", "consumer 3 (conn 1)"), until
// it is IDLE again; without one, the context's kind name is used.
void label(const void *ctx, std::string_view label) noexcept;

// A context's state change: the states are async spans (cat "state") of one track per context.
void state_change(const void *ctx, const char *kind, const char *from, const char *to) noexcept;

// Async span of a task (cat "comch"): begin records the task under a fresh id (within the
// per-message budget); end closes it, for tasks begun only, with `status` (a doca_error_t, or
// k_withdrawn for a task that ends without completing) as its argument.
inline constexpr int k_withdrawn = -1;
void task_begin(const void *task, std::string_view name, uint64_t conn, uint32_t len) noexcept;
// The same span (cat "engine") for a task of an engine context (DMA, compress, SHA, sync event,
// mmap advise): `name` such as "dma memcpy", `ctx` the context (its address, as an argument).
void engine_task_begin(const void *task, std::string_view name, const void *ctx) noexcept;
void task_end(const void *task, int status) noexcept;
// Whether any task span is open (end() is then worth calling).
bool tasks_open() noexcept;

// Fast path: one producer send of `bytes` / one consumer completion of `bytes`. Counted; the
// totals are recorded as counter events at most every k_counter_interval_ns (and by flush()).
void fast_sent(uint64_t bytes) noexcept;
void fast_received(uint64_t bytes) noexcept;
// Records the fast-path counters now if they changed since they were last recorded.
void flush_counters() noexcept;

// Memory crossing the link (cat "memory", instant): `what` is "export" or "import", `detail`
// says which range and, for an import, which process exported it.
void memory(const char *what, std::string_view detail) noexcept;

// A fault of SOFTCOMCH_FAULTS that fires (docs/failure-model.md, "Faults on demand"): an instant
// event, cat "fault", named `kind` ("disconnect", "delay", ...), with the connection's id (0:
// none) and a free text. The hook for the fault injector: call it where the fault fires.
void fault(const char *kind, uint64_t conn, std::string_view detail) noexcept;

// ---- for tests ----
namespace testing {
// Closes the file and forgets everything: the next event site resolves SOFTCOMCH_TRACE again.
// Not while another thread traces.
void reset() noexcept;
// The path being written, empty when off.
std::string path();
} // namespace testing

} // namespace softcomch::trace

// An event site: `SC_TRACE(softcomch::trace::fault("delay", id, text));`. The call runs only
// while tracing is on (or not yet resolved), behind one predictable branch.
#define SC_TRACE(...)                                                                              \
    do {                                                                                           \
        if (::softcomch::trace::armed()) [[unlikely]] {                                            \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)
