// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench: the targets of issue 11, each judged on the records of one run. A target finds
// its records by what they are (subject, group, size, statistic, words of the mode or the metric
// name), not by exact metric names, and compares with the record's own baseline when that is the
// reference the target names.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>

#include "bench.hpp"

namespace softcomch::tools::bench {

namespace {

bool has_word(const record &r, std::string_view word)
{
    return word.empty() || r.mode.find(word) != std::string::npos ||
           r.metric.find(word) != std::string::npos;
}

// The connection count a record is about: a token "512", "512conn", "512idle", "n512", ... of
// its metric name or mode.
std::optional<long> count_of(const record &r)
{
    std::vector<std::string> tokens;
    for (const std::string *s : {&r.metric, &r.mode}) {
        std::string cur;
        for (char c : *s + "_") {
            if (std::isalnum(static_cast<unsigned char>(c))) {
                cur += c;
            } else if (!cur.empty()) {
                tokens.push_back(cur);
                cur.clear();
            }
        }
    }
    for (std::string t : tokens) {
        if (t.size() > 1 && t[0] == 'n' && std::isdigit(static_cast<unsigned char>(t[1])))
            t.erase(0, 1);
        size_t digits = 0;
        while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits])))
            ++digits;
        if (digits == 0 || digits > 6)
            continue;
        const std::string rest = t.substr(digits);
        for (std::string_view suffix :
             {"", "c", "conn", "conns", "connection", "connections", "idle", "client", "clients"})
            if (rest == suffix)
                return std::stol(t.substr(0, digits));
    }
    return std::nullopt;
}

struct sel {
    std::string_view subject = "softcomch";
    std::string_view group;
    uint64_t size = 0; // 0: any
    std::string_view stat;
    std::string_view word;     // in the mode or the metric name
    std::string_view not_word; // in neither
};

std::vector<const record *> pick_all(const run &r, const sel &s)
{
    std::vector<const record *> out;
    for (const auto &rec : r.records)
        if (rec.available() && rec.subject == s.subject &&
            (s.group.empty() || rec.group == s.group) && (s.size == 0 || rec.size == s.size) &&
            (s.stat.empty() || stat_of(rec.metric) == s.stat) && has_word(rec, s.word) &&
            (s.not_word.empty() || !has_word(rec, s.not_word)))
            out.push_back(&rec);
    return out;
}

const record *pick(const run &r, const sel &s)
{
    const auto all = pick_all(r, s);
    return all.empty() ? nullptr : all.front();
}

// The reference of `rec`: its own baseline when that is of `ref_subject`, else `fallback`.
const record *reference(const run &r, const record &rec, std::string_view ref_subject,
                        const sel &fallback)
{
    if (!rec.baseline.empty())
        if (const record *b = find_metric(r, rec.baseline);
            b && b->available() && b->subject == ref_subject)
            return b;
    return pick(r, fallback);
}

// The value of `rec`'s reference `b`: the one the record carries when `b` is its named
// baseline, else b's own. A program that measures its own baseline next to a record (comch_rtt
// runs a spin or an eventfd ping-pong before and after each size) stores that value in the
// record: it is of the same seconds, and it is what the record's row shows. The record of that
// name from another program (spin_baseline) may come from minutes in which the vCPUs sat
// elsewhere.
double reference_value(const record &rec, const record &b)
{
    if (b.metric == rec.baseline && rec.baseline_value && *rec.baseline_value > 0)
        return *rec.baseline_value;
    return b.value;
}

std::string figure(const record &r, double value)
{
    return r.metric + " " + format_value(value) + " " + r.unit;
}

std::string figure(const record &r)
{
    return figure(r, r.value);
}

target_result unavailable(std::string target, std::string what)
{
    return {std::move(target), "missing: " + what, "unavailable", 0};
}

// value / reference <= limit (or >= limit when `at_least`).
target_result ratio_target(const run &r, std::string target, const sel &subject,
                           std::string_view ref_subject, const sel &ref, double limit,
                           bool at_least)
{
    const record *rec = pick(r, subject);
    if (!rec)
        return unavailable(std::move(target), "the softcomch record");
    const record *b = reference(r, *rec, ref_subject, ref);
    const double base = b ? reference_value(*rec, *b) : 0;
    if (base <= 0)
        return unavailable(std::move(target), "the " + std::string(ref_subject) + " record");
    const double ratio = rec->value / base;
    const bool met = at_least ? ratio >= limit : ratio <= limit;
    return {std::move(target),
            format_value(ratio) + "x (" + figure(*rec) + " / " + figure(*b, base) + ")",
            met ? "met" : "not met", ratio};
}

