// SPDX-License-Identifier: Apache-2.0
#include "core/export_desc.hpp"

#include <doca_types.h>

#include <cstring>

#include "common/log.hpp"
#include "core/device.hpp"

namespace softcomch::core {

namespace {

constexpr char k_magic[8] = {'S', 'C', 'M', 'M', 'A', 'P', 'X', '\0'};
constexpr uint16_t k_version = 1;
constexpr uint32_t k_pci_access = DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE;
constexpr uint32_t k_known_access = 0x7f; // every defined doca_access_flag bit

// `s` into a NUL-padded field of N bytes (it must leave room for one NUL).
template <size_t N> bool put(char (&field)[N], const std::string &s) noexcept
{
    if (s.size() >= N)
        return false;
    std::memset(field, 0, N);
    std::memcpy(field, s.data(), s.size());
    return true;
}

// A NUL-terminated, non-empty field of printable characters without spaces (it reaches logs).
template <size_t N> bool get(const char (&field)[N], std::string &out) noexcept
{
    const void *nul = std::memchr(field, '\0', N);
    if (nul == nullptr || nul == field)
        return false;
    const size_t n = size_t(static_cast<const char *>(nul) - field);
    for (size_t i = 0; i < n; ++i)
        if (field[i] <= ' ' || field[i] > '~')
            return false;
    // Nothing but NULs after the string: one descriptor, one encoding.
    for (size_t i = n; i < N; ++i)
        if (field[i] != '\0')
            return false;
    out.assign(field, n);
    return true;
}

} // namespace

doca_error_t encode_export(const export_info &info, std::vector<uint8_t> &out, std::string &why)
{
    export_header h{};
    std::memcpy(h.magic, k_magic, sizeof k_magic);
    h.version = k_version;
    h.header_len = sizeof h;
    h.side = info.dpu_side ? 1 : 0;
    h.kind = uint32_t(info.kind);
    h.access = info.access;
    h.addr = info.addr;
    h.len = info.len;
    if (!put(h.bluefield, info.bluefield) || !put(h.function, info.function) ||
        !put(h.via, info.via)) {
        why = "a name is too long for the export descriptor";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (info.body_len > k_max_export_desc - sizeof h) {
        why = "the memory exporter's part does not fit the descriptor";
        return DOCA_ERROR_INVALID_VALUE;
    }
    h.body_len = uint16_t(info.body_len);
    out.resize(sizeof h + info.body_len);
    std::memcpy(out.data(), &h, sizeof h);
    if (info.body_len != 0)
        std::memcpy(out.data() + sizeof h, info.body, info.body_len);
    return DOCA_SUCCESS;
}

doca_error_t decode_export(const uint8_t *desc, size_t len, export_kind expected, export_info &out,
                           std::string &why)
{
    auto refuse = [&](const char *reason) {
        why = reason;
        return DOCA_ERROR_INVALID_VALUE;
    };
    if (desc == nullptr || len < sizeof(export_header) || len > k_max_export_desc)
        return refuse("it is not an export descriptor (wrong length)");
    export_header h;
    std::memcpy(&h, desc, sizeof h);
    if (std::memcmp(h.magic, k_magic, sizeof k_magic) != 0)
        return refuse("it is not a SoftComch export descriptor (made by real DOCA, or not one at "
                      "all)");
    if (h.version != k_version || h.header_len != sizeof h)
        return refuse("it comes from another version of SoftComch");
    if (size_t(h.body_len) != len - sizeof h)
        return refuse("its length does not match its contents (truncated or padded)");
    if (h.kind != uint32_t(expected)) {
        if (h.kind == uint32_t(export_kind::mmap))
            return refuse("it is the export of an mmap (doca_mmap_export_pci)");
        if (h.kind == uint32_t(export_kind::sync_event))
            return refuse(
                "it is the export of a sync event (doca_sync_event_export_to_remote_pci)");
        return refuse("it exports an unknown kind of object");
    }
    if (h.side > 1)
        return refuse("its side is invalid");
    if (expected == export_kind::mmap) {
        if ((h.access & ~k_known_access) != 0 || (h.access & k_pci_access) == 0)
            return refuse("its access flags are invalid");
        if (h.addr == 0 || h.len == 0 || h.addr + h.len < h.addr)
            return refuse("its memory range is empty or wraps");
    } else if (h.access != 0 || h.addr != 0 || h.len != 0) {
        return refuse("it carries fields a sync event's export does not have");
    }
    export_info info;
    if (!get(h.bluefield, info.bluefield) || !get(h.function, info.function) ||
        !get(h.via, info.via))
        return refuse("its names are malformed");
    std::string canonical;
    if (!canonical_pci_addr(info.function.c_str(), canonical) || canonical != info.function)
        return refuse("its exporting function is not a PCI address");
    info.kind = expected;
    info.dpu_side = h.side == 1;
    info.access = h.access;
    info.addr = h.addr;
    info.len = h.len;
    info.body = desc + sizeof h;
    info.body_len = h.body_len;
    out = std::move(info);
    return DOCA_SUCCESS;
}

doca_error_t check_importer(const export_info &info, const doca_devinfo &di, const char *func)
{
    // PCI exports cross the PCIe link of one BlueField: between a host function and the DPU.
    if (info.bluefield != di.bluefield_id()) {
        SC_LOG_ERR("%s: the export was made on BlueField '%s' (%s); device %s is on '%s'", func,
                   info.bluefield.c_str(), info.function.c_str(), di.pci_addr().c_str(),
                   di.bluefield_id().c_str());
        return DOCA_ERROR_NOT_PERMITTED;
    }
    const bool dpu = di.side() == side::dpu;
    if (dpu == info.dpu_side) {
        SC_LOG_ERR("%s: the export was made by %s function %s; import it with a device of the "
                   "other side of the PCIe link (device %s is a %s function too)",
                   func, info.dpu_side ? "the DPU's" : "a host", info.function.c_str(),
                   di.pci_addr().c_str(), dpu ? "DPU" : "host");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

} // namespace softcomch::core
