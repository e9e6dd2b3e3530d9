// SPDX-License-Identifier: Apache-2.0
#include "trace_finish.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace softcomch::tools {

namespace {

bool read_file(const std::string &path, std::string &text, std::string &error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    return true;
}

bool write_file(const std::string &path, const std::string &text, std::string &error)
{
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            error = "cannot write " + tmp + ": " + std::strerror(errno);
            std::remove(tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

} // namespace

trace_outcome finish_trace(const std::string &file, const std::string &out, bool check_only)
{
    trace_outcome t;
    std::string text;
    if (!read_file(file, text, t.error))
        return t;
    std::vector<softcomch::json::value> events;
    t.report = softcomch::trace_file::read(text, check_only ? nullptr : &events);
    if (check_only)
        return t;
    const std::string &dest = out.empty() ? file : out;
    if (write_file(dest, softcomch::trace_file::strict(events), t.error))
        t.output = dest;
    return t;
}

void print_trace_report(FILE *out, FILE *err, const std::string &prefix, const std::string &file,
                        const trace_outcome &t)
{
    if (!t.report.problems.empty() || !t.error.empty()) {
        size_t shown = 0;
        for (const auto &p : t.report.problems) {
            if (++shown > 20) {
                std::fprintf(err, "%s%s: ... and %zu more\n", prefix.c_str(), file.c_str(),
                             t.report.problems.size() - 20);
                break;
            }
            if (p.line)
                std::fprintf(err, "%s%s:%zu: %s\n", prefix.c_str(), file.c_str(), p.line,
                             p.what.c_str());
            else
                std::fprintf(err, "%s%s: %s\n", prefix.c_str(), file.c_str(), p.what.c_str());
        }
        if (!t.error.empty())
            std::fprintf(err, "%s%s\n", prefix.c_str(), t.error.c_str());
    }
    if (!t.error.empty() && t.output.empty() && t.report.events + t.report.metadata == 0)
        return;
    const auto &r = t.report;
    std::fprintf(out, "%s%s: %zu events (and %zu metadata) from %zu process%s over %.3f ms%s\n",
                 prefix.c_str(), file.c_str(), r.events, r.metadata, r.processes.size(),
                 r.processes.size() == 1 ? "" : "es", (r.last_ts - r.first_ts) / 1000.0,
                 r.ok() ? "" : ", with invalid lines");
    for (const auto &p : r.processes)
        std::fprintf(out, "%s  pid %-8lld %s (%zu events)\n", prefix.c_str(), (long long)p.pid,
                     p.name.empty() ? "(unnamed)" : p.name.c_str(), p.events);
    if (!t.output.empty())
        std::fprintf(out,
                     "%swrote %s (strict JSON: open it in https://ui.perfetto.dev or "
                     "chrome://tracing)\n",
                     prefix.c_str(), t.output.c_str());
}

} // namespace softcomch::tools
