// SPDX-License-Identifier: Apache-2.0
#include "common/trace_file.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace softcomch::trace_file {

namespace {

constexpr std::string_view k_phases = "BEXiIbenCMstfPNOD";

bool is_integer(const json::value *v)
{
    return v && v->is_int();
}

std::string check_metadata(const json::value &e, const std::string &name)
{
    const json::value *args = e.find("args");
    if (!args || !args->is_object())
        return "metadata '" + name + "' without an \"args\" object";
    if (name == "process_name" || name == "thread_name") {
        const json::value *n = args->find("name");
        if (!n || !n->is_string())
            return "metadata '" + name + "' without a string args.name";
    } else if (name == "process_labels") {
        const json::value *l = args->find("labels");
        if (!l || !l->is_string())
            return "metadata 'process_labels' without a string args.labels";
    } else if (name == "process_sort_index" || name == "thread_sort_index") {
        if (!is_integer(args->find("sort_index")))
            return "metadata '" + name + "' without an integer args.sort_index";
    } else {
        return "unknown metadata '" + name + "'";
    }
    return {};
}

} // namespace

std::string check_event(const json::value &e)
{
    if (!e.is_object())
        return std::string("an event is an object, not ") + e.type_name();
    for (const auto &[k, v] : e.items())
        if (v.is_array())
            return "\"" + k + "\" is an array at the top level of the event";
    const json::value *ph = e.find("ph");
    if (!ph || !ph->is_string() || ph->as_string().size() != 1 ||
        k_phases.find(ph->as_string()[0]) == std::string_view::npos)
        return "\"ph\" is not one of the format's phases";
    const char phase = ph->as_string()[0];
    const json::value *name = e.find("name");
    if ((!name || !name->is_string()) && phase != 'E')
        return "no \"name\" string";
    if (!is_integer(e.find("pid")))
        return "no integer \"pid\"";
    if (!is_integer(e.find("tid")))
        return "no integer \"tid\"";
    const json::value *ts = e.find("ts");
    if (ts && (!ts->is_number() || ts->as_double() < 0))
        return "\"ts\" is not a non-negative number";
    if (!ts && phase != 'M')
        return "no \"ts\"";
    if (const json::value *cat = e.find("cat"); cat && !cat->is_string())
        return "\"cat\" is not a string";
    const json::value *args = e.find("args");
    if (args && !args->is_object())
        return "\"args\" is not an object";
    switch (phase) {
    case 'b':
    case 'e':
    case 'n': {
        const json::value *id = e.find("id");
        const json::value *id2 = e.find("id2");
        if (!(id && (id->is_string() || id->is_int())) && !(id2 && id2->is_object()))
            return "an async event without an \"id\"";
        break;
    }
    case 'X': {
        const json::value *dur = e.find("dur");
        if (!dur || !dur->is_number() || dur->as_double() < 0)
            return "a complete event without a non-negative \"dur\"";
        break;
    }
    case 'C':
        if (!args || args->size() == 0)
            return "a counter without arguments";
        for (const auto &[k, v] : args->items())
            if (!v.is_number())
                return "counter argument \"" + k + "\" is not a number";
        break;
    case 'M':
        return check_metadata(e, name->as_string());
    case 'i':
    case 'I':
        if (const json::value *s = e.find("s")) {
            if (!s->is_string() ||
                (s->as_string() != "g" && s->as_string() != "p" && s->as_string() != "t"))
                return "an instant event's \"s\" is not g, p or t";
        }
        break;
    default:
        break;
    }
    return {};
}

namespace {

// Adds one parsed element (line `line`) to the report and the events.
void take(report &r, json::value v, size_t line, std::vector<json::value> *events)
{
    std::string why = check_event(v);
    if (!why.empty()) {
        r.problems.push_back({line, why});
        return;
    }
    const int64_t pid = v.find("pid")->as_int();
    auto it = std::find_if(r.processes.begin(), r.processes.end(),
                           [&](const process &p) { return p.pid == pid; });
    if (it == r.processes.end()) {
        r.processes.push_back(process{pid, {}, 0});
        it = r.processes.end() - 1;
    }
    const bool meta = v.find("ph")->as_string() == "M";
    if (meta) {
        ++r.metadata;
        if (v.find("name")->as_string() == "process_name")
            it->name = v.find("args")->find("name")->as_string();
    } else {
        ++r.events;
        ++it->events;
    }
    if (const json::value *ts = v.find("ts"); ts && !meta) {
        const double t = ts->as_double();
        if (r.events == 1 || t < r.first_ts)
            r.first_ts = t;
        if (r.events == 1 || t > r.last_ts)
            r.last_ts = t;
    }
    if (events)
        events->push_back(std::move(v));
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::strchr(" \t\r\n", s.front()))
        s.remove_prefix(1);
    while (!s.empty() && std::strchr(" \t\r\n", s.back()))
        s.remove_suffix(1);
    return s;
}

