// SPDX-License-Identifier: Apache-2.0
//
// softcomch bench --plot DIR: three SVG files drawn here, without any external tool:
//   latency.svg     control-path round-trip percentiles (p50, p99, p99.9) of every subject, one
//                   panel per size, log time axis
//   throughput.svg  GB/s against message size, log-log, one line per subject and mode, legend
//   rate.svg        message rates (Mmsg/s) as bars
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "bench.hpp"

namespace softcomch::tools::bench {

namespace {

namespace fs = std::filesystem;

constexpr const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                   "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
                                   "#843c39", "#7b4173", "#3182bd", "#e6550d"};
constexpr size_t palette_size = sizeof palette / sizeof palette[0];

std::string esc(std::string_view s)
{
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            if (static_cast<unsigned char>(c) >= 0x20)
                out += c;
        }
    }
    return out;
}

std::string num(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

class svg {
public:
    svg(double w, double h, std::string_view title) : w_(w), h_(h)
    {
        s_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(w) << "\" height=\""
           << num(h) << "\" viewBox=\"0 0 " << num(w) << ' ' << num(h)
           << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
           << "<title>" << esc(title) << "</title>\n"
           << "<rect x=\"0\" y=\"0\" width=\"" << num(w) << "\" height=\"" << num(h)
           << "\" fill=\"white\"/>\n";
        text(w / 2, 22, title, "middle", 15, "bold");
    }
    void text(double x, double y, std::string_view t, std::string_view anchor = "start",
              int size = 12, std::string_view weight = "normal", std::string_view fill = "#222")
    {
        s_ << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" text-anchor=\"" << anchor
           << "\" font-size=\"" << size << "\" font-weight=\"" << weight << "\" fill=\"" << fill
           << "\">" << esc(t) << "</text>\n";
    }
    void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
              std::string_view dash = "")
    {
        s_ << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2)
           << "\" y2=\"" << num(y2) << "\" stroke=\"" << stroke << "\" stroke-width=\"" << width
           << '"';
        if (!dash.empty())
            s_ << " stroke-dasharray=\"" << dash << '"';
        s_ << "/>\n";
    }
    void rect(double x, double y, double w, double h, std::string_view fill)
    {
        s_ << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
           << "\" height=\"" << num(h) << "\" fill=\"" << fill << "\"/>\n";
    }
    void circle(double x, double y, double r, std::string_view fill)
    {
        s_ << "<circle cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"" << num(r)
           << "\" fill=\"" << fill << "\"/>\n";
    }
    void diamond(double x, double y, double r, std::string_view fill)
    {
        s_ << "<polygon points=\"" << num(x) << ',' << num(y - r) << ' ' << num(x + r) << ','
           << num(y) << ' ' << num(x) << ',' << num(y + r) << ' ' << num(x - r) << ',' << num(y)
           << "\" fill=\"" << fill << "\"/>\n";
    }
    void polyline(const std::vector<std::pair<double, double>> &pts, std::string_view stroke,
                  std::string_view dash = "")
    {
        s_ << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"2\"";
        if (!dash.empty())
            s_ << " stroke-dasharray=\"" << dash << '"';
        s_ << " points=\"";
        for (const auto &[x, y] : pts)
            s_ << num(x) << ',' << num(y) << ' ';
        s_ << "\"/>\n";
    }
    std::string finish()
    {
        s_ << "</svg>\n";
        return s_.str();
    }
    double width() const { return w_; }
    double height() const { return h_; }

private:
    double w_, h_;
    std::ostringstream s_;
};

