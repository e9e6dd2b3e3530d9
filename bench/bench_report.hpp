// SPDX-License-Identifier: Apache-2.0
//
// The one output format of every benchmark program (bench/*, bench/peers/*) that `softcomch
// bench` runs: one JSON object per line on stdout, a "record". Empty lines and lines starting
// with '#' (the programs' human-readable comments) are ignored by the reader; any other line
// that is not a record or a context counts as a bad line. The fields:
//
//   metric          stable name (bench/metrics.list), e.g. "ctrl_rtt_polled_64B_p50"
//   value           the figure (a number)
//   unit            "us", "ns", "Mmsg/s", "GB/s", "ms", "KiB", "count"
//   better          "lower" or "higher": which way is good
//   subject         who was measured: "softcomch", a baseline ("spin", "eventfd", "memcpy",
//                   "process_vm_writev", "spin_ring") or a peer ("ucx", "zmq", "iceoryx", "uds",
//                   "pipe", "tcp")
//   group           what it belongs to, for tables and plots: "ctrl_rtt", "ctrl_rate",
//                   "fast_tput", "fast_stream", "scale", "cpu", "probe"
//   size            payload bytes (0 when not a size sweep)
//   mode            free short text: "polled", "epoll", "resident/1pair", ...
//   baseline        the metric this one is judged against (may be empty), a record of the same run
//   baseline_value  that metric's value, when the program measured it itself (else the reader
//   ratio           fills both in from the run's records); ratio = value / baseline_value
//
// A measurement that could not be made says so instead of inventing a value:
//   {"metric":"peer_ucx_rtt_64B_p50","unavailable":"libucx was not found at build time"}
//
// Context lines describe the run: {"context":"machine","cpus":2,...}.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace softcomch::bench {

struct record {
    std::string metric;
    double value = 0;
    const char *unit = "";
    const char *better = "lower";
    const char *subject = "softcomch";
    const char *group = "";
    uint64_t size = 0;
    std::string mode;
    std::string baseline;      // empty: none
    double baseline_value = 0; // 0: not measured by this program
};

// Writes `s` as a JSON string (quotes and escapes).
inline void json_string(std::FILE *out, const std::string &s)
{
    std::fputc('"', out);
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            std::fprintf(out, "\\%c", c);
        else if (c < 0x20)
            std::fprintf(out, "\\u%04x", c);
        else
            std::fputc(c, out);
    }
    std::fputc('"', out);
}

// One record as one line; flushed, so a reader sees it even if the program dies later.
inline void emit(const record &r, std::FILE *out = stdout)
{
    std::fputs("{\"metric\":", out);
    json_string(out, r.metric);
    std::fprintf(out, ",\"value\":%.6g", std::isfinite(r.value) ? r.value : 0.0);
    std::fprintf(out, ",\"unit\":\"%s\",\"better\":\"%s\",\"subject\":\"%s\",\"group\":\"%s\"",
                 r.unit, r.better, r.subject, r.group);
    std::fprintf(out, ",\"size\":%llu,\"mode\":", (unsigned long long)r.size);
    json_string(out, r.mode);
    if (!r.baseline.empty()) {
        std::fputs(",\"baseline\":", out);
        json_string(out, r.baseline);
        if (r.baseline_value > 0)
            std::fprintf(out, ",\"baseline_value\":%.6g,\"ratio\":%.4g", r.baseline_value,
                         r.value / r.baseline_value);
    }
    std::fputs("}\n", out);
    std::fflush(out);
}

// A metric this run could not measure, with why.
inline void emit_unavailable(const std::string &metric, const std::string &why,
                             std::FILE *out = stdout)
{
    std::fputs("{\"metric\":", out);
    json_string(out, metric);
    std::fputs(",\"unavailable\":", out);
    json_string(out, why);
    std::fputs("}\n", out);
    std::fflush(out);
}

// Size names used in metric names: 64B, 1KiB, 4080B, 4KiB, 64KiB, 1MiB, 4MiB.
inline std::string size_name(uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        return std::to_string(bytes >> 20) + "MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes >> 10) + "KiB";
    return std::to_string(bytes) + "B";
}

} // namespace softcomch::bench
