// SPDX-License-Identifier: Apache-2.0
//
// softcomch top: its command line; the view itself is in top/ (top/top.hpp).
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "command.hpp"
#include "introspect/fabric.hpp"
#include "options.hpp"
#include "top/top.hpp"

namespace softcomch::tools {

namespace {

constexpr std::array top_options{
    option_spec{"once", 0, "", "print one snapshot and exit (also when stdout is not a terminal)"},
    option_spec{"json", 0, "",
                "print the snapshot as one JSON object (schema softcomch-top 1, below); implies "
                "--once"},
    option_spec{"delay", 'd', "SECONDS", "refresh every SECONDS (default 1; at least 0.05)"},
    option_spec{"sort", 0, "KEY",
                "initial order of the connections: pid, name, msgs-out, msgs-in, bytes-out, "
                "bytes-in, rate, queue, stalled (default pid; s/S cycle through them)"},
    option_spec{"fabric", 0, "NAME", "look at fabric NAME instead of $SOFTCOMCH_FABRIC"},
};

constexpr command_usage top_usage{
    "top",
    "[--once] [--json] [-d SECONDS] [--sort KEY] [--fabric NAME]",
    "A live view of every Comch server, client and connection of the fabric: process, device, "
    "representor, name, state, messages and bytes each way (and per second), the queues (sends "
    "waiting for room, both rings' fill), consumers and producers, and a peer that has stopped "
    "progressing (STALLED, as its peer's library judges it after SOFTCOMCH_PEER_STALL_MS); and, "
    "when there are any, every DMA, compress, SHA or mmap advise context (tasks done and failed, "
    "in flight, bytes) and the memory processes exported and imported (an import names its "
    "exporter and counts the bytes DMA moved). "
    "Every process that starts a Comch server or client publishes these figures in the fabric "
    "directory (stats/<pid>.stats, written without a system call on the data path); top only "
    "reads them, and removes the files of processes that ended.\n"
    "Keys: q quit, s/S next/previous sort order, p pause, space refresh, h help. The terminal is "
    "restored on q, Ctrl-C, SIGTERM and SIGHUP, and while suspended (Ctrl-Z).",
    top_options,
    "JSON (--json), stable field names, schema \"softcomch-top\" version 1:\n"
    "  {schema, schema_version, fabric, fabric_dir, stats_dir, timestamp,\n"
    "   summary: {processes, servers, clients, connections, stalled_peers, engines, exports,\n"
    "             imports},\n"
    "   processes: [{pid, comm, cmdline, state (running|sleeping|stopped|traced|...),\n"
    "                contexts_unpublished, connections_unpublished, resources_unpublished,\n"
    "                stats_file}],\n"
    "   contexts: [{pid, id, kind (server|client), name, name_truncated, state (IDLE|STARTING|\n"
    "               RUNNING|STOPPING), bluefield, device, representor, host_function,\n"
    "               max_msg_size, recv_queue_size, connections, since_tick_ms (or null)}],\n"
    "   connections: [{pid, context_id, side (server|client), name, id, peer_pid,\n"
    "                  state (open|closing), max_msg_size, sent: {messages, bytes},\n"
    "                  received: {messages, bytes}, send_queued, send_ring: {used, limit},\n"
    "                  recv_ring: {used, limit}, consumers, producers,\n"
    "                  peer: {stalled, silent_ms, asleep, gone}}],\n"
    "   engines: [{pid, id, engine (dma|compress|sha|mmap_advise), device, state, tasks_done,\n"
    "              tasks_failed, in_flight, bytes}],\n"
    "   memory: [{pid, id, role (export|import), what (mmap|sync_event), function, access, addr,\n"
    "             len, exporter, exported_for, bytes (the last three null for an export)}],\n"
    "   unreadable: [{path, why}], stale_removed: [path]}\n"
    "Both ends of a connection appear, each from its own process: the same id, with pid and\n"
    "peer_pid swapped.\n"
    "\n"
    "Exit status:\n"
    "  0      quit with q, or printed the snapshot\n"
    "  1      the fabric name is not valid\n"
    "  2      bad command line\n"
    "  128+N  ended by signal N (SIGINT, SIGTERM, SIGHUP) in the live view\n",
};

void print_once_text(const top::snapshot &s, top::sort_key key)
{
    std::printf("%s\n\n", top::summary(s).c_str());
    const top::render_options o; // exact numbers, no rates (one snapshot)
    for (const auto &l : top::render_tables(s, nullptr, key, o))
        std::printf("%s\n", l.text.c_str());
    const auto problems = top::render_problems(s);
    if (!problems.empty())
        std::printf("\n");
    for (const auto &l : problems)
        std::printf("%s\n", l.text.c_str());
}

} // namespace

int cmd_top(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, top_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(top_usage, "unexpected argument '" + opts.positional().front() + "'");
    top::live_options live;
    if (auto d = opts.get("delay")) {
        const auto v = parse_seconds(*d);
        if (!v || *v < 0.05 || *v > 3600)
            return usage_error(top_usage, "--delay takes a number of seconds from 0.05 to 3600");
        live.delay_s = *v;
    }
    if (auto k = opts.get("sort")) {
        const auto key = top::find_sort_key(*k);
        if (!key)
            return usage_error(top_usage, "unknown sort key '" + *k + "'");
        live.sort = *key;
    }
    live.fabric = opts.get("fabric").value_or(introspect::fabric_name());
    const introspect::fabric_location loc = introspect::locate_fabric(live.fabric);
    if (!loc.valid) {
        std::fprintf(stderr, "softcomch top: %s\n", loc.error.c_str());
        return exit_failure;
    }
    live.fabric_dir = loc.dir;

    const bool json = opts.has("json");
    if (!json && !opts.has("once")) {
        if (auto status = top::run_live(live))
            return *status;
        // Not a terminal: one snapshot, as --once.
    }
    top::snapshot s = top::take_snapshot(live.fabric, live.fabric_dir);
    if (json) {
        std::printf("%s\n", json::dump(top::to_json(s)).c_str());
        return exit_ok;
    }
    print_once_text(s, live.sort);
    return exit_ok;
}

} // namespace softcomch::tools
