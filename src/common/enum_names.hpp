// SPDX-License-Identifier: Apache-2.0
//
// One table of names per enumeration, read both ways: the name of a value (for logs and reports)
// and the value of a name (for an environment knob). The two cannot disagree, and a knob gains a
// value by gaining a row.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace softcomch {

template <typename E> struct enum_name {
    E value;
    const char *name;
};

// The name of `v` in `table`, or "?" for a value the table lacks.
template <typename E, size_t N>
constexpr const char *name_of(const enum_name<E> (&table)[N], E v) noexcept
{
    for (const enum_name<E> &row : table)
        if (row.value == v)
            return row.name;
    return "?";
}

// The value named `name` (exactly: case matters) into *out; false, *out untouched, if none is.
template <typename E, size_t N>
bool value_of(const enum_name<E> (&table)[N], const char *name, E *out) noexcept
{
    for (const enum_name<E> &row : table)
        if (std::strcmp(row.name, name) == 0) {
            *out = row.value;
            return true;
        }
    return false;
}

// The value environment variable `env` names into *out: `fallback` when it is unset or empty;
// false, *out untouched, when it names no row of `table`. Read at each call.
template <typename E, size_t N>
bool value_from_env(const enum_name<E> (&table)[N], const char *env, E fallback, E *out) noexcept
{
    const char *v = std::getenv(env);
    if (v == nullptr || *v == '\0') {
        *out = fallback;
        return true;
    }
    return value_of(table, v, out);
}

} // namespace softcomch
