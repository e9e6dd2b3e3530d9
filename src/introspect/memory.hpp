// SPDX-License-Identifier: Apache-2.0
//
// The introspection API (fabric.hpp says what it is): the fast path's memory and copy policies
// as a consumer and a producer of this process would read them (transport/shm/shared_memory.hpp),
// and probes of what this machine lets them do.
#pragma once

#include <cstdint>
#include <string>

namespace softcomch::introspect {

// The variables the fast path reads.
inline constexpr const char *memory_env = "SOFTCOMCH_MEMORY";
inline constexpr const char *copy_env = "SOFTCOMCH_COPY";

// How consumer memory reaches the producer (SOFTCOMCH_MEMORY).
enum class memory_policy { auto_select, shared, pvw };

struct memory_setting {
    bool valid = false; // false: an unknown value; consumers fail to start
    memory_policy policy = memory_policy::auto_select;
    std::string name; // "auto", "shared", "pvw" (valid only)
};
memory_setting memory_policy_setting();

// How the producer's one copy writes (SOFTCOMCH_COPY).
enum class copy_policy { auto_select, cached, streaming };

struct copy_setting {
    bool valid = false; // false: an unknown value; producers fail to start
    copy_policy policy = copy_policy::auto_select;
    std::string name;          // "auto", "cached", "streaming" (valid only)
    uint64_t cache_budget = 0; // bytes (valid only): half the last-level cache
};
copy_setting copy_policy_setting();

// Bytes of the largest cache, as the copy policy sees it.
uint64_t last_level_cache_bytes() noexcept;
// Payloads below this size are never streamed.
uint64_t min_streaming_bytes() noexcept;

// The mechanism ordinary heap memory gets under the current SOFTCOMCH_MEMORY: "shared", "pvw",
// or "invalid" for an unknown value.
std::string active_memory_mechanism();

// Whether a private heap page of this process can be made shared memory (what `auto` tries).
bool can_share_a_page();

// process_vm_writev access to a child of this process (what a producer needs to its consumer).
struct pvw_probe {
    bool succeeded = false;
    bool not_supported = false; // the system call is missing (ENOSYS)
    std::string error;          // !succeeded: the library's name of the error it gave
};
pvw_probe probe_pvw_on_child();

} // namespace softcomch::introspect
