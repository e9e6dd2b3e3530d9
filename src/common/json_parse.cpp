// SPDX-License-Identifier: Apache-2.0
//
// json::parse (common/json.hpp): the strict RFC 8259 parser, its rules and "<line>:<column>"
// messages as json.hpp states them.
#include "common/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace softcomch::json {
namespace {

struct parse_error {
    size_t pos;
    std::string what;
};

class parser {
public:
    explicit parser(std::string_view text) noexcept : s_(text) {}

    value document()
    {
        skip_ws();
        value v = parse_value(0);
        skip_ws();
        if (pos_ != s_.size())
            fail("unexpected " + describe_here() + " after the JSON value");
        return v;
    }

    // Converts a byte offset into "line:column".
    static std::string position(std::string_view s, size_t pos)
    {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < pos && i < s.size(); ++i) {
            if (s[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        return std::to_string(line) + ":" + std::to_string(col);
    }

private:
    [[noreturn]] void fail(std::string what) const { throw parse_error{pos_, std::move(what)}; }
    [[noreturn]] void fail_at(size_t pos, std::string what) const
    {
        throw parse_error{pos, std::move(what)};
    }

    std::string describe_here() const
    {
        if (pos_ >= s_.size())
            return "end of input";
        unsigned char c = static_cast<unsigned char>(s_[pos_]);
        if (c >= 0x20 && c < 0x7f)
            return std::string("'") + static_cast<char>(c) + "'";
        char buf[16];
        std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
        return buf;
    }

    bool at_end() const noexcept { return pos_ >= s_.size(); }
    char peek() const noexcept { return at_end() ? '\0' : s_[pos_]; }

    void skip_ws() noexcept
    {
        while (!at_end()) {
            char c = s_[pos_];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                break;
            ++pos_;
        }
    }

    void expect_literal(std::string_view lit)
    {
        if (s_.substr(pos_, lit.size()) != lit)
            fail("invalid literal (expected '" + std::string(lit) + "')");
        pos_ += lit.size();
    }

    value parse_value(int depth)
    {
        switch (peek()) {
        case '{':
            return parse_object(depth + 1);
        case '[':
            return parse_array(depth + 1);
        case '"':
            return value(parse_string());
        case 't':
            expect_literal("true");
            return value(true);
        case 'f':
            expect_literal("false");
            return value(false);
        case 'n':
            expect_literal("null");
            return value();
        case '-':
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
            return parse_number();
        default:
            if (at_end())
                fail("unexpected end of input, expected a value");
            fail("unexpected " + describe_here() + ", expected a value");
        }
    }

    // Past the opening bracket of a container at `depth`: true when `close` follows at once (the
    // empty container; consumed).
    bool open_container(int depth, char close)
    {
        if (depth > max_depth)
            fail("nesting deeper than " + std::to_string(max_depth) + " levels");
        ++pos_; // '{' or '['
        skip_ws();
        if (peek() != close)
            return false;
        ++pos_;
        return true;
    }

    // After a member or an element (`after` names it): true on ',' (another one follows; the
    // white space after it skipped), false on `close` (the container ends; consumed); anything
    // else, a trailing comma included, fails.
    bool next_in_container(char close, const char *after)
    {
        skip_ws();
        if (peek() == ',') {
            ++pos_;
            skip_ws();
            if (peek() == close)
                fail(std::string("trailing comma before '") + close + "'");
            return true;
        }
        if (peek() == close) {
            ++pos_;
            return false;
        }
        fail(std::string("expected ',' or '") + close + "' after " + after + ", found " +
             describe_here());
    }

    // A container at `depth`, past its opening bracket: `item()` for each member or element (the
    // white space before it skipped), separated by commas, until `close`.
    template <typename Item> void parse_items(int depth, char close, const char *after, Item &&item)
    {
        if (open_container(depth, close))
            return;
        do {
            skip_ws();
            item();
        } while (next_in_container(close, after));
    }

    value parse_object(int depth)
    {
        value obj = value::object();
        parse_items(depth, '}', "an object member", [&] {
            if (peek() != '"')
                fail("expected a string (member name), found " + describe_here());
            size_t key_pos = pos_;
            std::string key = parse_string();
            if (obj.find(key))
                fail_at(key_pos, "duplicate member name \"" + key + "\"");
            skip_ws();
            if (peek() != ':')
                fail("expected ':' after member name, found " + describe_here());
            ++pos_;
            skip_ws();
            value v = parse_value(depth);
            obj.set(std::move(key), std::move(v));
        });
        return obj;
    }

    value parse_array(int depth)
    {
        value arr = value::array();
        parse_items(depth, ']', "an array element", [&] { arr.push_back(parse_value(depth)); });
        return arr;
    }

    unsigned hex4()
    {
        if (s_.size() - pos_ < 4)
            fail("truncated \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = s_[pos_];
            v <<= 4;
            if (c >= '0' && c <= '9')
                v |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f')
                v |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                v |= static_cast<unsigned>(c - 'A' + 10);
            else
                fail("invalid hex digit in \\u escape");
            ++pos_;
        }
        return v;
    }

    static void append_utf8(std::string &out, unsigned cp)
    {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xf0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    // Validates one UTF-8 sequence starting at pos_ (a lead byte >= 0x80) and copies it.
    void copy_utf8(std::string &out)
    {
        auto byte = [&](size_t i) {
            return static_cast<unsigned char>(s_[i]);
        };
        unsigned char c = byte(pos_);
        size_t n;
        unsigned cp;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 2;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            cp = c & 0x07;
        } else {
            fail("invalid UTF-8 in string");
        }
        if (s_.size() - pos_ < n)
            fail("truncated UTF-8 sequence in string");
        for (size_t i = 1; i < n; ++i) {
            unsigned char cc = byte(pos_ + i);
            if ((cc & 0xc0) != 0x80)
                fail("invalid UTF-8 in string");
            cp = (cp << 6) | (cc & 0x3f);
        }
        // Reject overlong forms, surrogates and code points above U+10FFFF.
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            fail("invalid UTF-8 in string");
        out.append(s_.substr(pos_, n));
        pos_ += n;
    }

    std::string parse_string()
    {
        ++pos_; // opening quote
        std::string out;
        for (;;) {
            if (at_end())
                fail("unterminated string");
            unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c < 0x20)
                fail("raw control character in string (use an escape such as \\n)");
            if (c >= 0x80) {
                copy_utf8(out);
                continue;
            }
            if (c != '\\') {
                out += static_cast<char>(c);
                ++pos_;
                continue;
            }
            size_t esc_pos = pos_;
            ++pos_;
            if (at_end())
                fail("unterminated string");
            char e = s_[pos_++];
            switch (e) {
            case '"':
                out += '"';
                break;
            case '\\':
                out += '\\';
                break;
            case '/':
                out += '/';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xdc00 && cp <= 0xdfff)
                    fail_at(esc_pos, "unpaired low surrogate in \\u escape");
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    if (s_.substr(pos_, 2) != "\\u")
                        fail_at(esc_pos, "unpaired high surrogate in \\u escape");
                    pos_ += 2;
                    unsigned lo = hex4();
                    if (lo < 0xdc00 || lo > 0xdfff)
                        fail_at(esc_pos, "unpaired high surrogate in \\u escape");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                append_utf8(out, cp);
                break;
            }
            default:
                fail_at(esc_pos, std::string("invalid escape '\\") +
                                     (static_cast<unsigned char>(e) >= 0x20 &&
                                              static_cast<unsigned char>(e) < 0x7f
                                          ? std::string(1, e)
                                          : std::string("?")) +
                                     "'");
            }
        }
    }

