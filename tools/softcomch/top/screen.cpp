// SPDX-License-Identifier: Apache-2.0
//
// softcomch top's live view: a frame per refresh (or key), cut to the terminal's size.
#include <cstdio>
#include <ctime>

#include "terminal.hpp"
#include "top.hpp"

namespace softcomch::tools::top {

namespace {

const char *style_escape(line_style s)
{
    switch (s) {
    case line_style::title:
        return "\x1b[1m";
    case line_style::header:
        return "\x1b[7m";
    case line_style::alert:
        return "\x1b[1;31m";
    case line_style::dim:
        return "\x1b[2m";
    case line_style::plain:
        break;
    }
    return "";
}

std::string clock_text()
{
    const time_t t = ::time(nullptr);
    tm local{};
    ::localtime_r(&t, &local);
    char buf[16];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &local);
    return buf;
}

std::string seconds_text(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

struct view_state {
    sort_key key;
    bool paused = false;
    bool help = false;
};

std::vector<line> help_lines(const live_options &o)
{
    std::vector<line> out{{"KEYS", line_style::title},
                          {"  q         quit (also Ctrl-C)"},
                          {"  s / S     next / previous sort order"},
                          {"  p         pause / resume the refresh"},
                          {"  space     refresh now"},
                          {"  h / ?     this help (again, or Esc, to go back)"},
                          {"  Ctrl-Z    suspend; fg resumes"},
                          {""},
                          {"SORT ORDERS", line_style::title}};
    for (const auto &s : sort_keys()) {
        std::string name(s.name);
        name.resize(12, ' ');
        out.push_back({"  " + name + std::string(s.help)});
    }
    out.push_back({""});
    out.push_back({"COLUMNS", line_style::title});
    out.push_back({"  SENDQ     sends waiting for room in the peer's receive queue"});
    out.push_back({"  RING-OUT  messages in the peer's receive queue not yet taken / its size"});
    out.push_back({"  RING-IN   messages in this side's receive queue not yet delivered / size"});
    out.push_back({"  CONS/PROD this side's consumers and producers on the connection"});
    out.push_back({"  PEER-STATE ok, asleep (waits for a wake-up), STALLED <time> (alive, not "
                   "progressing for SOFTCOMCH_PEER_STALL_MS), stopped, gone"});
    out.push_back({"  TICK      time since the context last progressed (doca_pe_progress)"});
    out.push_back({""});
    out.push_back({"Refresh every " + seconds_text(o.delay_s) +
                   " s (-d); one snapshot: "
                   "softcomch top --once [--json]"});
    return out;
}

std::string frame(const snapshot &now, const snapshot *before, const view_state &v,
                  const live_options &o, size_t rows, size_t cols)
{
    std::vector<line> lines;
    lines.push_back(
        {"softcomch top - fabric '" + now.fabric + "' (" + now.fabric_dir + ")  " + clock_text(),
         line_style::header});
    lines.push_back({summary(now) + (v.paused ? "   [PAUSED]" : "")});
    lines.push_back({"sort: " + std::string(info_of(v.key).name) + " (s/S)   refresh " +
                     seconds_text(o.delay_s) + " s   keys: q quit, s/S sort, p pause, h help"});
    lines.push_back({""});
    if (v.help) {
        for (auto &l : help_lines(o))
            lines.push_back(std::move(l));
    } else {
        render_options ro;
        ro.exact = false;
        ro.rates = true;
        for (auto &l : render_tables(now, before, v.key, ro))
            lines.push_back(std::move(l));
        const auto problems = render_problems(now);
        if (!problems.empty())
            lines.push_back({""});
        for (const auto &l : problems)
            lines.push_back(l);
    }
    if (lines.size() > rows && rows >= 2) {
        const size_t hidden = lines.size() - (rows - 1);
        lines.resize(rows - 1);
        lines.push_back({"... " + std::to_string(hidden) + " more lines (enlarge the window)",
                         line_style::dim});
    }
    std::string out = "\x1b[H";
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string text = lines[i].text;
        if (text.size() > cols)
            text.resize(cols);
        if (lines[i].style == line_style::header)
            text.resize(cols, ' '); // the bar spans the width
        out += style_escape(lines[i].style);
        out += text;
        out += "\x1b[0m\x1b[K";
        if (i + 1 < lines.size())
            out += "\r\n";
    }
    out += "\x1b[J";
    return out;
}

} // namespace

std::optional<int> run_live(const live_options &o)
{
    terminal term;
    if (!term.enter())
        return std::nullopt;
    const int delay_ms = int(o.delay_s * 1000 + 0.5);
    view_state v{o.sort};
    snapshot before;
    bool have_before = false;
    snapshot now = take_snapshot(o.fabric, o.fabric_dir);
    auto refresh = [&] {
        before = std::move(now);
        have_before = true;
        now = take_snapshot(o.fabric, o.fabric_dir);
    };
    for (;;) {
        term.draw(frame(now, have_before ? &before : nullptr, v, o, term.rows(), term.cols()));
        int timeout = -1;
        if (!v.paused) {
            const uint64_t due = now.taken_ns + uint64_t(delay_ms) * 1'000'000u;
            timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            const uint64_t t = uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
            timeout = due > t ? int((due - t + 999'999) / 1'000'000) : 0;
        }
        const terminal::event ev = term.wait(timeout);
        switch (ev.what) {
        case terminal::event::timeout:
            if (!v.paused)
                refresh();
            break;
        case terminal::event::resize:
            break;
        case terminal::event::quit_signal:
            term.leave();
            return 128 + ev.signal;
        case terminal::event::key:
            switch (ev.byte) {
            case 'q':
            case 'Q':
                term.leave();
                return 0;
            case 's':
                v.key = step_sort_key(v.key, 1);
                break;
            case 'S':
                v.key = step_sort_key(v.key, -1);
                break;
            case 'p':
            case 'P':
                v.paused = !v.paused;
                if (!v.paused)
                    refresh();
                break;
            case 'h':
            case 'H':
            case '?':
                v.help = !v.help;
                break;
            case 27: // Esc
                v.help = false;
                break;
            case ' ':
                if (!v.paused)
                    refresh();
                break;
            default:
                break;
            }
            break;
        }
    }
}

} // namespace softcomch::tools::top
