// SPDX-License-Identifier: Apache-2.0
//
// The descriptors of DOCA Core's exports across the PCIe link: doca_mmap_export_pci (read by
// doca_mmap_create_from_export) and doca_sync_event_export_to_remote_pci (read by
// doca_sync_event_create_from_export). A header of DOCA Core's (what was exported, by which
// function, with which access), then the bytes of the memory exporter that carries the export
// (core/remote_memory.hpp). At most k_max_export_desc bytes, so that it fits where NVIDIA's
// programs carry it (dma_copy_dpu reads at most 512 bytes of the file it is in). The importer
// trusts none of it: decode_export() checks every field. docs/shm_layout.md section 12 has the
// byte layout.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct doca_devinfo;

namespace softcomch::core {

inline constexpr size_t k_max_export_desc = 512;

struct export_header {
    char magic[8];       // "SCMMAPX" and a NUL
    uint16_t version;    // 1
    uint16_t header_len; // sizeof(export_header)
    uint16_t body_len;   // bytes after the header: the memory exporter's
    uint16_t side;       // the exporting function's: 0 host, 1 DPU
    uint32_t access;     // mmap: the map's permission bits (one of the PCI ones at least); else 0
    uint32_t kind;       // export_kind
    uint64_t addr;       // mmap: the exported range, in the exporter's address space; else 0
    uint64_t len;
    char bluefield[40]; // the exporting device's BlueField id, NUL-padded
    char function[16];  // its PCI address "dddd:bb:dd.f", NUL-padded
    char via[16];       // the memory exporter's name ("shm"), NUL-padded
};
static_assert(sizeof(export_header) == 112);
static_assert(offsetof(export_header, version) == 8);
static_assert(offsetof(export_header, access) == 16);
static_assert(offsetof(export_header, kind) == 20);
static_assert(offsetof(export_header, addr) == 24);
static_assert(offsetof(export_header, bluefield) == 40);
static_assert(offsetof(export_header, function) == 80);
static_assert(offsetof(export_header, via) == 96);

// What was exported.
enum class export_kind : uint32_t {
    mmap = 1,       // doca_mmap_export_pci
    sync_event = 2, // doca_sync_event_export_to_remote_pci
};

// What a descriptor says, decoded.
struct export_info {
    export_kind kind = export_kind::mmap;
    bool dpu_side = false;
    uint32_t access = 0;
    uint64_t addr = 0;
    uint64_t len = 0;
    std::string bluefield;
    std::string function;
    std::string via;
    const uint8_t *body = nullptr; // the exporter's bytes, inside the decoded buffer
    size_t body_len = 0;
};

// The descriptor for `info` (its body copied after the header). INVALID_VALUE with `why` when a
// field does not fit or the whole would pass k_max_export_desc.
doca_error_t encode_export(const export_info &info, std::vector<uint8_t> &out, std::string &why);
// The checks of an untrusted descriptor of an export of kind `expected`: DOCA_SUCCESS and `out`
// (whose body points into `desc`), or DOCA_ERROR_INVALID_VALUE and `why`.
doca_error_t decode_export(const uint8_t *desc, size_t len, export_kind expected, export_info &out,
                           std::string &why);

// Whether a device with `importer` may import what `info` describes: a device on the same
// BlueField as the exporting function, on the other side of its PCIe link. DOCA_SUCCESS, or
// DOCA_ERROR_NOT_PERMITTED with an error line naming `func` and both functions.
doca_error_t check_importer(const export_info &info, const doca_devinfo &importer,
                            const char *func);

} // namespace softcomch::core
