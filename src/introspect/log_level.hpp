// SPDX-License-Identifier: Apache-2.0
//
// The introspection API (fabric.hpp says what it is): the SDK log level a SOFTCOMCH_LOG_LEVEL
// value sets, read by the log backend registry's own parser (common/log_backend.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace softcomch::introspect {

struct log_level {
    uint32_t value = 0; // DOCA_LOG_LEVEL_* (10..70)
    std::string token;  // "CRT", "ERR", "WRN", "INF", "DBG", "TRC" or "DIS"
};
// "10".."70" or a level name; nullopt for anything the library ignores.
std::optional<log_level> parse_log_level(std::string_view text);

} // namespace softcomch::introspect