// A whole JSON document: {"traceEvents":[...]} or [...] (a missing ']' and a trailing comma
// forgiven, as chrome://tracing does).
void read_document(report &r, std::string_view text, std::vector<json::value> *events)
{
    std::string doc(trim(text));
    if (doc.front() == '[') {
        while (doc.size() > 1 && (doc.back() == ',' || std::strchr(" \t\r\n", doc.back())))
            doc.pop_back();
        if (doc.size() == 1 || doc.back() != ']')
            doc += ']';
    }
    std::string err;
    json::value v = json::parse(doc, &err);
    if (!err.empty()) {
        r.problems.push_back({0, "not JSON: " + err});
        return;
    }
    const json::value *list = &v;
    if (v.is_object()) {
        r.strict_input = true;
        list = v.find("traceEvents");
        if (!list || !list->is_array()) {
            r.problems.push_back({0, "no \"traceEvents\" array"});
            return;
        }
    }
    for (size_t i = 0; i < list->size(); ++i)
        take(r, (*list)[i], i + 1, events);
}

} // namespace

report read(std::string_view text, std::vector<json::value> *events)
{
    report r;
    const std::string_view body = trim(text);
    if (body.empty() || (body.front() != '[' && body.front() != '{')) {
        r.problems.push_back({0, "not a trace: it does not start with '[' or '{'"});
        return r;
    }
    // The recorder's form: "[" alone on its line, then one event per line.
    size_t pos = text.find_first_not_of(" \t\r\n");
    const size_t first_end = std::min(text.find('\n', pos), text.size());
    if (body.front() == '{' || trim(text.substr(pos, first_end - pos)) != "[") {
        read_document(r, text, events);
        return r;
    }
    size_t line_no = size_t(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
    bool closed = false;
    for (pos = first_end; pos < text.size();) {
        ++pos; // past '\n'
        ++line_no;
        const size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view line = trim(text.substr(pos, end - pos));
        pos = end;
        if (line.empty())
            continue;
        if (closed) {
            r.problems.push_back({line_no, "text after the closing ']'"});
            continue;
        }
        if (line == "]") {
            closed = true;
            continue;
        }
        if (line.back() == ',') {
            line.remove_suffix(1);
        } else if (line.size() > 1 && line.substr(line.size() - 2) == "}]") {
            line.remove_suffix(1); // the last event, with the closing bracket
            closed = true;
        }
        std::string err;
        json::value v = json::parse(line, &err);
        if (!err.empty()) {
            r.problems.push_back({line_no, "not a JSON event (" + err + ")"});
            continue;
        }
        take(r, std::move(v), line_no, events);
    }
    return r;
}

std::string strict(const std::vector<json::value> &events)
{
    // Metadata: the last of each kind per process (process_*) or thread (thread_*).
    using key = std::tuple<std::string, int64_t, int64_t>;
    std::map<key, size_t> last;
    std::vector<size_t> order; // the others, by timestamp
    for (size_t i = 0; i < events.size(); ++i) {
        const json::value &e = events[i];
        if (e.find("ph")->as_string() != "M") {
            order.push_back(i);
            continue;
        }
        const std::string &name = e.find("name")->as_string();
        const int64_t tid = name.rfind("thread_", 0) == 0 ? e.find("tid")->as_int() : 0;
        last[key{name, e.find("pid")->as_int(), tid}] = i;
    }
    std::vector<size_t> meta;
    for (const auto &[k, i] : last)
        meta.push_back(i);
    std::sort(meta.begin(), meta.end());
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return events[a].find("ts")->as_double() < events[b].find("ts")->as_double();
    });
    std::string out = "{\"traceEvents\":[\n";
    bool first = true;
    for (const auto *list : {&meta, &order}) {
        for (size_t i : *list) {
            if (!first)
                out += ",\n";
            first = false;
            out += json::dump(events[i], 0);
        }
    }
    out += "\n]}\n";
    return out;
}

} // namespace softcomch::trace_file
