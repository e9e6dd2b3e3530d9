// SPDX-License-Identifier: Apache-2.0
//
// Log levels (log_backend.hpp): which values a limit and a line may take, their tokens in a line,
// and parsing a level from text (argp's flags, SOFTCOMCH_LOG_LEVEL).
#include "common/log.hpp"
#include "common/log_backend.hpp"

namespace softcomch::log {

bool valid_limit(uint32_t level) noexcept
{
    return level >= disable && level <= trace;
}

bool valid_line_level(uint32_t level) noexcept
{
    return level >= crit && level <= trace;
}

const char *level_token(uint32_t level) noexcept
{
    // The token of the first level at least as verbose as `level`.
    static constexpr struct {
        uint32_t up_to;
        const char *token;
    } tokens[] = {{disable, "DIS"}, {crit, "CRT"}, {error, "ERR"},
                  {warning, "WRN"}, {info, "INF"}, {debug, "DBG"}};
    for (const auto &t : tokens)
        if (level <= t.up_to)
            return t.token;
    return "TRC";
}

bool parse_level(std::string_view text, uint32_t *level) noexcept
{
    if (text.empty())
        return false;
    if (text.front() >= '0' && text.front() <= '9') {
        uint32_t v = 0;
        for (char c : text) {
            if (c < '0' || c > '9' || v > 1000)
                return false;
            v = v * 10 + uint32_t(c - '0');
        }
        if (!valid_limit(v))
            return false;
        *level = v;
        return true;
    }
    static constexpr struct {
        const char *name;
        uint32_t value;
    } names[] = {{"disable", disable}, {"crit", crit},    {"critical", crit},   {"err", error},
                 {"error", error},     {"warn", warning}, {"warning", warning}, {"info", info},
                 {"dbg", debug},       {"debug", debug},  {"trc", trace},       {"trace", trace}};
    for (const auto &n : names) {
        const std::string_view name(n.name);
        if (name.size() != text.size())
            continue;
        bool same = true;
        for (size_t i = 0; i < name.size() && same; ++i) {
            char c = text[i];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            same = c == name[i];
        }
        if (same) {
            *level = n.value;
            return true;
        }
    }
    return false;
}

} // namespace softcomch::log
