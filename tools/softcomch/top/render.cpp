// SPDX-License-Identifier: Apache-2.0
//
// softcomch top: the servers-and-clients table and the connections table, as lines of text that
// the live view styles and truncates to the terminal and --once prints as they are.
#include <doca_types.h>

#include <cstdio>

#include "top.hpp"

namespace softcomch::tools::top {

namespace {

struct column {
    std::string_view title;
    bool right = false; // numbers
};

// Columns padded to their widest cell, two spaces apart.
class table {
public:
    explicit table(std::vector<column> cols) : cols_(std::move(cols)) {}
    void add(std::vector<std::string> cells, line_style style = line_style::plain)
    {
        cells.resize(cols_.size());
        rows_.push_back({std::move(cells), style});
    }
    void emit(std::vector<line> &out) const
    {
        std::vector<size_t> width(cols_.size());
        for (size_t i = 0; i < cols_.size(); ++i)
            width[i] = cols_[i].title.size();
        for (const auto &r : rows_)
            for (size_t i = 0; i < r.cells.size(); ++i)
                width[i] = std::max(width[i], r.cells[i].size());
        auto format = [&](auto cell_of) {
            std::string s;
            for (size_t i = 0; i < cols_.size(); ++i) {
                const std::string cell(cell_of(i));
                const std::string pad(width[i] - cell.size(), ' ');
                if (i != 0)
                    s += "  ";
                s += cols_[i].right ? pad + cell : cell + (i + 1 < cols_.size() ? pad : "");
            }
            return s;
        };
        out.push_back({format([&](size_t i) { return cols_[i].title; }), line_style::header});
        for (const auto &r : rows_)
            out.push_back({format([&](size_t i) { return r.cells[i]; }), r.style});
    }

private:
    struct row {
        std::vector<std::string> cells;
        line_style style;
    };
    std::vector<column> cols_;
    std::vector<row> rows_;
};

std::string num(uint64_t v)
{
    return std::to_string(v);
}

// 999, 12.3K, 4.5M, 6.7G (powers of 1000 for counts, 1024 for bytes).
std::string compact(double v, double base)
{
    static const char units[] = {'K', 'M', 'G', 'T', 'P'};
    if (v < base)
        return std::to_string(uint64_t(v + 0.5));
    int u = -1;
    while (v >= base && u < 4) {
        v /= base;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
    return buf;
}

std::string count_text(uint64_t v, const render_options &o)
{
    return o.exact ? num(v) : compact(double(v), 1000);
}

std::string bytes_text(uint64_t v, const render_options &o)
{
    return o.exact ? num(v) : compact(double(v), 1024);
}

std::string ms_text(uint64_t ms)
{
    if (ms < 1000)
        return std::to_string(ms) + "ms";
    char buf[32];
    std::snprintf(buf, sizeof buf, ms < 60'000 ? "%.1fs" : "%.0fs", double(ms) / 1000);
    return buf;
}

std::string ring_text(uint32_t used, uint32_t limit)
{
    return std::to_string(used) + "/" + std::to_string(limit);
}

std::string clip(const std::string &s, size_t max)
{
    return s.size() <= max ? s : s.substr(0, max - 1) + "~";
}

// What the peer is doing, as this end's library judges it (and /proc, when it publishes too).
std::string peer_text(const connection_row &r)
{
    const introspect::live_connection &c = *r.c;
    if (c.peer_gone)
        return "gone";
    if (c.peer_stalled)
        return "STALLED " + ms_text(c.peer_silent_ms);
    if (r.peer != nullptr && (r.peer->state == 'T' || r.peer->state == 't'))
        return "stopped";
    return c.peer_asleep ? "asleep" : "ok";
}

// "pci-rw", "pci-ro", "local" (the export's grant as DOCA_ACCESS_FLAG_* names it).
std::string access_text(uint32_t access)
{
    if (access & DOCA_ACCESS_FLAG_PCI_READ_WRITE)
        return "pci-rw";
    if (access & DOCA_ACCESS_FLAG_PCI_READ_ONLY)
        return "pci-ro";
    return access & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE ? "local-rw" : "-";
}

std::string hex(uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string or_dash(const std::string &s)
{
    return s.empty() ? "-" : s;
}

void render_engines(const snapshot &now, const render_options &o, std::vector<line> &out)
{
    const auto &engines = now.view.engines;
    if (engines.empty())
        return;
    out.push_back({"", line_style::plain});
    out.push_back({"ENGINES (" + std::to_string(engines.size()) + ")", line_style::title});
    table tab({{"PID", true},
               {"PROCESS"},
               {"ENGINE"},
               {"ID", true},
               {"STATE"},
               {"DEVICE"},
               {"TASKS", true},
               {"FAILED", true},
               {"IN-FLIGHT", true},
               {"BYTES", true}});
    for (const auto &e : engines) {
        const introspect::live_process *p = find_process(now, e.pid);
        tab.add({num(uint64_t(e.pid)), clip(p ? p->comm : "?", 16), e.engine, num(e.id), e.state,
                 e.device, count_text(e.tasks_done, o), count_text(e.tasks_failed, o),
                 num(e.in_flight), bytes_text(e.bytes, o)},
                e.state == "RUNNING" ? line_style::plain : line_style::dim);
    }
    tab.emit(out);
}

void render_memory(const snapshot &now, const render_options &o, std::vector<line> &out)
{
    const auto &memory = now.view.memory;
    if (memory.empty())
        return;
    out.push_back({"", line_style::plain});
    out.push_back(
        {"MEMORY EXPORTS AND IMPORTS (" + std::to_string(memory.size()) + ")", line_style::title});
    table tab({{"PID", true},
               {"PROCESS"},
               {"ROLE"},
               {"WHAT"},
               {"ID", true},
               {"FUNCTION"},
               {"ACCESS"},
               {"ADDRESS"},
               {"LENGTH", true},
               {"EXPORTER"},
               {"EXPORTED-FOR"},
               {"BYTES", true}});
    for (const auto &m : memory) {
        const introspect::live_process *p = find_process(now, m.pid);
        const bool import = m.role == "import";
        tab.add({num(uint64_t(m.pid)), clip(p ? p->comm : "?", 16), m.role, m.what, num(m.id),
                 or_dash(m.function), m.what == "mmap" ? access_text(m.access) : "-", hex(m.addr),
                 bytes_text(m.len, o), import ? or_dash(m.peer) : "-",
                 import ? or_dash(m.peer_function) : "-", import ? bytes_text(m.bytes, o) : "-"});
    }
    tab.emit(out);
}

} // namespace

std::string summary(const snapshot &s)
{
    const totals t = count(s);
    auto plural = [](size_t n, const char *one, const char *many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    std::string text = "fabric '" + s.fabric + "': " + plural(t.processes, "process", "processes") +
                       ", " + plural(t.servers, "server", "servers") + ", " +
                       plural(t.clients, "client", "clients") + ", " +
                       plural(t.connections, "connection", "connections");
    if (t.stalled != 0)
        text += " (" + plural(t.stalled, "peer", "peers") + " stalled)";
    if (t.engines != 0)
        text += ", " + plural(t.engines, "engine", "engines");
    if (t.exports != 0)
        text += ", " + plural(t.exports, "export", "exports");
    if (t.imports != 0)
        text += ", " + plural(t.imports, "import", "imports");
    return text;
}

std::vector<line> render_tables(const snapshot &now, const snapshot *before, sort_key key,
                                const render_options &o)
{
    const size_t name_max = o.exact ? 1000 : 24;
    std::vector<line> out;
    const auto contexts = context_rows(now, key);
    out.push_back(
        {"SERVERS AND CLIENTS (" + std::to_string(contexts.size()) + ")", line_style::title});
    table ctx({{"PID", true},
               {"PROCESS"},
               {"KIND"},
               {"NAME"},
               {"STATE"},
               {"DEVICE"},
               {"REPRESENTOR"},
               {"HOST-FUNCTION"},
               {"CONNS", true},
               {"MAXMSG", true},
               {"RECVQ", true},
               {"TICK", true}});
    for (const auto *c : contexts) {
        const introspect::live_process *p = find_process(now, c->pid);
        ctx.add({num(uint64_t(c->pid)), clip(p ? p->comm : "?", 16), c->kind,
                 clip(c->name + (c->name_truncated ? "~" : ""), name_max), c->state, c->device,
                 c->representor.empty() ? "-" : c->representor, c->host_function,
                 num(c->connections), num(c->max_msg_size), num(c->recv_queue_size),
                 c->since_tick_ms ? ms_text(*c->since_tick_ms) : "-"},
                c->state == "RUNNING" ? line_style::plain : line_style::dim);
    }
    ctx.emit(out);

    const auto conns = connection_rows(now, before, key);
    out.push_back({"", line_style::plain});
    out.push_back({"CONNECTIONS (" + std::to_string(conns.size()) + ")", line_style::title});
    std::vector<column> cols{{"PID", true},       {"SIDE"},           {"NAME"},
                             {"CONN", true},      {"PEER", true},     {"PEER-STATE"},
                             {"STATE"},           {"MSGS-OUT", true}, {"MSGS-IN", true},
                             {"BYTES-OUT", true}, {"BYTES-IN", true}};
    if (o.rates)
        for (const char *t : {"MSG/s-OUT", "MSG/s-IN", "B/s-OUT", "B/s-IN"})
            cols.push_back({t, true});
    for (const char *t : {"SENDQ", "RING-OUT", "RING-IN", "CONS", "PROD"})
        cols.push_back({t, true});
    table tab(std::move(cols));
    for (const auto &r : conns) {
        const introspect::live_connection &c = *r.c;
        std::vector<std::string> cells{num(uint64_t(c.pid)),
                                       c.side,
                                       clip(c.name, name_max),
                                       num(c.id),
                                       num(uint64_t(c.peer_pid)),
                                       peer_text(r),
                                       c.state,
                                       count_text(c.sent_messages, o),
                                       count_text(c.recv_messages, o),
                                       bytes_text(c.sent_bytes, o),
                                       bytes_text(c.recv_bytes, o)};
        if (o.rates) {
            auto rate = [&](double v, double base) {
                return r.r.known ? compact(v, base) : std::string("-");
            };
            cells.push_back(rate(r.r.msgs_out, 1000));
            cells.push_back(rate(r.r.msgs_in, 1000));
            cells.push_back(rate(r.r.bytes_out, 1024));
            cells.push_back(rate(r.r.bytes_in, 1024));
        }
        cells.push_back(num(c.send_queued));
        cells.push_back(ring_text(c.send_ring, c.send_ring_limit));
        cells.push_back(ring_text(c.recv_ring, c.recv_ring_limit));
        cells.push_back(num(c.consumers));
        cells.push_back(num(c.producers));
        tab.add(std::move(cells), c.peer_stalled ? line_style::alert : line_style::plain);
    }
    tab.emit(out);
    render_engines(now, o, out);
    render_memory(now, o, out);
    return out;
}

std::vector<line> render_problems(const snapshot &s)
{
    std::vector<line> out;
    for (const auto &p : s.view.unreadable)
        out.push_back({"unreadable: " + p.path + ": " + p.why, line_style::dim});
    for (const auto &p : s.view.stale)
        out.push_back({"removed the file of a process that ended: " + p, line_style::dim});
    for (const auto &p : s.view.processes) {
        if (p.contexts_unpublished + p.connections_unpublished + p.resources_unpublished == 0)
            continue;
        out.push_back({"pid " + std::to_string(p.pid) + ": " +
                           std::to_string(p.contexts_unpublished) + " context(s), " +
                           std::to_string(p.connections_unpublished) + " connection(s) and " +
                           std::to_string(p.resources_unpublished) +
                           " engine(s), export(s) or import(s) not shown (its stats file is full)",
                       line_style::dim});
    }
    return out;
}

} // namespace softcomch::tools::top
