// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the descriptor doca_mmap_create_from_export reads (docs/shm_layout.md section 12),
// which arrives from another process as bytes: DOCA Core's header (src/core/export_desc.*), then
// the shm transport's part (src/transport/shm/region.*), then the import itself, which opens the
// exporter's pid and reads its revocation word. Any input must be refused cleanly or imported;
// invariants checked:
//   - a header that decodes re-encodes to exactly the same bytes (one descriptor, one encoding);
//   - the decoded body lies inside the input;
//   - an import that succeeds only names this process's own live export (the seeds' exports;
//     an input cannot guess a random 64-bit token), and reading its window stays within it.
#include "fuzz_target.hpp"

#include "core/export_desc.hpp"
#include "memory/exporter.hpp"
#include "transport/shm/counter.hpp"
#include "transport/shm/region.hpp"

#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>

using namespace softcomch;

namespace {

// The seeds' export: a live range of this process, so that mutations of its descriptor reach
// the import's system calls with this process's pid, start time and token.
struct live_export {
    alignas(64) uint8_t mem[4096];
    std::unique_ptr<core::export_handle> keep;
    std::vector<uint8_t> body;
    std::unique_ptr<core::shared_counter> counter;
    std::vector<uint8_t> counter_body;

    live_export()
    {
        for (size_t i = 0; i < sizeof mem; ++i)
            mem[i] = uint8_t(i * 13 + 1);
        std::string why;
        const core::resource_label label;
        if (memory::exporter().export_range(mem, sizeof mem, true, label, body, keep, why) !=
            DOCA_SUCCESS)
            body.clear(); // no export on this machine: the seeds still exercise the parsers
        if (memory::exporter().export_counter(label, counter, counter_body, why) != DOCA_SUCCESS)
            counter_body.clear();
        else
            counter->store(0x5eed);
    }
};

live_export &the_export()
{
    static live_export e;
    return e;
}

std::vector<uint8_t> descriptor(const std::vector<uint8_t> &body, uint32_t access, bool dpu,
                                const char *via, core::export_kind kind = core::export_kind::mmap)
{
    core::export_info info;
    info.kind = kind;
    info.dpu_side = dpu;
    if (kind == core::export_kind::mmap) {
        info.access = access;
        info.addr = uint64_t(reinterpret_cast<uintptr_t>(the_export().mem));
        info.len = sizeof the_export().mem;
    }
    info.bluefield = "bf0";
    info.function = dpu ? "0000:03:00.0" : "0000:b1:00.0";
    info.via = via;
    info.body = body.data();
    info.body_len = body.size();
    std::vector<uint8_t> out;
    std::string why;
    (void)core::encode_export(info, out, why);
    return out;
}

} // namespace

namespace {

// A decoded header: the same bytes again, its body inside the input.
void check_header(const core::export_info &info, const uint8_t *data, size_t size)
{
    if (info.body < data || info.body + info.body_len != data + size)
        fuzz::invariant_failed();
    std::vector<uint8_t> again;
    std::string why;
    if (core::encode_export(info, again, why) != DOCA_SUCCESS || again.size() != size ||
        std::memcmp(again.data(), data, size) != 0)
        fuzz::invariant_failed();
}

void memory_import(const core::export_info &info)
{
    std::unique_ptr<core::remote_memory> remote;
    std::string why;
    if (memory::exporter().import_range(info.via, info.body, info.body_len, core::resource_label{},
                                        remote, why) != DOCA_SUCCESS)
        return;
    // Imported: the body must be this process's live export (pid, start time and token agree).
    transport::shm::region_desc d;
    const char *reason = nullptr;
    if (transport::shm::parse_region_desc(info.body, info.body_len, d, &reason) != DOCA_SUCCESS ||
        d.pid != uint32_t(::getpid()))
        fuzz::invariant_failed();
    // Reads at both ends of its window (a mutated window may name unmapped memory of ours: the
    // read fails, it never faults) and one past it, which must be refused.
    uint8_t buf[64];
    const size_t n = d.len < sizeof buf ? size_t(d.len) : sizeof buf;
    (void)remote->read(d.base, buf, n, &reason);
    (void)remote->read(d.base + d.len - n, buf, n, &reason);
    if (d.base + d.len + 1 > d.base + d.len &&
        remote->read(d.base + d.len - n + 1, buf, n, &reason) == DOCA_SUCCESS)
        fuzz::invariant_failed();
}

void counter_import(const core::export_info &info)
{
    std::unique_ptr<core::shared_counter> counter;
    std::string why;
    if (memory::exporter().import_counter(info.via, info.body, info.body_len,
                                          core::resource_label{}, counter, why) != DOCA_SUCCESS)
        return;
    // Imported: it must be the seeds' live counter of this process (token and file agree).
    transport::shm::counter_desc d;
    const char *reason = nullptr;
    if (transport::shm::parse_counter_desc(info.body, info.body_len, d, &reason) != DOCA_SUCCESS ||
        d.pid != uint32_t(::getpid()) || !the_export().counter ||
        counter->load() != the_export().counter->load() || counter->alive(&reason) != DOCA_SUCCESS)
        fuzz::invariant_failed();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)the_export(); // the same process state for every input, seeds or not
    core::export_info info;
    std::string why;
    const bool as_mmap =
        core::decode_export(data, size, core::export_kind::mmap, info, why) == DOCA_SUCCESS;
    if (as_mmap) {
        check_header(info, data, size);
        memory_import(info);
    }
    core::export_info ev;
    if (core::decode_export(data, size, core::export_kind::sync_event, ev, why) == DOCA_SUCCESS) {
        if (as_mmap)
            fuzz::invariant_failed(); // one kind per descriptor
        check_header(ev, data, size);
        counter_import(ev);
    }
    // The transports' parsers alone, on the same bytes.
    transport::shm::region_desc rd;
    transport::shm::counter_desc cd;
    const char *reason = nullptr;
    (void)transport::shm::parse_region_desc(data, size, rd, &reason);
    (void)transport::shm::parse_counter_desc(data, size, cd, &reason);
    return 0;
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> softcomch::fuzz::seeds()
{
    const std::vector<uint8_t> &body = the_export().body;
    std::vector<uint8_t> stale = body;
    if (stale.size() == sizeof(transport::shm::region_desc))
        stale[48] ^= 1; // another token
    std::vector<uint8_t> truncated = descriptor(body, 0x21, false, "shm");
    truncated.resize(truncated.size() - 3);
    return {
        {"host_rw.bin", descriptor(body, 0x21, false, "shm")},
        {"host_ro.bin", descriptor(body, 0x11, false, "shm")},
        {"dpu_rw.bin", descriptor(body, 0x21, true, "shm")},
        {"stale_token.bin", descriptor(stale, 0x21, false, "shm")},
        {"unknown_via.bin", descriptor(body, 0x21, false, "ucx")},
        {"truncated.bin", truncated},
        {"region_only.bin", body},
        {"event_host.bin",
         descriptor(the_export().counter_body, 0, false, "shm", core::export_kind::sync_event)},
        {"event_dpu.bin",
         descriptor(the_export().counter_body, 0, true, "shm", core::export_kind::sync_event)},
        {"event_as_mmap.bin", descriptor(the_export().counter_body, 0x21, false, "shm")},
        {"counter_only.bin", the_export().counter_body},
    };
}
