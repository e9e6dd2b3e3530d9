// SPDX-License-Identifier: Apache-2.0
#include "common/error_names.hpp"

#include <cstdint>
#include <cstring>

namespace softcomch {
namespace {

constexpr const char *unrecognized = "unrecognized error code";

struct entry {
    const char *name;
    const char *descr;
};

// Indexed by the code. Descriptions marked (observed) are the phrases real DOCA prints and
// users search for; the others are SoftComch's own wording.
constexpr entry table[] = {
    {"DOCA_SUCCESS", "Success"},
    {"DOCA_ERROR_UNKNOWN", "Unknown error"},                 // observed
    {"DOCA_ERROR_NOT_PERMITTED", "Operation not permitted"}, // observed
    {"DOCA_ERROR_IN_USE", "Resource is in use"},
    {"DOCA_ERROR_NOT_SUPPORTED", "Operation not supported"},
    {"DOCA_ERROR_AGAIN", "Resource temporarily unavailable, try again"}, // observed
    {"DOCA_ERROR_INVALID_VALUE", "Invalid input"},                       // observed
    {"DOCA_ERROR_NO_MEMORY", "Out of memory"},
    {"DOCA_ERROR_INITIALIZATION", "Initialization failed"},
    {"DOCA_ERROR_TIME_OUT", "Operation timed out"},
    {"DOCA_ERROR_SHUTDOWN", "Shut down or shutting down"},
    {"DOCA_ERROR_CONNECTION_RESET", "Connection reset by peer"},
    {"DOCA_ERROR_CONNECTION_ABORTED", "Connection aborted"}, // observed
    {"DOCA_ERROR_CONNECTION_INPROGRESS", "Connection not established yet"},
    {"DOCA_ERROR_NOT_CONNECTED", "Not Connected"}, // observed
    {"DOCA_ERROR_NO_LOCK", "Could not acquire a lock"},
    {"DOCA_ERROR_NOT_FOUND", "Requested Resource Not Found"}, // observed
    {"DOCA_ERROR_IO_FAILED", "Input/output operation failed"},
    {"DOCA_ERROR_BAD_STATE", "Bad State"}, // observed
    {"DOCA_ERROR_UNSUPPORTED_VERSION", "Version not supported"},
    {"DOCA_ERROR_OPERATING_SYSTEM", "Operating system call failed"},
    {"DOCA_ERROR_DRIVER", "DOCA Driver call failure"}, // observed
    {"DOCA_ERROR_UNEXPECTED", "Unexpected internal condition"},
    {"DOCA_ERROR_ALREADY_EXIST", "Resource already exists"},
    {"DOCA_ERROR_FULL", "No space left in resource"},
    {"DOCA_ERROR_EMPTY", "Nothing available in resource"},
    {"DOCA_ERROR_IN_PROGRESS", "Operation in progress"},
    {"DOCA_ERROR_TOO_BIG", "Request too large"},
    {"DOCA_ERROR_AUTHENTICATION", "Authentication failed"},
    {"DOCA_ERROR_BAD_CONFIG", "Invalid configuration"},
    {"DOCA_ERROR_SKIPPED", "Result valid, but earlier output was skipped"},
};
static_assert(sizeof(table) / sizeof(table[0]) == error_count);
static_assert(DOCA_ERROR_SKIPPED == error_count - 1);

const entry *lookup(int32_t v) noexcept
{
    if (v < 0 || v >= error_count)
        return nullptr;
    return &table[v];
}

// Out-of-range values are outside the C++ enum's range: read the bits instead of converting.
int32_t raw(doca_error_t err) noexcept
{
    static_assert(sizeof(doca_error_t) == sizeof(int32_t));
    int32_t v = 0;
    std::memcpy(&v, &err, sizeof(v));
    return v;
}

} // namespace

const char *error_name(int32_t code) noexcept
{
    const entry *e = lookup(code);
    return e ? e->name : unrecognized;
}

const char *error_descr(int32_t code) noexcept
{
    const entry *e = lookup(code);
    return e ? e->descr : unrecognized;
}

const char *error_name(doca_error_t err) noexcept
{
    return error_name(raw(err));
}

const char *error_descr(doca_error_t err) noexcept
{
    return error_descr(raw(err));
}

} // namespace softcomch
