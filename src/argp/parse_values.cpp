// SPDX-License-Identifier: Apache-2.0
//
// A flag's value from text (argp/parser.hpp).
#include "argp/parser.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace softcomch::argp {

std::string display_name(const doca_argp_param &p)
{
    return !p.long_name_.empty() ? "--" + p.long_name_ : "-" + p.short_name_;
}

bool parse_int(std::string_view text, int *out) noexcept
{
    if (text.empty() || !(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9')))
        return false;
    const std::string copy(text);
    errno = 0;
    char *end = nullptr;
    const long v = std::strtol(copy.c_str(), &end, 10);
    if (errno != 0 || end == copy.c_str() || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = int(v);
    return true;
}

bool parse_double(std::string_view text, double *out) noexcept
{
    if (text.empty() || text[0] == ' ' || text[0] == '\t')
        return false;
    const std::string copy(text);
    errno = 0;
    char *end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (errno != 0 || end == copy.c_str() || *end != '\0' || !std::isfinite(v))
        return false;
    *out = v;
    return true;
}

bool parse_bool(std::string_view text, bool *out) noexcept
{
    auto is = [&](const char *word) {
        if (text.size() != std::strlen(word))
            return false;
        for (size_t k = 0; k < text.size(); ++k) {
            char c = text[k];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            if (c != word[k])
                return false;
        }
        return true;
    };
    if (is("true") || is("1") || is("yes")) {
        *out = true;
        return true;
    }
    if (is("false") || is("0") || is("no")) {
        *out = false;
        return true;
    }
    return false;
}

} // namespace softcomch::argp