    static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

    value parse_number()
    {
        size_t start = pos_;
        bool integral = true;
        if (peek() == '-')
            ++pos_;
        if (peek() == '0') {
            ++pos_;
            if (is_digit(peek()))
                fail("leading zeros are not allowed in numbers");
        } else if (is_digit(peek())) {
            while (is_digit(peek()))
                ++pos_;
        } else {
            fail("expected a digit");
        }
        if (peek() == '.') {
            integral = false;
            ++pos_;
            if (!is_digit(peek()))
                fail("expected a digit after the decimal point");
            while (is_digit(peek()))
                ++pos_;
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            ++pos_;
            if (peek() == '+' || peek() == '-')
                ++pos_;
            if (!is_digit(peek()))
                fail("expected a digit in the exponent");
            while (is_digit(peek()))
                ++pos_;
        }
        const char *first = s_.data() + start;
        const char *last = s_.data() + pos_;
        if (integral) {
            int64_t i = 0;
            auto [p, ec] = std::from_chars(first, last, i);
            if (ec == std::errc() && p == last)
                return value(i);
            // Integer literal out of int64 range: keep it as a double (it is still a number).
        }
        double d = 0;
        auto [p, ec] = std::from_chars(first, last, d);
        if (ec == std::errc::result_out_of_range) {
            // Underflow (a large negative exponent) rounds to zero, as JSON parsers do;
            // overflow would be infinity, which JSON cannot represent: refuse it.
            std::string_view lit(first, static_cast<size_t>(last - first));
            size_t e = lit.find_first_of("eE");
            if (e != std::string_view::npos && e + 1 < lit.size() && lit[e + 1] == '-')
                return value(lit[0] == '-' ? -0.0 : 0.0);
            fail_at(start, "number out of range");
        }
        if (ec != std::errc() || p != last || !std::isfinite(d))
            fail_at(start, "number out of range");
        return value(d);
    }

    std::string_view s_;
    size_t pos_ = 0;
};

} // namespace

value parse(std::string_view text, std::string *error)
{
    parser p(text);
    try {
        value v = p.document();
        if (error)
            error->clear();
        return v;
    } catch (const parse_error &e) {
        if (error)
            *error = parser::position(text, e.pos) + ": " + e.what;
        return value();
    }
}

} // namespace softcomch::json
