// SPDX-License-Identifier: Apache-2.0
//
// softcomch top: snapshots of a fabric, the sort orders, per-second rates, the JSON document.
#include <algorithm>
#include <array>
#include <ctime>
#include <map>
#include <tuple>

#include "top.hpp"

namespace softcomch::tools::top {

namespace {

uint64_t clock_ns(clockid_t id) noexcept
{
    timespec ts;
    clock_gettime(id, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

constexpr std::array sort_table{
    sort_info{sort_key::pid, "pid", "process id, then context and connection (the default)"},
    sort_info{sort_key::name, "name", "server name"},
    sort_info{sort_key::msgs_out, "msgs-out", "messages sent, most first"},
    sort_info{sort_key::msgs_in, "msgs-in", "messages received, most first"},
    sort_info{sort_key::bytes_out, "bytes-out", "bytes sent, most first"},
    sort_info{sort_key::bytes_in, "bytes-in", "bytes received, most first"},
    sort_info{sort_key::rate, "rate", "messages per second both ways, busiest first (live view)"},
    sort_info{sort_key::queue, "queue", "sends queued plus both rings' fill, fullest first"},
    sort_info{sort_key::stalled, "stalled", "stalled peers first, longest silence first"},
};

std::string iso8601(uint64_t unix_ns)
{
    const time_t t = time_t(unix_ns / 1'000'000'000u);
    tm utc{};
    ::gmtime_r(&t, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

// A connection end's identity across snapshots.
using conn_key = std::tuple<int, uint32_t, uint64_t>;
conn_key key_of(const introspect::live_connection &c)
{
    return {c.pid, c.context_id, c.id};
}

uint64_t queued(const introspect::live_connection &c)
{
    return uint64_t(c.send_queued) + c.send_ring + c.recv_ring;
}

} // namespace

snapshot take_snapshot(const std::string &fabric, const std::string &fabric_dir)
{
    snapshot s;
    s.fabric = fabric;
    s.fabric_dir = fabric_dir;
    s.view = introspect::read_live(fabric_dir);
    s.taken_ns = clock_ns(CLOCK_MONOTONIC);
    s.taken_unix_ns = clock_ns(CLOCK_REALTIME);
    return s;
}

std::span<const sort_info> sort_keys() noexcept
{
    return sort_table;
}

const sort_info &info_of(sort_key key) noexcept
{
    for (const auto &i : sort_table)
        if (i.key == key)
            return i;
    return sort_table[0];
}

std::optional<sort_key> find_sort_key(std::string_view name) noexcept
{
    for (const auto &i : sort_table)
        if (i.name == name)
            return i.key;
    return std::nullopt;
}

sort_key step_sort_key(sort_key key, int step) noexcept
{
    const long n = long(sort_table.size());
    long i = 0;
    while (i < n && sort_table[size_t(i)].key != key)
        ++i;
    return sort_table[size_t(((i + step) % n + n) % n)].key;
}

const introspect::live_process *find_process(const snapshot &s, int pid) noexcept
{
    for (const auto &p : s.view.processes)
        if (p.pid == pid)
            return &p;
    return nullptr;
}

std::vector<connection_row> connection_rows(const snapshot &now, const snapshot *before,
                                            sort_key key)
{
    std::map<conn_key, const introspect::live_connection *> old;
    double dt = 0;
    if (before != nullptr && now.taken_ns > before->taken_ns) {
        dt = double(now.taken_ns - before->taken_ns) / 1e9;
        for (const auto &c : before->view.connections)
            old[key_of(c)] = &c;
    }
    std::vector<connection_row> rows;
    for (const auto &c : now.view.connections) {
        connection_row r;
        r.c = &c;
        r.peer = find_process(now, c.peer_pid);
        if (auto it = old.find(key_of(c)); it != old.end() && dt > 0) {
            const introspect::live_connection &o = *it->second;
            auto per_s = [dt](uint64_t a, uint64_t b) {
                return a >= b ? double(a - b) / dt : 0.0;
            };
            r.r.known = true;
            r.r.msgs_out = per_s(c.sent_messages, o.sent_messages);
            r.r.msgs_in = per_s(c.recv_messages, o.recv_messages);
            r.r.bytes_out = per_s(c.sent_bytes, o.sent_bytes);
            r.r.bytes_in = per_s(c.recv_bytes, o.recv_bytes);
        }
        rows.push_back(r);
    }
    // Larger first for the figures; the natural order breaks ties (and is the pid order).
    auto figure = [key](const connection_row &r) -> double {
        const introspect::live_connection &c = *r.c;
        switch (key) {
        case sort_key::msgs_out:
            return double(c.sent_messages);
        case sort_key::msgs_in:
            return double(c.recv_messages);
        case sort_key::bytes_out:
            return double(c.sent_bytes);
        case sort_key::bytes_in:
            return double(c.recv_bytes);
        case sort_key::rate:
            return r.r.msgs_out + r.r.msgs_in;
        case sort_key::queue:
            return double(queued(c));
        case sort_key::stalled:
            return c.peer_stalled ? 1e12 + c.peer_silent_ms : 0.0;
        case sort_key::pid:
        case sort_key::name:
            break;
        }
        return 0;
    };
    std::stable_sort(rows.begin(), rows.end(),
                     [&](const connection_row &a, const connection_row &b) {
                         if (key == sort_key::name && a.c->name != b.c->name)
                             return a.c->name < b.c->name;
                         if (key != sort_key::pid && key != sort_key::name) {
                             const double fa = figure(a), fb = figure(b);
                             if (fa != fb)
                                 return fa > fb;
                         }
                         return key_of(*a.c) < key_of(*b.c);
                     });
    return rows;
}

std::vector<const introspect::live_context *> context_rows(const snapshot &now, sort_key key)
{
    std::vector<const introspect::live_context *> rows;
    for (const auto &c : now.view.contexts)
        rows.push_back(&c);
    if (key == sort_key::name)
        std::stable_sort(rows.begin(), rows.end(),
                         [](const auto *a, const auto *b) { return a->name < b->name; });
    return rows;
}

std::string_view process_state_name(char state) noexcept
{
    switch (state) {
    case 'R':
        return "running";
    case 'S':
        return "sleeping";
    case 'D':
        return "waiting";
    case 'T':
        return "stopped";
    case 't':
        return "traced";
    case 'Z':
        return "zombie";
    case 'X':
        return "dead";
    case 'I':
        return "idle";
    default:
        return "unknown";
    }
}

totals count(const snapshot &s) noexcept
{
    totals t;
    t.processes = s.view.processes.size();
    for (const auto &c : s.view.contexts)
        (c.kind == "server" ? t.servers : t.clients)++;
    t.connections = s.view.connections.size();
    for (const auto &c : s.view.connections)
        t.stalled += c.peer_stalled ? 1 : 0;
    t.engines = s.view.engines.size();
    for (const auto &m : s.view.memory)
        (m.role == "export" ? t.exports : t.imports)++;
    return t;
}

json::value to_json(const snapshot &s)
{
    const totals t = count(s);
    json::value doc = json::value::object();
    doc.set("schema", "softcomch-top").set("schema_version", 1);
    doc.set("fabric", s.fabric).set("fabric_dir", s.fabric_dir).set("stats_dir", s.view.stats_dir);
    doc.set("timestamp", iso8601(s.taken_unix_ns));
    doc.set("summary", json::value::object()
                           .set("processes", t.processes)
                           .set("servers", t.servers)
                           .set("clients", t.clients)
                           .set("connections", t.connections)
                           .set("stalled_peers", t.stalled)
                           .set("engines", t.engines)
                           .set("exports", t.exports)
                           .set("imports", t.imports));
    json::value procs = json::value::array();
    for (const auto &p : s.view.processes)
        procs.push_back(json::value::object()
                            .set("pid", p.pid)
                            .set("comm", p.comm)
                            .set("cmdline", p.cmdline)
                            .set("state", process_state_name(p.state))
                            .set("contexts_unpublished", p.contexts_unpublished)
                            .set("connections_unpublished", p.connections_unpublished)
                            .set("resources_unpublished", p.resources_unpublished)
                            .set("stats_file", p.path));
    doc.set("processes", std::move(procs));
    json::value ctxs = json::value::array();
    for (const auto &c : s.view.contexts)
        ctxs.push_back(json::value::object()
                           .set("pid", c.pid)
                           .set("id", c.id)
                           .set("kind", c.kind)
                           .set("name", c.name)
                           .set("name_truncated", c.name_truncated)
                           .set("state", c.state)
                           .set("bluefield", c.bluefield)
                           .set("device", c.device)
                           .set("representor", c.representor)
                           .set("host_function", c.host_function)
                           .set("max_msg_size", c.max_msg_size)
                           .set("recv_queue_size", c.recv_queue_size)
                           .set("connections", c.connections)
                           .set("since_tick_ms",
                                c.since_tick_ms ? json::value(*c.since_tick_ms) : json::value()));
    doc.set("contexts", std::move(ctxs));
    json::value conns = json::value::array();
    for (const auto &c : s.view.connections) {
        auto pair = [](uint64_t messages, uint64_t bytes) {
            return json::value::object().set("messages", messages).set("bytes", bytes);
        };
        auto ring = [](uint32_t used, uint32_t limit) {
            return json::value::object().set("used", used).set("limit", limit);
        };
        conns.push_back(json::value::object()
                            .set("pid", c.pid)
                            .set("context_id", c.context_id)
                            .set("side", c.side)
                            .set("name", c.name)
                            .set("id", c.id)
                            .set("peer_pid", c.peer_pid)
                            .set("state", c.state)
                            .set("max_msg_size", c.max_msg_size)
                            .set("sent", pair(c.sent_messages, c.sent_bytes))
                            .set("received", pair(c.recv_messages, c.recv_bytes))
                            .set("send_queued", c.send_queued)
                            .set("send_ring", ring(c.send_ring, c.send_ring_limit))
                            .set("recv_ring", ring(c.recv_ring, c.recv_ring_limit))
                            .set("consumers", c.consumers)
                            .set("producers", c.producers)
                            .set("peer", json::value::object()
                                             .set("stalled", c.peer_stalled)
                                             .set("silent_ms", c.peer_silent_ms)
                                             .set("asleep", c.peer_asleep)
                                             .set("gone", c.peer_gone)));
    }
    doc.set("connections", std::move(conns));
    json::value engines = json::value::array();
    for (const auto &e : s.view.engines)
        engines.push_back(json::value::object()
                              .set("pid", e.pid)
                              .set("id", e.id)
                              .set("engine", e.engine)
                              .set("device", e.device)
                              .set("state", e.state)
                              .set("tasks_done", e.tasks_done)
                              .set("tasks_failed", e.tasks_failed)
                              .set("in_flight", e.in_flight)
                              .set("bytes", e.bytes));
    doc.set("engines", std::move(engines));
    json::value memory = json::value::array();
    for (const auto &m : s.view.memory) {
        json::value o = json::value::object()
                            .set("pid", m.pid)
                            .set("id", m.id)
                            .set("role", m.role)
                            .set("what", m.what)
                            .set("function", m.function)
                            .set("access", m.access)
                            .set("addr", m.addr)
                            .set("len", m.len);
        const bool import = m.role == "import";
        o.set("exporter", import ? json::value(m.peer) : json::value())
            .set("exported_for", import ? json::value(m.peer_function) : json::value())
            .set("bytes", import ? json::value(m.bytes) : json::value());
        memory.push_back(std::move(o));
    }
    doc.set("memory", std::move(memory));
    json::value bad = json::value::array();
    for (const auto &p : s.view.unreadable)
        bad.push_back(json::value::object().set("path", p.path).set("why", p.why));
    doc.set("unreadable", std::move(bad));
    json::value stale = json::value::array();
    for (const auto &p : s.view.stale)
        stale.push_back(p);
    doc.set("stale_removed", std::move(stale));
    return doc;
}

} // namespace softcomch::tools::top
