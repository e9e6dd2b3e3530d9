// SPDX-License-Identifier: Apache-2.0
//
// Wording helpers of the doctor's checks.
#include <cstdio>
#include <cstdlib>

#include "doctor.hpp"

namespace softcomch::tools::doctor {

std::optional<std::string> env_value(const char *name)
{
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0')
        return std::nullopt;
    return std::string(v);
}

std::string in_quotes(const std::string &s)
{
    return "\"" + s + "\"";
}

std::string bytes_text(uint64_t n)
{
    char buf[32];
    if (n >= (uint64_t(1) << 30) && n % (uint64_t(1) << 30) == 0)
        std::snprintf(buf, sizeof buf, "%llu GiB", static_cast<unsigned long long>(n >> 30));
    else if (n >= (uint64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.0f MiB", double(n) / double(1 << 20));
    else if (n >= 1024)
        std::snprintf(buf, sizeof buf, "%.0f KiB", double(n) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
    return buf;
}

} // namespace softcomch::tools::doctor
