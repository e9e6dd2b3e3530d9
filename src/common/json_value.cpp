// SPDX-License-Identifier: Apache-2.0
//
// json::value (common/json.hpp): construction, type queries, access and building. The parser is
// in json_parse.cpp, the writer in json_dump.cpp.
#include "common/json.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace softcomch::json {

value::value(unsigned long i) noexcept
{
    if (i <= static_cast<unsigned long>(std::numeric_limits<int64_t>::max()))
        v_ = static_cast<int64_t>(i);
    else
        v_ = static_cast<double>(i);
}

value::value(unsigned long long i) noexcept
{
    if (i <= static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()))
        v_ = static_cast<int64_t>(i);
    else
        v_ = static_cast<double>(i);
}

const char *value::type_name() const noexcept
{
    switch (v_.index()) {
    case 0:
        return "null";
    case 1:
        return "bool";
    case 2:
        return "integer";
    case 3:
        return "number";
    case 4:
        return "string";
    case 5:
        return "array";
    default:
        return "object";
    }
}

namespace {
[[noreturn]] void wrong_type(const value &v, const char *wanted)
{
    throw type_error(std::string("json: expected ") + wanted + ", have " + v.type_name());
}
} // namespace

bool value::as_bool() const
{
    if (const bool *b = std::get_if<bool>(&v_))
        return *b;
    wrong_type(*this, "bool");
}

int64_t value::as_int() const
{
    if (const int64_t *i = std::get_if<int64_t>(&v_))
        return *i;
    if (const double *d = std::get_if<double>(&v_)) {
        // 2^63 is exactly representable; anything >= it does not fit.
        if (std::isfinite(*d) && std::trunc(*d) == *d && *d >= -9223372036854775808.0 &&
            *d < 9223372036854775808.0)
            return static_cast<int64_t>(*d);
        wrong_type(*this, "integral number");
    }
    wrong_type(*this, "integer");
}

double value::as_double() const
{
    if (const double *d = std::get_if<double>(&v_))
        return *d;
    if (const int64_t *i = std::get_if<int64_t>(&v_))
        return static_cast<double>(*i);
    wrong_type(*this, "number");
}

const std::string &value::as_string() const
{
    if (const std::string *s = std::get_if<std::string>(&v_))
        return *s;
    wrong_type(*this, "string");
}

const value *value::find(std::string_view key) const noexcept
{
    const object_type *o = std::get_if<object_type>(&v_);
    if (!o)
        return nullptr;
    for (const member &m : *o)
        if (m.first == key)
            return &m.second;
    return nullptr;
}

value *value::find(std::string_view key) noexcept
{
    return const_cast<value *>(static_cast<const value *>(this)->find(key));
}

size_t value::size() const noexcept
{
    if (const array_type *a = std::get_if<array_type>(&v_))
        return a->size();
    if (const object_type *o = std::get_if<object_type>(&v_))
        return o->size();
    return 0;
}

const value &value::operator[](size_t i) const
{
    const array_type &a = elements();
    if (i >= a.size())
        throw std::out_of_range("json: array index " + std::to_string(i) + " out of range (size " +
                                std::to_string(a.size()) + ")");
    return a[i];
}

value &value::operator[](size_t i)
{
    return const_cast<value &>(static_cast<const value &>(*this)[i]);
}

const value::array_type &value::elements() const
{
    if (const array_type *a = std::get_if<array_type>(&v_))
        return *a;
    wrong_type(*this, "array");
}

const value::object_type &value::items() const
{
    if (const object_type *o = std::get_if<object_type>(&v_))
        return *o;
    wrong_type(*this, "object");
}

value &value::set(std::string key, value v)
{
    if (is_null())
        v_ = object_type{};
    object_type *o = std::get_if<object_type>(&v_);
    if (!o)
        wrong_type(*this, "object");
    for (member &m : *o) {
        if (m.first == key) {
            m.second = std::move(v);
            return *this;
        }
    }
    o->emplace_back(std::move(key), std::move(v));
    return *this;
}

value &value::push_back(value v)
{
    if (is_null())
        v_ = array_type{};
    array_type *a = std::get_if<array_type>(&v_);
    if (!a)
        wrong_type(*this, "array");
    a->push_back(std::move(v));
    return *this;
}

} // namespace softcomch::json
