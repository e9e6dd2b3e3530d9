// SPDX-License-Identifier: Apache-2.0
//
// Ranges exported for importers in other processes (transport.hpp: region_export,
// region_import), as DOCA's doca_mmap_export_pci and doca_mmap_create_from_export use them: the
// descriptor is bytes only (no descriptor passing: the program carries it in a file or a Comch
// message), and the exporter does nothing afterwards (it may sit in getchar()).
//
// Mechanisms (SOFTCOMCH_MEMORY, as for consumer memory: auto, shared or pvw):
//   shared  The exporter shares the range (share_range, shared_memory.hpp: the whole pages inside
//           it become a sealed memfd mapped at the same addresses; the program keeps its pointers
//           and data) and keeps the memfd open; the importer takes a copy of that descriptor with
//           pidfd_getfd, checks it is a sealed memfd large enough, and maps it (read-only for a
//           read-only export). Accesses to the whole pages are plain memcpy; the partial pages
//           at the ends stay the exporter's private memory and are reached with pvw.
//   pvw     process_vm_readv / process_vm_writev against the exporter's pid, which reach any
//           memory of it (heap, stack, file mappings) with the exact bytes the program sees.
// Both need ptrace access to the exporter: the same uid, a dumpable exporter, and under Yama
// ptrace_scope=1 the exporter's consent, which the first export gives for any process
// (grant_importers_access, as UCX's CMA transport does). auto uses shared when share_range
// accepts the range (ordinary private anonymous memory not shared already) and pvw otherwise.
//
// Revocation: each live export holds a slot of a process-wide table in the exporter whose word
// is the export's random 64-bit token; destroying the export clears it (then unshares the
// range). The table is a sealed memfd the importer maps read-only (pidfd_getfd; on kernels
// without it, the word is read with one process_vm_readv of 8 bytes), and the importer reads
// the word before every access: 0 or another token means revoked, and nothing is read or
// written. An exporter that exited is seen through a pidfd: by alive() (DOCA DMA asks once per
// task) and before every process_vm_readv/writev (never another process that reused the pid);
// the process start time in the descriptor refuses a descriptor of a previous process with that
// pid at import.
//
// Descriptor (little-endian, fixed width, 104 bytes; docs/shm_layout.md section 12.2):
//   u32 magic 'SCRG'  u16 version 3  u16 flags (bit 0: writable, bit 1: shared)  u32 pid
//   u32 fd (shared: the memfd's number in the exporter; else 0)
//   u64 start_time (the exporter's, /proc/<pid>/stat field 22)  u64 base  u64 len
//   u64 slot_addr (the token's address in the exporter)  u64 token
//   u64 map_base  u64 map_size  u64 file_offset (shared: the pages of the memfd: map_base is
//       at file_offset; else 0)  u64 inner_base  u64 inner_size (shared: the whole pages inside
//       [base, base + len), reached through the mapping; else 0)
//   u32 table_fd (the token table's memfd in the exporter)  u32 slot (the token's index in it)
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transport/transport.hpp"

namespace softcomch::transport::shm {

struct region_desc {
    uint32_t magic;
    uint16_t version;
    uint16_t flags;
    uint32_t pid;
    uint32_t fd;
    uint64_t start_time;
    uint64_t base;
    uint64_t len;
    uint64_t slot_addr;
    uint64_t token;
    uint64_t map_base;
    uint64_t map_size;
    uint64_t file_offset;
    uint64_t inner_base;
    uint64_t inner_size;
    uint32_t table_fd;
    uint32_t slot;
};
static_assert(sizeof(region_desc) == 104);
static_assert(offsetof(region_desc, fd) == 12);
static_assert(offsetof(region_desc, map_base) == 56);
static_assert(offsetof(region_desc, inner_size) == 88);
static_assert(offsetof(region_desc, table_fd) == 96);
static_assert(offsetof(region_desc, slot) == 100);
static_assert(offsetof(region_desc, flags) == 6);
static_assert(offsetof(region_desc, pid) == 8);
static_assert(offsetof(region_desc, start_time) == 16);
static_assert(offsetof(region_desc, base) == 24);
static_assert(offsetof(region_desc, len) == 32);
static_assert(offsetof(region_desc, slot_addr) == 40);
static_assert(offsetof(region_desc, token) == 48);
static_assert(sizeof(region_desc) <= k_region_desc_max);

inline constexpr uint32_t k_region_magic = 0x47524353; // "SCRG"
inline constexpr uint16_t k_region_version = 3;
inline constexpr uint16_t k_region_writable = 1;
inline constexpr uint16_t k_region_shared = 2;
// Live exports one process may have at once (the token table's size).
inline constexpr uint32_t k_region_slots = 4096;

// transport_ops::export_region of the shm transport.
doca_error_t export_region(void *addr, size_t len, bool writable,
                           std::unique_ptr<transport::region_export> &out, std::string &why);
// transport_ops::import_region of the shm transport.
doca_error_t import_region(const uint8_t *desc, size_t len,
                           std::unique_ptr<transport::region_import> &out, std::string &why);
// The parse of a descriptor alone (no system call): DOCA_SUCCESS and `out`, or
// DOCA_ERROR_INVALID_VALUE and `why`. For import_region and the fuzzer.
doca_error_t parse_region_desc(const uint8_t *desc, size_t len, region_desc &out, const char **why);

} // namespace softcomch::transport::shm
