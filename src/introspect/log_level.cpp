// SPDX-License-Identifier: Apache-2.0
#include "introspect/log_level.hpp"

#include "common/log_backend.hpp"

namespace softcomch::introspect {

std::optional<log_level> parse_log_level(std::string_view text)
{
    uint32_t level = 0;
    if (!log::parse_level(text, &level))
        return std::nullopt;
    return log_level{level, log::level_token(level)};
}

} // namespace softcomch::introspect