// The worst ratio of records to their memcpy baselines, and the target's row for it.
struct worst_against_memcpy {
    const record *worst = nullptr;
    const record *ref = nullptr;
    double base = 0;
    double ratio = 0;

    // `rec` against its baseline `b` (none, or no value: not counted).
    void consider(const record &rec, const record *b)
    {
        const double v = b ? reference_value(rec, *b) : 0;
        if (v <= 0)
            return;
        if (!worst || rec.value / v < ratio) {
            worst = &rec;
            ref = b;
            base = v;
            ratio = rec.value / v;
        }
    }
    target_result result(std::string target, const char *needs, double limit) const
    {
        if (!worst)
            return unavailable(std::move(target), needs);
        return {std::move(target),
                "worst " + format_value(ratio) + "x (" + figure(*worst) + " / " +
                    figure(*ref, base) + ")",
                ratio >= limit ? "met" : "not met", ratio};
    }
};

// The fast path against memcpy: the worst polled record of the sizes in [lo, hi].
target_result memcpy_target(const run &r, std::string target, uint64_t lo, uint64_t hi,
                            double limit)
{
    std::vector<const record *> recs;
    for (const record *rec : pick_all(r, {"softcomch", "fast_tput", 0, "", "", "event"}))
        if (rec->size >= lo && rec->size <= hi && !has_word(*rec, "epoll"))
            recs.push_back(rec);
    // One pair per producer/consumer when the run has that distinction.
    if (std::any_of(recs.begin(), recs.end(),
                    [](const record *x) { return has_word(*x, "1pair"); }))
        std::erase_if(recs, [](const record *x) { return !has_word(*x, "1pair"); });
    worst_against_memcpy w;
    for (const record *rec : recs) {
        const std::string_view regime = has_word(*rec, "resident") ? "resident"
                                        : has_word(*rec, "rotat")  ? "rotat"
                                                                   : "";
        const record *b = reference(r, *rec, "memcpy", {"memcpy", "", rec->size, "", regime, ""});
        if (!b)
            b = pick(r, {"memcpy", "", rec->size, "", "", ""});
        w.consider(*rec, b);
    }
    return w.result(std::move(target), "fast_tput records with a memcpy baseline", limit);
}

// DMA against memcpy: the worst dma_tput record between processes (read and write) of the sizes
// in [lo, hi], against its own memcpy baseline.
target_result dma_target(const run &r, std::string target, uint64_t lo, uint64_t hi, double limit)
{
    worst_against_memcpy w;
    for (const record *rec : pick_all(r, {"softcomch", "dma_tput", 0, "", "", "local"}))
        if (rec->size >= lo && rec->size <= hi)
            w.consider(*rec,
                       reference(r, *rec, "memcpy", {"memcpy", "dma_tput", rec->size, "", "", ""}));
    return w.result(std::move(target), "dma_tput records with a memcpy baseline", limit);
}

target_result rate_target(const run &r)
{
    std::string target = "one-way 64 B rate >= 20 Mmsg/s";
    auto recs = pick_all(r, {"softcomch", "ctrl_rate", 64, "", "", ""});
    std::erase_if(recs, [](const record *x) { return x->unit != "Mmsg/s"; });
    const auto one = std::find_if(recs.begin(), recs.end(), [](const record *x) {
        const auto n = count_of(*x);
        return n && *n == 1;
    });
    const record *rec = one != recs.end() ? *one : recs.empty() ? nullptr : recs.front();
    if (!rec)
        return unavailable(std::move(target), "a softcomch ctrl_rate 64 B record in Mmsg/s");
    return {std::move(target), format_value(rec->value) + " Mmsg/s (" + rec->metric + ")",
            rec->value >= 20 ? "met" : "not met", rec->value / 20};
}

target_result event_target(const run &r)
{
    std::string target = "event-driven fast path at 1 MiB within 2x of polled (>= 0.5x)";
    const auto events = pick_all(r, {"softcomch", "fast_tput", 1u << 20, "", "event", ""});
    if (events.empty())
        return unavailable(std::move(target), "an event-mode fast_tput 1 MiB record");
    const record *ev = events.front();
    const std::string_view regime = has_word(*ev, "resident") ? "resident"
                                    : has_word(*ev, "rotat")  ? "rotat"
                                                              : "";
    const record *polled = pick(r, {"softcomch", "fast_tput", 1u << 20, "", regime, "event"});
    if (!polled)
        polled = pick(r, {"softcomch", "fast_tput", 1u << 20, "", "", "event"});
    if (!polled || polled->value <= 0)
        return unavailable(std::move(target), "a polled fast_tput 1 MiB record");
    const double ratio = ev->value / polled->value;
    return {std::move(target),
            format_value(ratio) + "x (" + figure(*ev) + " / " + figure(*polled) + ")",
            ratio >= 0.5 ? "met" : "not met", ratio};
}

