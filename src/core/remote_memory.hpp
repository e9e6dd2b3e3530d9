// SPDX-License-Identifier: Apache-2.0
//
// Memory of another process, as DOCA Core sees it (doca_mmap_export_pci and
// doca_mmap_create_from_export, include/doca_mmap.h; the counter of a sync event,
// include/doca_sync_event.h): what an mmap needs to export its range and to import another
// process's, and a sync event its counter, with no word of how that is done. The C facade hands the
// mmap an implementation of memory_exporter (src/memory: a transport's region export and
// import), so core includes no transport (docs/design.md, "Layers").
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace softcomch::core {

// Keeps one export alive; destroying it revokes the export (importers' later accesses fail).
class export_handle {
public:
    virtual ~export_handle() = default;
};

// A range of another process, imported: copies to and from it at the exporter's addresses. Each
// access is checked (the window, the access granted, the export not revoked); a refusal comes
// with its reason in *why (static text). Whether the exporter still runs is alive()'s, which
// may cost a system call: a DMA task asks it once before its first slice.
class remote_memory {
public:
    virtual ~remote_memory() = default;
    virtual doca_error_t read(uint64_t addr, void *dst, size_t n, const char **why) noexcept = 0;
    virtual doca_error_t write(uint64_t addr, const void *src, size_t n,
                               const char **why) noexcept = 0;
    // The exporter runs and the export was not revoked: DOCA_SUCCESS, else NOT_FOUND (exited)
    // or NOT_PERMITTED (revoked) with *why.
    virtual doca_error_t alive(const char **why) const noexcept = 0;
    // Who exported it, for logs ("pid 1234").
    virtual std::string exporter() const = 0;
};

// A 64-bit counter two processes share (DOCA sync event): the exporter's own, or another
// process's imported from its descriptor. Each operation is one atomic access of the word
// (sequentially consistent: an update is seen by the other side before anything the updater
// does after it).
class shared_counter {
public:
    virtual ~shared_counter() = default;
    virtual uint64_t load() const noexcept = 0;
    virtual void store(uint64_t v) noexcept = 0;
    virtual uint64_t fetch_add(uint64_t v) noexcept = 0;
    // Whether the other side still holds it: always DOCA_SUCCESS for the exporter's own; for an
    // import, NOT_PERMITTED once revoked and NOT_FOUND once the exporter exited, with *why.
    virtual doca_error_t alive(const char **why) const noexcept = 0;
    // Who exported it, for logs ("pid 1234"; "this process" for the exporter's own).
    virtual std::string exporter() const = 0;
};

// What `softcomch top` shows of an export or import: the function this side uses and the other
// side's, and the access granted. Labels only: nothing is decided from them.
struct resource_label {
    std::string function;      // the exporting function (export), the importing one (import)
    std::string peer_function; // import: the function the exporter exported for
    uint32_t access = 0;       // DOCA_ACCESS_FLAG_*
};

// What exporting and importing need from below core.
class memory_exporter {
public:
    // The name recorded in descriptors, which import_range() gets back ("shm").
    virtual const char *name() const noexcept = 0;
    // Exports [addr, addr + len): the bytes an importer needs (appended to `desc`) and the
    // handle that keeps the export alive. Errors with `why`.
    virtual doca_error_t export_range(void *addr, size_t len, bool writable,
                                      const resource_label &label, std::vector<uint8_t> &desc,
                                      std::unique_ptr<export_handle> &keep, std::string &why) = 0;
    // Imports what export_range() produced in another process, through the exporter named
    // `via`. Untrusted bytes: anything else is INVALID_VALUE with `why`.
    virtual doca_error_t import_range(std::string_view via, const uint8_t *desc, size_t len,
                                      const resource_label &label,
                                      std::unique_ptr<remote_memory> &out, std::string &why) = 0;
    // A new counter (0) that other processes can import: the counter and the bytes an importer
    // needs (appended to `desc`). Destroying the counter revokes the export. Errors with `why`.
    virtual doca_error_t export_counter(const resource_label &label,
                                        std::unique_ptr<shared_counter> &counter,
                                        std::vector<uint8_t> &desc, std::string &why) = 0;
    // Imports what export_counter() produced in another process, through the exporter named
    // `via`. Untrusted bytes: anything else is INVALID_VALUE with `why`.
    virtual doca_error_t import_counter(std::string_view via, const uint8_t *desc, size_t len,
                                        const resource_label &label,
                                        std::unique_ptr<shared_counter> &out, std::string &why) = 0;

protected:
    ~memory_exporter() = default;
};

} // namespace softcomch::core
