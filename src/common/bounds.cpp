// SPDX-License-Identifier: Apache-2.0
#include "common/bounds.hpp"

#include <cstdlib>

namespace softcomch::bounds {

bool read(const knob &k, uint64_t &out, std::string &why)
{
    const char *env = std::getenv(k.env);
    if (env == nullptr || *env == '\0') {
        out = k.fallback;
        return true;
    }
    uint64_t v = 0;
    bool ok = true;
    for (const char *p = env; *p && ok; ++p) {
        ok = *p >= '0' && *p <= '9' && v <= (k.max - uint64_t(*p - '0')) / 10;
        v = v * 10 + uint64_t(*p - '0');
    }
    ok = ok && v <= k.max && (v >= k.min || (v == 0 && k.zero_off));
    if (ok) {
        out = v;
        return true;
    }
    why = std::string(k.env) + "=\"" + env + "\" is not a valid " + k.meaning + ": expected " +
          (k.zero_off ? "0 (off) or " : "") + std::to_string(k.min) + ".." + std::to_string(k.max) +
          " " + k.unit;
    return false;
}

} // namespace softcomch::bounds