target_result progress_target(const run &r)
{
    std::string target = "progress cost with 512 idle connections <= 2x that with 1";
    const auto recs = pick_all(r, {"softcomch", "scale", 0, "", "progress", ""});
    const record *many = nullptr;
    const record *one = nullptr;
    for (const record *rec : recs) {
        const auto n = count_of(*rec);
        if (n && *n == 512 && !many)
            many = rec;
        if (n && *n == 1 && !one)
            one = rec;
    }
    if (!many)
        return unavailable(std::move(target), "a scale progress record of 512 connections");
    if (!many->baseline.empty())
        if (const record *b = find_metric(r, many->baseline); b && b->available())
            one = b;
    const double base = one ? reference_value(*many, *one) : 0;
    if (base <= 0)
        return unavailable(std::move(target), "a scale progress record of 1 connection");
    const double ratio = many->value / base;
    return {std::move(target),
            format_value(ratio) + "x (" + figure(*many) + " / " + figure(*one, base) + ")",
            ratio <= 2 ? "met" : "not met", ratio};
}

target_result peers_target(const run &r)
{
    std::string target = "ahead of every peer on every metric where a peer exists";
    size_t compared = 0;
    std::vector<std::string> behind;
    for (const auto &rec : r.records) {
        const record *peer = best_peer(r, rec);
        if (!peer)
            continue;
        ++compared;
        if (!ahead_of(rec, *peer))
            behind.push_back(rec.metric + " (" + format_value(peer_ratio(rec, *peer)) + "x " +
                             peer->subject + ")");
    }
    if (compared == 0)
        return unavailable(std::move(target), "peer records comparable to a softcomch record");
    std::string measured =
        std::to_string(compared - behind.size()) + " of " + std::to_string(compared) + " ahead";
    for (size_t i = 0; i < behind.size(); ++i)
        measured += (i == 0 ? "; behind: " : ", ") + behind[i];
    return {std::move(target), measured, behind.empty() ? "met" : "not met",
            double(compared - behind.size()) / double(compared)};
}

} // namespace

std::vector<target_result> evaluate_targets(const run &r)
{
    std::vector<target_result> out;
    out.push_back(ratio_target(r, "polled 64 B RTT p50 <= 2.5x spin",
                               {"softcomch", "ctrl_rtt", 64, "p50", "poll", "epoll"}, "spin",
                               {"spin", "", 64, "p50", "rtt", ""}, 2.5, false));
    out.push_back(ratio_target(r, "polled 64 B RTT p99 <= 3x spin",
                               {"softcomch", "ctrl_rtt", 64, "p99", "poll", "epoll"}, "spin",
                               {"spin", "", 64, "p99", "rtt", ""}, 3, false));
    out.push_back(ratio_target(r, "polled 4080 B RTT p50 <= 1.5x spin",
                               {"softcomch", "ctrl_rtt", 4080, "p50", "poll", "epoll"}, "spin",
                               {"spin", "", 4080, "p50", "rtt", ""}, 1.5, false));
    out.push_back(ratio_target(r, "epoll 64 B RTT p50 <= 1.1x eventfd",
                               {"softcomch", "ctrl_rtt", 64, "p50", "epoll", ""}, "eventfd",
                               {"eventfd", "", 64, "p50", "", ""}, 1.1, false));
    out.push_back(rate_target(r));
    out.push_back(memcpy_target(r, "fast path >= 0.8x memcpy, 64 KiB to 4 MiB, both regimes",
                                64u << 10, 4u << 20, 0.8));
    out.push_back(memcpy_target(r, "fast path >= 0.4x memcpy at 4 KiB", 4096, 4096, 0.4));
    out.push_back(event_target(r));
    out.push_back(dma_target(r, "DMA between processes >= 0.8x memcpy, 1 MiB to 64 MiB", 1u << 20,
                             64u << 20, 0.8));
    out.push_back(progress_target(r));
    out.push_back(peers_target(r));
    return out;
}

} // namespace softcomch::tools::bench
