// SPDX-License-Identifier: Apache-2.0
//
// For the compatibility layers (src/compat/*): an older generation's function is its current
// twin with other type names. The types are the same objects under other tags (struct doca_cc_X
// is struct doca_comch_X; a callback type takes the same arguments under other tags), so each
// argument converts to the twin's parameter type by reinterpretation, and the result back.
// Public headers only: a compatibility layer sits on the public API, as a program does.
#pragma once

#include <type_traits>
#include <utility>

namespace softcomch::compat {

template <class To, class From> inline To pun(From v) noexcept
{
    if constexpr (std::is_same_v<To, From>) {
        return v;
    } else if constexpr (std::is_enum_v<To> || std::is_enum_v<From> || std::is_arithmetic_v<To>) {
        return static_cast<To>(v);
    } else if constexpr (std::is_pointer_v<From> &&
                         std::is_function_v<std::remove_pointer_t<From>>) {
        // A callback: the same calling convention, argument tags aside.
        return reinterpret_cast<To>(reinterpret_cast<void (*)()>(v));
    } else if constexpr (std::is_null_pointer_v<From>) {
        return nullptr;
    } else {
        // An object pointer. 2.6 returned some buffers non-const that 3.0 returns const: the
        // buffer is the program's either way.
        using bare = std::remove_const_t<std::remove_pointer_t<From>>;
        return reinterpret_cast<To>(const_cast<bare *>(v));
    }
}

// Calls `fn` with each argument converted to its parameter type; the result converted to Ret.
template <class Ret, class R, class... P, class... A>
inline Ret forward(R (*fn)(P...), A... a) noexcept
{
    static_assert(sizeof...(P) == sizeof...(A), "the twin takes as many arguments");
    if constexpr (std::is_void_v<Ret>)
        fn(pun<P>(a)...);
    else
        return pun<Ret>(fn(pun<P>(a)...));
}

} // namespace softcomch::compat
