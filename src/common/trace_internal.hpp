// SPDX-License-Identifier: Apache-2.0
//
// The recorder's state, shared by trace.cpp (the file, the process and thread metadata, the
// event builder) and trace_events.cpp (what the library records). Not for other files.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace softcomch::trace::detail {

enum class status : int { unresolved = 0, on = 1, off = 2 };

struct recorder {
    std::atomic<int> state{int(status::unresolved)};
    int fd = -1;
    std::string path;
    // Bumped by every fork (and reset()): thread and process metadata are written again for the
    // new pid, per-thread caches are stale.
    std::atomic<uint32_t> generation{1};
    std::atomic<int> pid{0};
    std::atomic<uint32_t> meta_generation{0}; // the generation whose process_name is written
    std::atomic<uint64_t> next_id{1};         // async spans' ids: "<pid>.<n>"

    // Guards the maps and the role below (control path only).
    std::mutex mu;
    bool role_named = false; // process named after its first Comch role in this generation
    struct ctx_entry {
        std::string id;
        std::string label;
    };
    std::unordered_map<const void *, ctx_entry> ctxs;
    struct task_entry {
        std::string id;
        std::string name;
        const char *cat = "comch";
    };
    std::unordered_map<const void *, task_entry> tasks;
    std::atomic<size_t> open_tasks{0};

    // The per-message budget (trace.hpp, k_budget_per_second).
    std::atomic<uint64_t> budget_window{0};
    std::atomic<uint32_t> budget_used{0};
    std::atomic<uint64_t> budget_dropped{0};

    // Fast-path totals and what was last recorded of them.
    std::atomic<uint64_t> tx_messages{0}, tx_bytes{0}, rx_messages{0}, rx_bytes{0};
    std::atomic<uint64_t> next_sample_ns{0};
    std::mutex sample_mu;
    uint64_t shown[4] = {};
};

recorder &rec() noexcept;

// Writes one complete line (one write(2)).
void write_line(const char *data, size_t len) noexcept;
// A fresh async id "<pid>.<n>".
std::string next_id();
// The process and thread metadata lines, if not written yet in this generation.
void ensure_metadata() noexcept;
// Emits the budget's drop notice if events were dropped since the last one.
void report_dropped() noexcept;

} // namespace softcomch::trace::detail
