// SPDX-License-Identifier: Apache-2.0
//
// Counters exported for importers in other processes (transport.hpp: export_counter,
// import_counter), as DOCA's sync events use them: a 64-bit word both processes update with
// atomics, the importer building its handle from bytes alone while the exporter may be blocked.
//
// Mechanism: the counter is a word of a one-page sealed memfd the exporter creates and maps,
// and keeps open for as long as the export lives. The importer takes a copy of that descriptor
// with pidfd_getfd (Linux 5.6; the same ptrace access as process_vm_readv, which the exporter
// granted to any process of its uid), checks that it is a sealed memfd of exactly one page (a
// file the exporter could shrink would raise SIGBUS in the importer), maps it, and checks the
// page's magic and the export's random token. Revocation: the exporter clears the token in the
// page before it unmaps and closes it; an importer's alive() reads the token (and whether the
// exporter still runs, through a pidfd). docs/shm_layout.md section 13 has the layouts.
//
// Descriptor (little-endian, 32 bytes):
//   u32 magic 'SCCT'  u16 version 1  u16 reserved (0)  u32 pid  u32 fd (in the exporter)
//   u64 start_time (the exporter's, /proc/<pid>/stat field 22)  u64 token
// Page (4096 bytes, shared by both processes):
//   0: u32 magic 'SCEV'  4: u32 version 1  8: u64 token (0 once revoked)  64: u64 counter
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transport/transport.hpp"

namespace softcomch::transport::shm {

struct counter_desc {
    uint32_t magic;
    uint16_t version;
    uint16_t reserved;
    uint32_t pid;
    uint32_t fd;
    uint64_t start_time;
    uint64_t token;
};
static_assert(sizeof(counter_desc) == 32);
static_assert(offsetof(counter_desc, pid) == 8);
static_assert(offsetof(counter_desc, fd) == 12);
static_assert(offsetof(counter_desc, start_time) == 16);
static_assert(offsetof(counter_desc, token) == 24);
static_assert(sizeof(counter_desc) <= k_counter_desc_max);

struct counter_page {
    uint32_t magic;
    uint32_t version;
    std::atomic<uint64_t> token;
    uint8_t pad[48];
    std::atomic<uint64_t> value; // a line of its own: the two sides' spinning reads touch it only
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(offsetof(counter_page, token) == 8);
static_assert(offsetof(counter_page, value) == 64);

inline constexpr uint32_t k_counter_magic = 0x54434353; // "SCCT"
inline constexpr uint16_t k_counter_version = 1;
inline constexpr uint32_t k_counter_page_magic = 0x56454353; // "SCEV"
inline constexpr uint32_t k_counter_page_version = 1;
inline constexpr uint64_t k_counter_page_size = 4096;

// transport_ops::export_counter of the shm transport.
doca_error_t export_counter(std::unique_ptr<transport::counter_export> &out, std::string &why);
// transport_ops::import_counter of the shm transport.
doca_error_t import_counter(const uint8_t *desc, size_t len,
                            std::unique_ptr<transport::counter_import> &out, std::string &why);
// The parse of a descriptor alone (no system call): DOCA_SUCCESS and `out`, or
// DOCA_ERROR_INVALID_VALUE and `why`. For import_counter and the fuzzer.
doca_error_t parse_counter_desc(const uint8_t *desc, size_t len, counter_desc &out,
                                const char **why);

} // namespace softcomch::transport::shm
