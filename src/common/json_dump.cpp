// SPDX-License-Identifier: Apache-2.0
//
// json::dump (common/json.hpp): the writer, compact or pretty-printed.
#include "common/json.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace softcomch::json {
namespace {

void write_string(std::string &out, const std::string &s)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20 || c == 0x7f) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 0xf];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

void write_double(std::string &out, double d)
{
    if (!std::isfinite(d)) {
        out += "null";
        return;
    }
    char buf[64];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
    if (ec != std::errc()) {
        out += "null";
        return;
    }
    std::string_view text(buf, static_cast<size_t>(p - buf));
    out += text;
    // Keep it a double when re-parsed: "1" -> "1.0" (but "1e+30" already is one).
    if (text.find_first_of(".eE") == std::string_view::npos)
        out += ".0";
}

void write_value(std::string &out, const value &v, int indent, int level)
{
    auto newline = [&](int lvl) {
        if (indent > 0) {
            out += '\n';
            out.append(static_cast<size_t>(indent) * static_cast<size_t>(lvl), ' ');
        }
    };
    // `n` items between `open` and `close`, each on a line of its own at `level + 1` (when
    // indenting) after a comma but the first; "[]" or "{}" when there are none.
    auto container = [&](char open, char close, size_t n, auto &&item) {
        out += open;
        if (n == 0) {
            out += close;
            return;
        }
        for (size_t i = 0; i < n; ++i) {
            if (i)
                out += ',';
            newline(level + 1);
            item(i);
        }
        newline(level);
        out += close;
    };
    if (v.is_null()) {
        out += "null";
    } else if (v.is_bool()) {
        out += v.as_bool() ? "true" : "false";
    } else if (v.is_int()) {
        out += std::to_string(v.as_int());
    } else if (v.is_double()) {
        write_double(out, v.as_double());
    } else if (v.is_string()) {
        write_string(out, v.as_string());
    } else if (v.is_array()) {
        const auto &a = v.elements();
        container('[', ']', a.size(), [&](size_t i) { write_value(out, a[i], indent, level + 1); });
    } else {
        const auto &o = v.items();
        container('{', '}', o.size(), [&](size_t i) {
            write_string(out, o[i].first);
            out += indent > 0 ? ": " : ":";
            write_value(out, o[i].second, indent, level + 1);
        });
    }
}

} // namespace

std::string dump(const value &v, int indent)
{
    std::string out;
    write_value(out, v, indent, 0);
    return out;
}

} // namespace softcomch::json
