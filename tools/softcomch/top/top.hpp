// SPDX-License-Identifier: Apache-2.0
//
// softcomch top (cmd_top.cpp): every Comch server, client and connection of a fabric, and every
// DOCA engine context (DMA, compress, SHA), memory export and import, as the processes that hold
// them publish it (introspect/live.hpp). Files: model.cpp (snapshots, sort
// orders, rates, the JSON document), render.cpp (the tables, for the screen and for --once),
// terminal.cpp (raw mode, the alternate screen, keys, signals) and screen.cpp (the live view).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "introspect/live.hpp"

namespace softcomch::tools::top {

// ---- model.cpp ----

struct snapshot {
    std::string fabric;
    std::string fabric_dir;
    introspect::live_view view;
    uint64_t taken_ns = 0;      // CLOCK_MONOTONIC
    uint64_t taken_unix_ns = 0; // CLOCK_REALTIME
};
snapshot take_snapshot(const std::string &fabric, const std::string &fabric_dir);

enum class sort_key { pid, name, msgs_out, msgs_in, bytes_out, bytes_in, rate, queue, stalled };
struct sort_info {
    sort_key key;
    std::string_view name; // as --sort takes it and the status line shows it
    std::string_view help;
};
std::span<const sort_info> sort_keys() noexcept;
const sort_info &info_of(sort_key key) noexcept;
std::optional<sort_key> find_sort_key(std::string_view name) noexcept;
// The key `step` places after `key` in sort_keys(), wrapping around.
sort_key step_sort_key(sort_key key, int step) noexcept;

// Messages and bytes per second each way since the previous snapshot.
struct rates {
    bool known = false; // false: no previous figure for this connection
    double msgs_out = 0, msgs_in = 0, bytes_out = 0, bytes_in = 0;
};
struct connection_row {
    const introspect::live_connection *c = nullptr;
    rates r;
    const introspect::live_process *peer = nullptr; // the peer's process when it publishes too
};
// The connections of `now` in the order of `key` (ties: pid, context, id), with their rates
// against `before` (nullptr: none).
std::vector<connection_row> connection_rows(const snapshot &now, const snapshot *before,
                                            sort_key key);
// The contexts of `now`: by name for sort_key::name, else by pid and number.
std::vector<const introspect::live_context *> context_rows(const snapshot &now, sort_key key);
const introspect::live_process *find_process(const snapshot &s, int pid) noexcept;

// "running", "sleeping", "stopped", ... for a /proc state letter.
std::string_view process_state_name(char state) noexcept;

struct totals {
    size_t processes = 0, servers = 0, clients = 0, connections = 0, stalled = 0;
    size_t engines = 0, exports = 0, imports = 0;
};
totals count(const snapshot &s) noexcept;

// The document of `--once --json` (docs/cli.md, "softcomch top": schema softcomch-top 1).
json::value to_json(const snapshot &s);

// ---- render.cpp ----

enum class line_style { plain, title, header, alert, dim };
struct line {
    std::string text;
    line_style style = line_style::plain;
};
struct render_options {
    bool exact = true;  // exact numbers (--once) or compact ones (12.3K) for the screen
    bool rates = false; // the per-second columns (the live view)
};
// The tables (servers and clients, connections; then engines and memory, when there are any),
// with their titles, untruncated.
std::vector<line> render_tables(const snapshot &now, const snapshot *before, sort_key key,
                                const render_options &o);
// "fabric 'x': 3 processes, 1 server, 2 clients, 2 connections (1 peer stalled)".
std::string summary(const snapshot &s);
// Lines for the files that could not be read and the stale ones removed (may be empty).
std::vector<line> render_problems(const snapshot &s);

// ---- screen.cpp ----

struct live_options {
    std::string fabric;
    std::string fabric_dir;
    double delay_s = 1.0;
    sort_key sort = sort_key::pid;
};
// The live view on the terminal; returns the exit status (0 on q, 128 + N on signal N).
// nullopt when stdin/stdout are not a terminal it can drive (the caller prints once instead).
std::optional<int> run_live(const live_options &o);

} // namespace softcomch::tools::top
