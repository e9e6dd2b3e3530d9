// SPDX-License-Identifier: Apache-2.0
//
// The definitions of fastpath_checks.hpp.
#include "fastpath_checks.hpp"

#include <cstdarg>
#include <cstdlib>

namespace sc_test::fp {

std::string err_name(doca_error_t e)
{
    const char *n = doca_error_get_name(e);
    return n ? n : ("doca_error(" + std::to_string(int(e)) + ")");
}

std::string state_name(doca_ctx_states s)
{
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "state(" + std::to_string(int(s)) + ")";
}

std::string show(doca_error_t e)
{
    return err_name(e);
}
std::string show(doca_ctx_states s)
{
    return state_name(s);
}
std::string show(bool b)
{
    return b ? "true" : "false";
}
std::string show(const std::string &s)
{
    return '"' + s + '"';
}
std::string show(const char *s)
{
    return s ? show(std::string(s)) : "(null)";
}
std::string show(const void *p)
{
    char b[32];
    std::snprintf(b, sizeof b, "%p", p);
    return b;
}

uint64_t parse_u64(const std::string &s)
{
    return std::strtoull(s.c_str(), nullptr, 10);
}

long env_long(const char *name, long dflt)
{
    const char *v = std::getenv(name);
    if (!v || !*v)
        return dflt;
    return std::strtol(v, nullptr, 10);
}

std::string strf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

std::string errs_to_string(const std::vector<doca_error_t> &v)
{
    // Appends, not `"," + std::string` (g++ 12 warns falsely on that operator when optimizing:
    // -Wrestrict, GCC bug 105651).
    std::string s = "[";
    for (auto e : v) {
        if (s.size() > 1)
            s += ',';
        s += err_name(e);
    }
    return s + ']';
}

std::string states_to_string(const std::vector<doca_ctx_states> &v)
{
    std::string s = "["; // appends: see errs_to_string()
    for (auto e : v) {
        if (s.size() > 1)
            s += ',';
        s += state_name(e);
    }
    return s + ']';
}

std::string join(const std::vector<std::string> &v)
{
    std::string s; // appends: see errs_to_string()
    for (auto &e : v) {
        if (!s.empty())
            s += "; ";
        s += e;
    }
    return s;
}

} // namespace sc_test::fp
