// SPDX-License-Identifier: Apache-2.0
//
// Fixed-width hexadecimal fields (PCI addresses, %XX escapes): the one hex parser of src/.
#pragma once

#include <charconv>
#include <cstddef>

namespace softcomch {

// The value of exactly `n` (at most 8) hex digits at `p`, without sign or prefix; -1 when any of
// them is not a hex digit. The caller guarantees that `n` characters are readable.
inline long hex_field(const char *p, size_t n) noexcept
{
    unsigned long v = 0;
    const auto [end, ec] = std::from_chars(p, p + n, v, 16);
    return ec == std::errc{} && end == p + n ? static_cast<long>(v) : -1;
}

} // namespace softcomch
