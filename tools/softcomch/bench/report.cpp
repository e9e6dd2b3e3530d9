// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench: the run's records completed (baselines from other programs, the noise
// verdict), compared with the peers, and written as one JSON document or as tables; and the
// document read back (--from).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "bench.hpp"

namespace softcomch::tools::bench {

namespace {

constexpr std::string_view known_groups[] = {"probe",       "ctrl_rtt", "ctrl_rate", "fast_tput",
                                             "fast_stream", "scale",    "cpu"};

const char *opt_text(const std::optional<double> &v, std::string &buf)
{
    buf = v ? format_value(*v) : std::string("-");
    return buf.c_str();
}

json::value opt_json(const std::optional<double> &v)
{
    return v && std::isfinite(*v) ? json::value(*v) : json::value();
}

// Prints rows as columns separated by two spaces (the last column unpadded).
void print_table(std::FILE *out, const std::vector<std::vector<std::string>> &rows)
{
    std::vector<size_t> width;
    for (const auto &row : rows)
        for (size_t i = 0; i < row.size(); ++i) {
            if (width.size() <= i)
                width.push_back(0);
            width[i] = std::max(width[i], row[i].size());
        }
    for (const auto &row : rows) {
        std::string line = "  ";
        for (size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size())
                line += std::string(width[i] - row[i].size() + 2, ' ');
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        std::fprintf(out, "%s\n", line.c_str());
    }
}

} // namespace

bool is_baseline_subject(std::string_view subject)
{
    for (std::string_view b : {"spin", "eventfd", "memcpy", "process_vm_writev", "spin_ring"})
        if (subject == b)
            return true;
    return subject.starts_with("base_") || subject.starts_with("spin_");
}

bool is_peer(const record &r)
{
    return r.subject != "softcomch" && !is_baseline_subject(r.subject) && r.group != "probe";
}

std::string stat_of(std::string_view metric)
{
    const size_t us = metric.rfind('_');
    if (us == std::string_view::npos)
        return {};
    const std::string_view last = metric.substr(us + 1);
    if (last.size() >= 2 && last[0] == 'p' &&
        std::all_of(last.begin() + 1, last.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::string(last);
    for (std::string_view s : {"mean", "avg", "min", "max", "jitter", "stddev"})
        if (last == s)
            return std::string(last);
    return {};
}

std::string size_name(uint64_t bytes)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        return std::to_string(bytes >> 20) + "MiB";
    if (bytes >= 1024 && bytes % 1024 == 0)
        return std::to_string(bytes >> 10) + "KiB";
    return std::to_string(bytes) + "B";
}

std::string format_value(double v)
{
    char buf[64];
    if (std::fabs(v) >= 1000)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

const record *find_metric(const run &r, std::string_view metric)
{
    for (const auto &rec : r.records)
        if (rec.metric == metric)
            return &rec;
    return nullptr;
}

void complete(run &r, const std::vector<std::string> &expected)
{
    for (auto &rec : r.records) {
        if (!rec.available() || rec.baseline.empty())
            continue;
        if (!rec.baseline_value) {
            const record *b = find_metric(r, rec.baseline);
            if (b && b->available() && b->value > 0)
                rec.baseline_value = b->value;
        }
        if (rec.baseline_value && *rec.baseline_value > 0 && !rec.ratio)
            rec.ratio = rec.value / *rec.baseline_value;
    }
    // The probe's verdict: a context line with a boolean "noisy" or a "verdict" (the probe's own
    // first).
    r.noise = {};
    for (int pass = 0; pass < 2 && !r.noise.noisy; ++pass)
        for (const auto &c : r.contexts) {
            const json::value *prog = c.find("program");
            const bool from_probe = prog && prog->is_string() && prog->as_string() == probe_program;
            if (pass == 0 && !from_probe)
                continue;
            // {"noisy":true|false}, or {"verdict":"noisy"|"quiet"}.
            const json::value *n = c.find("noisy");
            const json::value *v = c.find("verdict");
            if (n && n->is_bool())
                r.noise.noisy = n->as_bool();
            else if (v && v->is_string() &&
                     (v->as_string() == "noisy" || v->as_string() == "quiet"))
                r.noise.noisy = v->as_string() == "noisy";
            else
                continue;
            for (const char *key : {"reason", "why", "detail"})
                if (const json::value *w = c.find(key); w && w->is_string()) {
                    r.noise.reason = w->as_string();
                    break;
                }
            break;
        }
    // A failed program's metrics: those of the list nobody reported.
    std::string failures;
    for (const auto &p : r.programs)
        if (p.status != "ok" && p.status != "skipped")
            failures += (failures.empty() ? "" : "; ") + p.name + " " + p.reason;
    if (failures.empty())
        return;
    for (const auto &m : expected)
        if (!find_metric(r, m)) {
            record rec;
            rec.metric = m;
            rec.unavailable = "not reported: " + failures;
            r.records.push_back(std::move(rec));
        }
}

namespace {
// Whether a figure was taken with the processes sleeping between messages (epoll, an event
// loop, blocking calls) rather than spinning: a peer is compared with figures of its own kind
// only (an epoll round trip against a polled one says nothing).
bool sleeps(const record &r)
{
    for (const std::string *s : {&r.mode, &r.metric})
        for (const char *word : {"epoll", "event", "blocking"})
            if (s->find(word) != std::string::npos)
                return true;
    return false;
}

// Whether a throughput figure cycles through a working set larger than the cache. The peers
// reuse a fixed pool of buffers (iceoryx's chunks, the sockets' one buffer): cache-resident
// figures, compared with softcomch's resident ones only.
bool rotates(const record &r)
{
    return r.mode.find("rotating") != std::string::npos ||
           r.metric.find("rotating") != std::string::npos;
}

// The producer/consumer pairs of a throughput figure, named "<N>pair" in its mode or metric
// ("resident/4pair/polled"); 1 when neither names any (the peers' usual single stream). A
// figure of 4 streams is compared with a peer's 4 streams only: the sum of four says nothing
// against one.
unsigned pairs_of(const record &r)
{
    for (const std::string *s : {&r.mode, &r.metric})
        for (size_t at = s->find("pair"); at != std::string::npos; at = s->find("pair", at + 1)) {
            size_t b = at;
            while (b > 0 && std::isdigit(static_cast<unsigned char>((*s)[b - 1])))
                --b;
            if (b < at)
                return unsigned(std::strtoul(s->c_str() + b, nullptr, 10));
        }
    return 1;
}
} // namespace

const record *best_peer(const run &r, const record &rec)
{
    // The transport's own benchmarks (ring_bench, fastpath_bench) measure parts, not what a
    // program gets: they are judged against their baselines only.
    if (rec.subject != "softcomch" || !rec.available() || rec.metric.starts_with("transport_"))
        return nullptr;
    const std::string stat = stat_of(rec.metric);
    std::vector<const record *> candidates;
    for (const auto &o : r.records)
        if (o.available() && is_peer(o) && o.group == rec.group && o.size == rec.size &&
            stat_of(o.metric) == stat && o.unit == rec.unit && sleeps(o) == sleeps(rec) &&
            rotates(o) == rotates(rec) && pairs_of(o) == pairs_of(rec))
            candidates.push_back(&o);
    if (std::any_of(candidates.begin(), candidates.end(),
                    [&](const record *o) { return o->mode == rec.mode; }))
        std::erase_if(candidates, [&](const record *o) { return o->mode != rec.mode; });
    const record *best = nullptr;
    for (const record *o : candidates)
        if (!best || (rec.better == "higher" ? o->value > best->value : o->value < best->value))
            best = o;
    return best;
}

double peer_ratio(const record &rec, const record &peer)
{
    return peer.value != 0 ? rec.value / peer.value : 0;
}

bool ahead_of(const record &rec, const record &peer)
{
    return rec.better == "higher" ? rec.value > peer.value : rec.value < peer.value;
}

std::vector<std::string> groups_of(const run &r)
{
    std::set<std::string> present;
    for (const auto &rec : r.records)
        if (rec.available())
            present.insert(rec.group);
    std::vector<std::string> out;
    for (std::string_view g : known_groups)
        if (present.erase(std::string(g)))
            out.emplace_back(g);
    out.insert(out.end(), present.begin(), present.end());
    return out;
}

std::string noise_line(const run &r)
{
    if (!r.noise.noisy || !*r.noise.noisy)
        return {};
    return "WARNING: the noise probe says this machine is NOISY" +
           (r.noise.reason.empty() ? std::string() : " (" + r.noise.reason + ")") +
           ": the figures of this run are not reliable";
}

json::value to_json(const run &r)
{
    json::value programs = json::value::array();
    for (const auto &p : r.programs) {
        json::value args = json::value::array();
        for (const auto &a : p.args)
            args.push_back(a);
        programs.push_back(json::value::object()
                               .set("name", p.name)
                               .set("path", p.path)
                               .set("args", std::move(args))
                               .set("status", p.status)
                               .set("reason", p.reason)
                               .set("seconds", p.seconds)
                               .set("records", p.records)
                               .set("bad_lines", p.bad_lines)
                               .set("duplicates", p.duplicates));
    }
    json::value contexts = json::value::array();
    for (const auto &c : r.contexts)
        contexts.push_back(c);
    json::value records = json::value::array();
    for (const auto &rec : r.records) {
        json::value v = json::value::object();
        v.set("metric", rec.metric)
            .set("value", rec.available() ? json::value(rec.value) : json::value())
            .set("unit", rec.unit)
            .set("baseline", rec.baseline.empty() ? json::value() : json::value(rec.baseline))
            .set("baseline_value", opt_json(rec.baseline_value))
            .set("ratio", opt_json(rec.ratio))
            .set("subject", rec.subject)
            .set("group", rec.group)
            .set("size", uint64_t(rec.size))
            .set("mode", rec.mode)
            .set("better", rec.better)
            .set("program", rec.program);
        if (!rec.available())
            v.set("unavailable", rec.unavailable);
        if (const record *peer = best_peer(r, rec))
            v.set("best_peer", json::value::object()
                                   .set("metric", peer->metric)
                                   .set("subject", peer->subject)
                                   .set("value", peer->value)
                                   .set("ratio", peer_ratio(rec, *peer))
                                   .set("ahead", ahead_of(rec, *peer)));
        records.push_back(std::move(v));
    }
    json::value noise = json::value::object();
    noise.set("noisy", r.noise.noisy ? json::value(*r.noise.noisy) : json::value())
        .set("reason", r.noise.reason);
    return json::value::object()
        .set("schema", "softcomch-bench")
        .set("schema_version", 1)
        .set("machine", r.machine)
        .set("command", r.command)
        .set("started", r.started)
        .set("mode", r.mode)
        .set("programs_dir", r.programs_dir)
        .set("noise", std::move(noise))
        .set("programs", std::move(programs))
        .set("contexts", std::move(contexts))
        .set("records", std::move(records));
}

bool from_json(const json::value &doc, run &out, std::string *error)
{
    auto fail = [&](const std::string &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!doc.is_object())
        return fail("not a JSON object");
    const json::value *recs = doc.find("records");
    if (!recs || !recs->is_array())
        return fail("no \"records\" array: not a document of softcomch bench --json");
    run r;
    auto str = [](const json::value &o, const char *key) {
        const json::value *f = o.find(key);
        return f && f->is_string() ? f->as_string() : std::string();
    };
    auto num = [](const json::value &o, const char *key) -> std::optional<double> {
        const json::value *f = o.find(key);
        if (f && f->is_number())
            return f->as_double();
        return std::nullopt;
    };
    if (const json::value *m = doc.find("machine"); m && m->is_object())
        r.machine = *m;
    r.command = str(doc, "command");
    r.started = str(doc, "started");
    r.mode = str(doc, "mode");
    r.programs_dir = str(doc, "programs_dir");
    if (const json::value *ps = doc.find("programs"); ps && ps->is_array())
        for (const auto &p : ps->elements()) {
            if (!p.is_object())
                return fail("a program entry is not an object");
            program_run pr;
            pr.name = str(p, "name");
            pr.path = str(p, "path");
            if (const json::value *a = p.find("args"); a && a->is_array())
                for (const auto &x : a->elements())
                    if (x.is_string())
                        pr.args.push_back(x.as_string());
            pr.status = str(p, "status");
            pr.reason = str(p, "reason");
            pr.seconds = num(p, "seconds").value_or(0);
            pr.records = int(num(p, "records").value_or(0));
            pr.bad_lines = int(num(p, "bad_lines").value_or(0));
            pr.duplicates = int(num(p, "duplicates").value_or(0));
            r.programs.push_back(std::move(pr));
        }
    if (const json::value *cs = doc.find("contexts"); cs && cs->is_array())
        for (const auto &c : cs->elements())
            r.contexts.push_back(c);
    size_t i = 0;
    for (const auto &v : recs->elements()) {
        ++i;
        if (!v.is_object() || str(v, "metric").empty())
            return fail("record " + std::to_string(i) + " has no metric");
        record rec;
        rec.metric = str(v, "metric");
        rec.program = str(v, "program");
        rec.unavailable = str(v, "unavailable");
        const auto value = num(v, "value");
        if (rec.unavailable.empty() && !value)
            return fail("record " + rec.metric + " has neither a value nor \"unavailable\"");
        rec.value = value.value_or(0);
        rec.unit = str(v, "unit");
        rec.better = str(v, "better");
        rec.subject = str(v, "subject");
        rec.group = str(v, "group");
        rec.size = uint64_t(num(v, "size").value_or(0));
        rec.mode = str(v, "mode");
        rec.baseline = str(v, "baseline");
        rec.baseline_value = num(v, "baseline_value");
        rec.ratio = num(v, "ratio");
        r.records.push_back(std::move(rec));
    }
    complete(r, {});
    out = std::move(r);
    return true;
}

void print_text(std::FILE *out, const run &r)
{
    const std::string noisy = noise_line(r);
    std::string cpu, kernel;
    if (const json::value *c = r.machine.find("cpu"); c && c->is_string())
        cpu = c->as_string();
    if (const json::value *k = r.machine.find("kernel"); k && k->is_string())
        kernel = k->as_string();
    long cores = 0;
    if (const json::value *c = r.machine.find("cores"); c && c->is_number())
        cores = long(c->as_double());
    std::fprintf(out, "softcomch bench (%s) started %s: %s, %ld cores, %s\n", r.mode.c_str(),
                 r.started.c_str(), cpu.c_str(), cores, kernel.c_str());
    if (!noisy.empty())
        std::fprintf(out, "\n!!! %s !!!\n", noisy.c_str());
    else if (r.noise.noisy)
        std::fprintf(out, "noise probe: quiet%s%s\n", r.noise.reason.empty() ? "" : " - ",
                     r.noise.reason.c_str());
    else
        std::fprintf(out, "noise probe: no verdict (the probe printed none)\n");
    std::fprintf(out, "\nPrograms (%s):\n", r.programs_dir.c_str());
    for (const auto &p : r.programs)
        std::fprintf(out, "  %-16s %-8s %5.1f s  %3d records%s%s\n", p.name.c_str(),
                     p.status == "ok" ? "ok" : p.status.c_str(), p.seconds, p.records,
                     p.reason.empty() ? "" : "  ", p.reason.c_str());
    std::string b1;
    for (const auto &g : groups_of(r)) {
        std::fprintf(out, "\n%s\n", g.empty() ? "(no group)" : g.c_str());
        std::vector<std::vector<std::string>> rows{
            {"metric", "subject", "value", "unit", "ratio", "baseline", "best peer", "vs peer"}};
        for (const auto &rec : r.records) {
            if (rec.group != g || !rec.available())
                continue;
            std::vector<std::string> row{rec.metric, rec.subject, format_value(rec.value),
                                         rec.unit};
            row.push_back(rec.ratio ? format_value(*rec.ratio) + "x" : "-");
            std::string base = rec.baseline.empty() ? "-" : rec.baseline;
            if (rec.baseline_value)
                base += " (" + std::string(opt_text(rec.baseline_value, b1)) + ")";
            row.push_back(base);
            if (const record *peer = best_peer(r, rec)) {
                row.push_back(peer->subject + " " + format_value(peer->value) + " " + peer->unit);
                row.push_back(format_value(peer_ratio(rec, *peer)) + "x " +
                              (ahead_of(rec, *peer) ? "ahead" : "BEHIND"));
            } else {
                row.push_back(rec.subject == "softcomch" ? "-" : "");
                row.push_back("");
            }
            rows.push_back(std::move(row));
        }
        print_table(out, rows);
    }
    bool header = false;
    for (const auto &rec : r.records) {
        if (rec.available())
            continue;
        if (!header)
            std::fprintf(out, "\nUnavailable:\n");
        header = true;
        std::fprintf(out, "  %s: %s\n", rec.metric.c_str(), rec.unavailable.c_str());
    }
    if (!noisy.empty())
        std::fprintf(out, "\n!!! %s !!!\n", noisy.c_str());
}

} // namespace softcomch::tools::bench
