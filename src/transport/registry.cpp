// SPDX-License-Identifier: Apache-2.0
//
// The one selection point (docs/transport_boundary.md): SOFTCOMCH_TRANSPORT names one of the
// transports listed in registry.hpp.
#include "transport/registry.hpp"

#include <array>
#include <cstdlib>

namespace softcomch::transport {

namespace {

// The operations of every transport, in registry order.
const auto &table() noexcept
{
    static const auto t = []<size_t... I>(std::index_sequence<I...>)
    {
        return std::array<const transport_ops *, sizeof...(I)>{
            &std::tuple_element_t<I, transports>::ops()...};
    }
    (std::make_index_sequence<std::tuple_size_v<transports>>());
    return t;
}

} // namespace

const transport_ops *find_transport(std::string_view name) noexcept
{
    for (const transport_ops *t : table())
        if (name == t->name)
            return t;
    return nullptr;
}

doca_error_t select_transport(const transport_ops *&out, std::string &why)
{
    // Read on every call (control path only), like the other knobs: tests change it at run time.
    const char *v = std::getenv(k_transport_env);
    if (v == nullptr || *v == '\0') {
        out = table().front();
        return DOCA_SUCCESS;
    }
    if (const transport_ops *t = find_transport(v)) {
        out = t;
        return DOCA_SUCCESS;
    }
    std::string names;
    for (const transport_ops *t : table())
        names += std::string(names.empty() ? "" : ", ") + t->name;
    why = std::string(k_transport_env) + " is \"" + v +
          "\", which is not a transport of this build (known: " + names + ")";
    return DOCA_ERROR_BAD_CONFIG;
}

} // namespace softcomch::transport