// A logarithmic axis mapping [lo, hi] (whole decades) onto [p0, p1].
struct log_axis {
    double lo = 1, hi = 10, p0 = 0, p1 = 1;
    log_axis(double min_v, double max_v, double from, double to) : p0(from), p1(to)
    {
        min_v = std::max(min_v, 1e-9);
        max_v = std::max(max_v, min_v * 1.0001);
        lo = std::pow(10, std::floor(std::log10(min_v)));
        hi = std::pow(10, std::ceil(std::log10(max_v)));
        if (hi <= lo)
            hi = lo * 10;
    }
    double map(double v) const
    {
        v = std::clamp(v, lo, hi);
        return p0 +
               (p1 - p0) * (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    }
    // 1, 2, 5 of every decade (only the decades when there are many).
    std::vector<double> ticks() const
    {
        std::vector<double> t;
        const bool fine = std::log10(hi / lo) <= 3.01;
        for (double d = lo; d <= hi * 1.0001; d *= 10)
            for (double m : {1.0, 2.0, 5.0})
                if ((m == 1.0 || fine) && d * m <= hi * 1.0001)
                    t.push_back(d * m);
        return t;
    }
};

std::string tick_label(double v)
{
    char buf[32];
    if (v >= 1)
        std::snprintf(buf, sizeof buf, "%g", v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string series_name(const record &r)
{
    return r.mode.empty() ? r.subject : r.subject + " " + r.mode;
}

// softcomch first, then the baselines, then the peers; by name within each.
int subject_rank(const std::string &subject)
{
    return subject == "softcomch" ? 0 : is_baseline_subject(subject) ? 1 : 2;
}

double to_us(const record &r)
{
    if (r.unit == "ns")
        return r.value / 1000;
    if (r.unit == "ms")
        return r.value * 1000;
    if (r.unit == "s")
        return r.value * 1e6;
    return r.value;
}

bool is_time_unit(const std::string &u)
{
    return u == "us" || u == "ns" || u == "ms" || u == "s";
}

std::string empty_plot(std::string_view title)
{
    svg s(600, 120, title);
    s.text(300, 70, "no data in this run", "middle", 13);
    return s.finish();
}

std::string latency_plot(const run &r)
{
    constexpr std::string_view title = "Control-path round trip: p50, p99, p99.9 (us, log scale)";
    // size -> series -> stat -> us
    std::map<uint64_t, std::map<std::pair<int, std::string>, std::map<std::string, double>>> data;
    double lo = 1e300, hi = 0;
    for (const auto &rec : r.records) {
        const std::string stat = stat_of(rec.metric);
        if (!rec.available() || rec.size == 0 || !is_time_unit(rec.unit) ||
            rec.metric.find("rtt") == std::string::npos ||
            (stat != "p50" && stat != "p99" && stat != "p999") || rec.value <= 0)
            continue;
        const double us = to_us(rec);
        data[rec.size][{subject_rank(rec.subject), series_name(rec)}][stat] = us;
        lo = std::min(lo, us);
        hi = std::max(hi, us);
    }
    if (data.empty())
        return empty_plot(title);
    size_t rows = 0;
    for (const auto &[size, series] : data)
        rows += series.size();
    constexpr double left = 260, right = 40, top = 60, row_h = 20, panel_gap = 34, bottom = 50;
    const double height = top + double(rows) * row_h + double(data.size()) * panel_gap + bottom;
    svg s(960, height, title);
    const log_axis x(lo, hi, left, s.width() - right);
    // legend of the markers
    s.circle(left, 42, 5, "#222");
    s.text(left + 10, 46, "p50");
    s.rect(left + 56, 37, 9, 9, "#222");
    s.text(left + 70, 46, "p99");
    s.diamond(left + 120, 42, 6, "#222");
    s.text(left + 130, 46, "p99.9");
    double y = top;
    std::map<std::string, size_t> colour_of;
    for (const auto &[size, series] : data) {
        y += panel_gap;
        s.text(10, y - 10, size_name(size), "start", 13, "bold");
        const double panel_top = y - 4;
        for (const auto &[key, stats] : series) {
            const std::string &name = key.second;
            const size_t c = colour_of.emplace(name, colour_of.size()).first->second;
            const char *colour = palette[c % palette_size];
            s.text(left - 8, y + 10, name, "end");
            std::vector<double> xs;
            for (const char *st : {"p50", "p99", "p999"})
                if (auto it = stats.find(st); it != stats.end())
                    xs.push_back(x.map(it->second));
            if (xs.size() > 1)
                s.line(*std::min_element(xs.begin(), xs.end()), y + 6,
                       *std::max_element(xs.begin(), xs.end()), y + 6, colour, 2);
            if (auto it = stats.find("p50"); it != stats.end()) {
                s.circle(x.map(it->second), y + 6, 5, colour);
                s.text(x.map(it->second), y - 1, format_value(it->second), "middle", 9, "normal",
                       "#555");
            }
            if (auto it = stats.find("p99"); it != stats.end())
                s.rect(x.map(it->second) - 4.5, y + 1.5, 9, 9, colour);
            if (auto it = stats.find("p999"); it != stats.end())
                s.diamond(x.map(it->second), y + 6, 6, colour);
            y += row_h;
        }
        for (double t : x.ticks())
            s.line(x.map(t), panel_top, x.map(t), y, "#ddd", 1);
        s.line(left, y, s.width() - right, y, "#888", 1);
    }
    for (double t : x.ticks())
        s.text(x.map(t), y + 16, tick_label(t), "middle", 10);
    s.text((left + s.width() - right) / 2, y + 36, "round-trip time (us)", "middle");
    return s.finish();
}

std::string throughput_plot(const run &r)
{
    constexpr std::string_view title = "Throughput against message size (GB/s, log-log)";
    std::map<std::pair<int, std::string>, std::map<uint64_t, double>> series;
    double xlo = 1e300, xhi = 0, ylo = 1e300, yhi = 0;
    for (const auto &rec : r.records) {
        // The transport's part benchmarks (fastpath_bench) stay in the tables: the plot shows
        // what a program gets, its baselines and the peers.
        if (!rec.available() || rec.size == 0 || rec.value <= 0 ||
            (rec.unit != "GB/s" && rec.unit != "GiB/s") || rec.metric.starts_with("transport_"))
            continue;
        const double v = rec.unit == "GiB/s" ? rec.value * 1.073741824 : rec.value;
        series[{subject_rank(rec.subject), series_name(rec)}][rec.size] = v;
        xlo = std::min(xlo, double(rec.size));
        xhi = std::max(xhi, double(rec.size));
        ylo = std::min(ylo, v);
        yhi = std::max(yhi, v);
    }
    if (series.empty())
        return empty_plot(title);
    constexpr double left = 70, top = 50, plot_w = 620, plot_h = 420;
    const double legend_h = 30 + 18.0 * double(series.size());
    svg s(1000, std::max(top + plot_h + 70, legend_h + top), title);
    const log_axis x(xlo, xhi, left, left + plot_w);
    const log_axis y(ylo, yhi, top + plot_h, top);
    for (double t : y.ticks()) {
        s.line(left, y.map(t), left + plot_w, y.map(t), "#e4e4e4", 1);
        s.text(left - 6, y.map(t) + 4, tick_label(t), "end", 10);
    }
    std::set<uint64_t> sizes;
    for (const auto &[key, pts] : series)
        for (const auto &[size, v] : pts)
            sizes.insert(size);
    for (uint64_t size : sizes) {
        s.line(x.map(double(size)), top, x.map(double(size)), top + plot_h, "#eeeeee", 1);
        s.text(x.map(double(size)), top + plot_h + 16, size_name(size), "middle", 10);
    }
    s.line(left, top + plot_h, left + plot_w, top + plot_h, "#888");
    s.line(left, top, left, top + plot_h, "#888");
    s.text(left + plot_w / 2, top + plot_h + 40, "message size (bytes, log scale)", "middle");
    s.text(18, top + plot_h / 2, "GB/s", "middle");
    size_t i = 0;
    double ly = top + 10;
    for (const auto &[key, pts] : series) {
        const char *colour = palette[i++ % palette_size];
        // Solid: softcomch; dotted: the baselines; dashed: the peers.
        const std::string_view dash = key.first == 0 ? "" : key.first == 1 ? "2,3" : "7,4";
        std::vector<std::pair<double, double>> line;
        for (const auto &[size, v] : pts)
            line.emplace_back(x.map(double(size)), y.map(v));
        if (line.size() > 1)
            s.polyline(line, colour, dash);
        for (const auto &[px, py] : line)
            s.circle(px, py, 3.5, colour);
        s.line(left + plot_w + 20, ly, left + plot_w + 44, ly, colour, 3, dash);
        s.text(left + plot_w + 50, ly + 4, key.second);
        ly += 18;
    }
    return s.finish();
}

std::string rate_plot(const run &r)
{
    constexpr std::string_view title = "Message rate (M msg/s)";
    std::vector<std::pair<std::pair<int, std::string>, double>> bars;
    double hi = 0;
    for (const auto &rec : r.records) {
        if (!rec.available() || rec.unit != "Mmsg/s" || rec.value < 0)
            continue;
        std::string label = series_name(rec);
        if (rec.size)
            label.append(" ").append(size_name(rec.size)); // not " " + (GCC bug 105651)
        bars.push_back({{subject_rank(rec.subject), label}, rec.value});
        hi = std::max(hi, rec.value);
    }
    if (bars.empty())
        return empty_plot(title);
    std::stable_sort(bars.begin(), bars.end(),
                     [](const auto &a, const auto &b) { return a.first.first < b.first.first; });
    constexpr double left = 300, top = 50, bar_h = 18, gap = 6, plot_w = 560;
    svg s(940, top + double(bars.size()) * (bar_h + gap) + 60, title);
    const double scale = plot_w / (hi * 1.1 > 0 ? hi * 1.1 : 1);
    double y = top;
    std::map<std::string, size_t> colour_of;
    for (const auto &[key, v] : bars) {
        const std::string subject = key.second.substr(0, key.second.find(' '));
        const size_t c = colour_of.emplace(subject, colour_of.size()).first->second;
        s.text(left - 8, y + 13, key.second, "end");
        s.rect(left, y, std::max(1.0, v * scale), bar_h, palette[c % palette_size]);
        s.text(left + v * scale + 6, y + 13, format_value(v), "start", 11);
        y += bar_h + gap;
    }
    s.line(left, top - 4, left, y, "#888");
    s.text(left + plot_w / 2, y + 30, "million messages per second", "middle");
    return s.finish();
}

} // namespace

std::vector<std::pair<plot_file, std::string>> plots(const run &r)
{
    return {
        {{"latency.svg", "Control-path round trip, p50 / p99 / p99.9"}, latency_plot(r)},
        {{"throughput.svg", "Throughput against message size"}, throughput_plot(r)},
        {{"rate.svg", "Message rate"}, rate_plot(r)},
    };
}

bool write_plots(const run &r, const std::string &dir, std::vector<plot_file> &written,
                 std::string *error)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        if (error)
            *error = dir + ": " + ec.message();
        return false;
    }
    for (const auto &[file, text] : plots(r)) {
        const std::string path = (fs::path(dir) / file.name).string();
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text;
        out.close();
        if (!out) {
            if (error)
                *error = path + ": cannot write";
            return false;
        }
        written.push_back(file);
    }
    return true;
}

} // namespace softcomch::tools::bench
