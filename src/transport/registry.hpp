// SPDX-License-Identifier: Apache-2.0
//
// The transports of this build (docs/transport_boundary.md). Adding one is a folder under
// src/transport/ with a traits type like shm::traits (its transport_ops and its concrete link,
// consumer_endpoint and remote_consumer) and one line in `transports` below; src/comch does not
// change. SOFTCOMCH_TRANSPORT selects by name (registry.cpp); the first one is the default.
//
// with_concrete(obj, fn) calls fn with the concrete class of `obj` (a transport::link,
// consumer_endpoint or remote_consumer), so the code of Comch that moves messages is
// instantiated for each transport and makes no virtual call. With one transport it is a plain
// static_cast; with several, one comparison per transport before the call.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "transport/shm/shm.hpp"
#include "transport/transport.hpp"

namespace softcomch::transport {

using transports = std::tuple<shm::traits>;

namespace detail {

template <class T, class Base> struct concrete;
template <class T> struct concrete<T, link> {
    using type = typename T::link;
};
template <class T> struct concrete<T, consumer_endpoint> {
    using type = typename T::consumer_endpoint;
};
template <class T> struct concrete<T, remote_consumer> {
    using type = typename T::remote_consumer;
};

template <class T> constexpr bool satisfies_data_path() noexcept
{
    return link_data_path<typename T::link> && consumer_data_path<typename T::consumer_endpoint> &&
           remote_consumer_data_path<typename T::remote_consumer>;
}
static_assert([]<size_t... I>(std::index_sequence<I...>) {
    return (satisfies_data_path<std::tuple_element_t<I, transports>>() && ...);
}(std::make_index_sequence<std::tuple_size_v<transports>>()));

} // namespace detail

template <size_t I = 0, class Base, class Fn>
[[gnu::always_inline]] inline decltype(auto) with_concrete(Base &obj, Fn &&fn)
{
    using T = std::tuple_element_t<I, transports>;
    using D = typename detail::concrete<T, std::remove_const_t<Base>>::type;
    using C = std::conditional_t<std::is_const_v<Base>, const D, D>;
    if constexpr (I + 1 == std::tuple_size_v<transports>) {
        // The last (or only) transport: every object comes from one of them.
        return std::forward<Fn>(fn)(static_cast<C &>(obj));
    } else {
        if (&obj.ops() == &T::ops())
            return std::forward<Fn>(fn)(static_cast<C &>(obj));
        return with_concrete<I + 1>(obj, std::forward<Fn>(fn));
    }
}

} // namespace softcomch::transport
