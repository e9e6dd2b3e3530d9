// SPDX-License-Identifier: Apache-2.0
//
// A small, strict JSON (RFC 8259) value, parser and writer. Used for the topology file
// (SOFTCOMCH_TOPOLOGY), argp's -j/--json configuration files and `softcomch caps --json`.
//
//   std::string err;
//   json::value v = json::parse(text, &err);
//   if (!err.empty()) { ... "3:14: expected ',' or '}' after an object member" ... }
//   if (const json::value *p = v.find("pci"); p && p->is_string()) use(p->as_string());
//
//   json::value out = json::value::object();
//   out.set("name", "mlx5_0").set("max_msg_size", 4080);
//   std::string text = json::dump(out);
//
// Parser rules (strict on purpose: a configuration typo must be an error, not a surprise):
// - exactly one value, optionally surrounded by whitespace (space, tab, CR, LF); nothing after it;
// - no comments, no trailing commas, no single quotes, no NaN/Infinity, no leading zeros, no '+';
// - strings must be valid UTF-8 without raw control characters; escapes \" \\ \/ \b \f \n \r \t
//   and \uXXXX (surrogate pairs must be complete); the result is stored as UTF-8;
// - an object must not repeat a key;
// - nesting deeper than max_depth (arrays + objects) is refused;
// - numbers: a literal without fraction or exponent that fits in int64 is an integer, anything
//   else a double (an out-of-range literal is an error, not infinity).
// Errors are reported as "<line>:<column>: <problem>", both counted from 1, column in bytes.
//
// Objects keep their members in insertion (file) order, so dump(parse(x)) keeps x's order.
// Thread safety: none inside a value; distinct values are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/visibility.hpp"

namespace softcomch::json {

// Thrown by the as_* accessors on a value of another type (a programming error: check is_*).
// Not exported: src/argp/parse_json.cpp catches it with a typeinfo of its own, which matches the
// library's by name (the C++ ABI's type_info equality), so nothing of it need leave libsoftcomch.
class type_error : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

class value {
public:
    using array_type = std::vector<value>;
    using member = std::pair<std::string, value>;
    using object_type = std::vector<member>;

    // ---- construction ----
    value() noexcept = default;                     // null
    value(std::nullptr_t) noexcept {}               // null
    value(bool b) noexcept : v_(b) {}               // NOLINT: implicit on purpose (builders)
    value(int i) noexcept : v_(int64_t{i}) {}       // NOLINT
    value(unsigned i) noexcept : v_(int64_t{i}) {}  // NOLINT
    value(long i) noexcept : v_(int64_t{i}) {}      // NOLINT
    value(long long i) noexcept : v_(int64_t{i}) {} // NOLINT
    // Unsigned 64-bit: stored as an integer when it fits in int64, else as a double.
    SOFTCOMCH_API value(unsigned long i) noexcept;      // NOLINT
    value(unsigned long long i) noexcept;               // NOLINT
    value(double d) noexcept : v_(d) {}                 // NOLINT
    value(const char *s) : v_(std::string(s)) {}        // NOLINT
    value(std::string s) noexcept : v_(std::move(s)) {} // NOLINT
    value(std::string_view s) : v_(std::string(s)) {}   // NOLINT

    static value object()
    {
        value v;
        v.v_ = object_type{};
        return v;
    }
    static value array()
    {
        value v;
        v.v_ = array_type{};
        return v;
    }

    // ---- type queries ----
    bool is_null() const noexcept { return std::holds_alternative<std::monostate>(v_); }
    bool is_bool() const noexcept { return std::holds_alternative<bool>(v_); }
    bool is_number() const noexcept { return is_int() || is_double(); }
    bool is_int() const noexcept { return std::holds_alternative<int64_t>(v_); } // integer literal
    bool is_double() const noexcept
    {
        return std::holds_alternative<double>(v_);
    } // any other number
    bool is_string() const noexcept { return std::holds_alternative<std::string>(v_); }
    bool is_array() const noexcept { return std::holds_alternative<array_type>(v_); }
    bool is_object() const noexcept { return std::holds_alternative<object_type>(v_); }
    // "null", "bool", "integer", "number", "string", "array" or "object" (for error messages).
    SOFTCOMCH_API const char *type_name() const noexcept;

    // ---- access (throw type_error on the wrong type) ----
    SOFTCOMCH_API bool as_bool() const;
    // An integer; a double is accepted only when it holds an integral value in int64 range.
    SOFTCOMCH_API int64_t as_int() const;
    // Any number (integers are converted).
    SOFTCOMCH_API double as_double() const;
    SOFTCOMCH_API const std::string &as_string() const;

    // Objects: the member named `key`, or nullptr (also nullptr when this is not an object).
    SOFTCOMCH_API const value *find(std::string_view key) const noexcept;
    SOFTCOMCH_API value *find(std::string_view key) noexcept;
    // Arrays and objects: number of elements / members; 0 for every other type.
    SOFTCOMCH_API size_t size() const noexcept;
    // Arrays: element i (std::out_of_range past the end; type_error if not an array).
    SOFTCOMCH_API const value &operator[](size_t i) const;
    SOFTCOMCH_API value &operator[](size_t i);
    // Arrays: all elements (type_error if not an array).
    SOFTCOMCH_API const array_type &elements() const;
    // Objects: all members in insertion order (type_error if not an object).
    SOFTCOMCH_API const object_type &items() const;

    // ---- building ----
    // Objects: sets `key` (replacing an existing member in place, keeping its position, or
    // appending). A null value becomes an empty object first. Returns *this for chaining.
    SOFTCOMCH_API value &set(std::string key, value v);
    // Arrays: appends. A null value becomes an empty array first. Returns *this for chaining.
    SOFTCOMCH_API value &push_back(value v);

    // Deep structural equality (an integer never equals a double, as in the file text).
    friend bool operator==(const value &a, const value &b) noexcept { return a.v_ == b.v_; }

private:
    std::variant<std::monostate, bool, int64_t, double, std::string, array_type, object_type> v_;
};

// Deepest nesting of arrays/objects parse() accepts.
inline constexpr int max_depth = 128;

// Parses one JSON text. On success returns the value and clears *error; on failure returns null
// and sets *error to "<line>:<column>: <problem>". `error` may be nullptr (then a failure is
// indistinguishable from a document that is `null`).
SOFTCOMCH_API value parse(std::string_view text, std::string *error);

// Writes `v` as JSON. indent > 0: pretty-printed with that many spaces per level, one element
// or member per line; indent <= 0: compact, on one line without spaces. Doubles are written in
// shortest round-trip form and always re-parse as doubles (1.0 -> "1.0"); NaN and infinities
// become null. Strings are written as UTF-8 with control characters, '"' and '\' escaped.
// No trailing newline.
SOFTCOMCH_API std::string dump(const value &v, int indent = 2);

} // namespace softcomch::json
