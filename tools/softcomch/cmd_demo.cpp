// SPDX-License-Identifier: Apache-2.0
//
// softcomch demo: a short guided run on the embedded default topology. Each step starts a
// DPU-side and a host-side program through the `run` machinery (pair_runner.hpp), captures
// their output and turns it into a few plain sentences. Steps are a list: a new one is a
// function returning a step_outcome plus a line in demo_steps().
#include <doca_version.h>

#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "command.hpp"
#include "common/clock.hpp"
#include "options.hpp"
#include "pair_runner.hpp"
#include "paths.hpp"

namespace softcomch::tools {

namespace {

constexpr double step_timeout_s = 15;
constexpr double step_ready_timeout_s = 10;
constexpr size_t failure_tail_lines = 30;

// The fast-path step: 64 KiB blocks every 100 us for 3 s (about 655 MB/s, 30000 blocks).
constexpr int stream_block_size = 65536;
constexpr int stream_interval_us = 100;
constexpr int stream_duration_ms = 3000;

struct captured_line {
    side who;
    stream_kind kind;
    std::string text;
};

struct demo_context {
    std::string samples_dir;
    bool verbose = false;
    long long ping_count = 5000;
};

struct step_outcome {
    bool ok = false;
    std::vector<std::string> notes;    // what went right, one sentence each
    std::vector<std::string> problems; // what went wrong (a failed step has at least one)
    std::vector<captured_line> output;
};

struct demo_step {
    std::string title;
    std::function<step_outcome(const demo_context &)> run;
};

std::string program(const demo_context &ctx, const char *name)
{
    return ctx.samples_dir + "/" + name;
}

// Runs one DPU/host pair and captures everything they print.
pair_result run_captured(const demo_context &ctx, std::vector<std::string> dpu,
                         std::vector<std::string> host, step_outcome &out)
{
    pair_config cfg;
    cfg.dpu_argv = std::move(dpu);
    cfg.host_argv = std::move(host);
    cfg.timeout_s = step_timeout_s;
    cfg.ready_timeout_s = step_ready_timeout_s;
    cfg.unset_env = {"SOFTCOMCH_TOPOLOGY"}; // the embedded default topology
    cfg.tag = "softcomch demo";
    cfg.report = false;
    cfg.on_line = [&](side who, stream_kind kind, std::string_view line) {
        out.output.push_back({who, kind, std::string(line)});
        if (ctx.verbose)
            std::printf("        [%s] %.*s\n", side_name(who).data(), int(line.size()),
                        line.data());
    };
    return run_pair(cfg);
}

// The text between "<marker>'" and the last "'" of the first matching line.
std::string quoted_after(const std::vector<captured_line> &lines, side who, std::string_view marker)
{
    for (const auto &l : lines) {
        if (l.who != who)
            continue;
        size_t at = l.text.find(marker);
        if (at == std::string::npos)
            continue;
        size_t begin = at + marker.size();
        size_t end = l.text.rfind('\'');
        if (end == std::string::npos || end < begin)
            continue;
        return l.text.substr(begin, end - begin);
    }
    return {};
}

// The key=value pairs of the first "RESULT ..." line of a side.
std::map<std::string, std::string> result_line(const std::vector<captured_line> &lines, side who)
{
    std::map<std::string, std::string> kv;
    for (const auto &l : lines) {
        if (l.who != who || l.kind != stream_kind::out || !l.text.starts_with("RESULT "))
            continue;
        std::istringstream in(l.text.substr(7));
        std::string token;
        while (in >> token) {
            size_t eq = token.find('=');
            if (eq != std::string::npos)
                kv[token.substr(0, eq)] = token.substr(eq + 1);
        }
        break;
    }
    return kv;
}

std::string ms_text(double seconds)
{
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f ms", seconds * 1000);
    return buf;
}

void note_run_failure(const pair_result &r, step_outcome &out)
{
    if (!r.detail.empty())
        out.problems.push_back(r.detail);
    out.problems.push_back(r.summary());
}

step_outcome step_ctrl_path(const demo_context &ctx)
{
    step_outcome out;
    const std::string to_dpu = "Hello from the host side";
    const std::string to_host = "Hello from the DPU side";
    pair_result r = run_captured(ctx, {program(ctx, "comch_ctrl_path_server"), "-t", to_host},
                                 {program(ctx, "comch_ctrl_path_client"), "-t", to_dpu}, out);
    if (r.ready_s >= 0)
        out.notes.push_back("DPU side listening as \"comch_ctrl_path_sample_server\" after " +
                            ms_text(r.ready_s) + "; host side started");
    if (!r.success()) {
        note_run_failure(r, out);
        return out;
    }
    std::string got_dpu = quoted_after(out.output, side::dpu, "Client says: '");
    std::string got_host = quoted_after(out.output, side::host, "Server replied: '");
    if (got_dpu != to_dpu || got_host != to_host) {
        out.problems.push_back(
            "both sides exited 0, but the messages they printed are not the ones sent");
        return out;
    }
    out.notes.push_back("host -> DPU: \"" + got_dpu + "\"");
    out.notes.push_back("DPU -> host: \"" + got_host + "\"");
    out.notes.push_back("both sides exited 0 (" + ms_text(r.elapsed_s) + ")");
    out.ok = true;
    return out;
}

step_outcome step_ping(const demo_context &ctx, long long count, int size, bool epoll)
{
    step_outcome out;
    std::vector<std::string> dpu{program(ctx, "comch_ping"), "--role", "server"};
    std::vector<std::string> host{
        program(ctx, "comch_ping"), "--role", "client", "-n", std::to_string(count), "-s",
        std::to_string(size)};
    if (epoll) {
        dpu.push_back("--epoll");
        host.push_back("--epoll");
    }
    pair_result r = run_captured(ctx, dpu, host, out);
    if (!r.success()) {
        note_run_failure(r, out);
        return out;
    }
    auto client = result_line(out.output, side::host);
    auto server = result_line(out.output, side::dpu);
    const std::string n = std::to_string(count);
    if (client["replies"] != n || client["errors"] != "0" || server["received"] != n ||
        server["errors"] != "0") {
        out.problems.push_back("both sides exited 0, but their RESULT lines do not show " + n +
                               " clean round trips");
        return out;
    }
    out.notes.push_back(
        n + " round trips of " + std::to_string(size) +
        "-byte messages; every sequence number and checksum verified on both sides");
    out.notes.push_back("round-trip time p50 " + client["p50_us"] + " us, p99 " + client["p99_us"] +
                        " us (" + client["rtt_per_s"] + " round trips/s)");
    if (epoll)
        out.notes.push_back("no spinning: the client slept in epoll_wait(), woken " +
                            client["wakeups"] + " times by the PE notification handle");
    out.ok = true;
    return out;
}

std::string value_or(const std::map<std::string, std::string> &kv, const std::string &key,
                     const std::string &fallback = "?")
{
    auto it = kv.find(key);
    return it == kv.end() ? fallback : it->second;
}

// "65536" -> "64 KiB", "1000" -> "1000 bytes"
std::string size_text(long long bytes)
{
    if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
        return std::to_string(bytes / (1024 * 1024)) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}

step_outcome step_stream(const demo_context &ctx)
{
    step_outcome out;
    if (access(program(ctx, "comch_stream").c_str(), X_OK) != 0) {
        // programs/CMakeLists.txt builds and installs it: a --samples-dir without it, or a
        // partial install.
        out.problems.push_back("comch_stream is not in " + ctx.samples_dir +
                               " (build and install programs/, or pass --samples-dir)");
        return out;
    }
    pair_result r = run_captured(ctx, {program(ctx, "comch_stream"), "--role", "server"},
                                 {program(ctx, "comch_stream"), "--role", "client", "--block-size",
                                  std::to_string(stream_block_size), "--interval-us",
                                  std::to_string(stream_interval_us), "--duration-ms",
                                  std::to_string(stream_duration_ms)},
                                 out);
    auto server = result_line(out.output, side::dpu);
    auto client = result_line(out.output, side::host);
    // What the receiver counted, for the failure report as well.
    const std::string counts =
        "sent " + value_or(client, "sent") + ", delivered " + value_or(server, "delivered") +
        ", lost " + value_or(server, "lost") + ", out of order " +
        value_or(server, "out_of_order") + ", corrupt " + value_or(server, "corrupt");
    if (!r.success()) {
        note_run_failure(r, out);
        if (!server.empty())
            out.problems.push_back("the DPU side counted: " + counts);
        return out;
    }
    const std::string sent = value_or(client, "sent", "");
    if (sent.empty() || sent == "0" || server["verdict"] != "ok" || client["verdict"] != "ok" ||
        server["sent"] != sent || server["delivered"] != sent || server["lost"] != "0" ||
        server["out_of_order"] != "0" || server["corrupt"] != "0") {
        out.problems.push_back(
            "both sides exited 0, but their RESULT lines do not show a complete, clean stream (" +
            counts + ")");
        return out;
    }
    out.notes.push_back(sent + " blocks of " + size_text(stream_block_size) +
                        " streamed host -> DPU, producer to consumer; all delivered intact and in "
                        "order (sequence numbers and checksums checked)");
    out.notes.push_back("throughput " + server["mb_per_s"] + " MB/s (" + server["blocks_per_s"] +
                        " blocks/s, one every " + std::to_string(stream_interval_us) +
                        " us asked for)");
    out.notes.push_back("delivery latency, send to receive completion: p50 " + server["p50_us"] +
                        " us, p99 " + server["p99_us"] + " us");
    if (value_or(client, "scheduled", sent) != sent)
        out.notes.push_back("the host side kept up with " + sent + " of the " +
                            client["scheduled"] + " blocks due in " +
                            std::to_string(stream_duration_ms / 1000) + " s (a busy machine)");
    if (value_or(client, "again", "0") != "0")
        out.notes.push_back(client["again"] +
                            " blocks found no buffer posted at first (DOCA_ERROR_AGAIN) and were "
                            "retried");
    out.ok = true;
    return out;
}

std::vector<demo_step> demo_steps(const demo_context &ctx)
{
    long long n = ctx.ping_count;
    long long n_epoll = n > 2000 ? 2000 : n;
    return {
        {"Control path: comch_ctrl_path_server (DPU side) <-> comch_ctrl_path_client (host side)",
         step_ctrl_path},
        {"Ping-pong, busy polling: comch_ping, " + std::to_string(n) + " messages of 64 bytes",
         [n](const demo_context &c) {
             return step_ping(c, n, 64, false);
         }},
        {"Ping-pong, event driven: comch_ping --epoll, " + std::to_string(n_epoll) +
             " messages of 1024 bytes",
         [n_epoll](const demo_context &c) {
             return step_ping(c, n_epoll, 1024, true);
         }},
        {"Fast path: comch_stream, " + size_text(stream_block_size) + " blocks every " +
             std::to_string(stream_interval_us) + " us for " +
             std::to_string(stream_duration_ms / 1000) + " s (host producer -> DPU consumer)",
         step_stream},
    };
}

constexpr std::array demo_options{
    option_spec{"verbose", 'v', "", "show everything the programs print"},
    option_spec{"count", 'n', "N", "ping-pong messages in the polling step (default 5000)"},
    option_spec{"keep-going", 0, "", "run the remaining steps after a failure"},
    option_spec{"samples-dir", 0, "DIR", "take the sample programs from DIR"},
};

constexpr command_usage demo_usage{
    "demo",
    "[options]",
    "Runs SoftComch's own samples on the embedded default topology (a BlueField whose DPU "
    "device 03:00.0 has the representor pf0hpf of host function b1:00.0), each pair in a "
    "private fabric: the control-path server and client exchange one message each way, then "
    "comch_ping measures round trips, first polling, then sleeping on the progress engine's "
    "notification handle; finally comch_stream streams 64 KiB blocks through the fast path "
    "(a producer on the host side, a consumer on the DPU side) for 3 s. Takes about 4 seconds.",
    demo_options,
    "Exit status: 0 if every step passed, 1 otherwise, 2 for a bad command line.\n"
    "The sample programs are looked for in $SOFTCOMCH_SAMPLES_DIR, then next to softcomch\n"
    "(../libexec/softcomch in an installed tree), then in the build tree.\n",
};

void print_failure_output(const step_outcome &out)
{
    if (out.output.empty())
        return;
    size_t first =
        out.output.size() > failure_tail_lines ? out.output.size() - failure_tail_lines : 0;
    std::fprintf(stderr, "      what the programs printed%s:\n", first ? " (last lines)" : "");
    for (size_t i = first; i < out.output.size(); ++i) {
        const auto &l = out.output[i];
        std::fprintf(stderr, "        [%s] %s\n", side_name(l.who).data(), l.text.c_str());
    }
}

} // namespace

int cmd_demo(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, demo_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(demo_usage, "unexpected argument '" + opts.positional().front() + "'");

    demo_context ctx;
    ctx.verbose = opts.has("verbose");
    if (auto v = opts.get("count")) {
        auto n = parse_integer(*v, 1, 10000000);
        if (!n)
            return usage_error(demo_usage,
                               "--count needs a whole number from 1 to 10000000, not '" + *v + "'");
        ctx.ping_count = *n;
    }
    if (auto dir = opts.get("samples-dir")) {
        ctx.samples_dir = *dir;
    } else {
        ctx.samples_dir = find_sample_dir("comch_ctrl_path_server");
        if (ctx.samples_dir.empty()) {
            std::fprintf(stderr, "softcomch demo: cannot find the sample programs; looked in:\n");
            for (const auto &d : samples_search_path())
                std::fprintf(stderr, "  %s\n", d.c_str());
            std::fprintf(stderr, "Build them (ninja softcomch_samples), install SoftComch, or set "
                                 "SOFTCOMCH_SAMPLES_DIR.\n");
            return exit_failure;
        }
    }

    std::printf(
        "SoftComch %s demo: DOCA Comch (DOCA API %s) emulated by ordinary processes, no BlueField "
        "needed.\n",
        SOFTCOMCH_VERSION_STRING, DOCA_VERSION_STRING);
    std::printf(
        "Topology: the embedded default (DPU device 03:00.0, representor pf0hpf -> host function "
        "b1:00.0).\n");
    std::printf("Programs: %s\n\n", ctx.samples_dir.c_str());
    std::fflush(stdout);

    const uint64_t t0 = now_ns();
    auto steps = demo_steps(ctx);
    size_t passed = 0;
    size_t ran = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
        std::printf("[%zu/%zu] %s\n", i + 1, steps.size(), steps[i].title.c_str());
        std::fflush(stdout);
        step_outcome out = steps[i].run(ctx);
        ++ran;
        for (const auto &note : out.notes)
            std::printf("      ok    %s\n", note.c_str());
        for (const auto &problem : out.problems)
            std::printf("      FAIL  %s\n", problem.c_str());
        if (!out.ok && out.problems.empty())
            std::printf("      FAIL\n");
        std::fflush(stdout);
        if (out.ok) {
            ++passed;
            continue;
        }
        print_failure_output(out);
        if (!opts.has("keep-going"))
            break;
    }

    double elapsed = double(now_ns() - t0) / 1e9;
    if (passed == steps.size()) {
        std::printf(
            "\nDemo passed: %zu of %zu steps in %.1f s. The two sides of each pair were separate "
            "processes\nthat found each other through the fabric, as a DPU and its host do over "
            "PCIe.\n",
            passed, steps.size(), elapsed);
        return exit_ok;
    }
    std::printf("\nDemo failed: %zu of %zu steps passed (%zu run) in %.1f s.\n", passed,
                steps.size(), ran, elapsed);
    return exit_failure;
}

} // namespace softcomch::tools
