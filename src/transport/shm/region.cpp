// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/region.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "common/unique_fd.hpp"
#include "transport/shm/export_identity.hpp"
#include "transport/shm/memory_detail.hpp"
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/shared_memory.hpp"
#include "transport/shm/shm.hpp"

namespace softcomch::transport::shm {

namespace {

// ---- the exporter's token table ----------------------------------------------------------------

// One word per live export: its token while it lives, 0 once revoked. Importers in other
// processes read it with process_vm_readv (no ordering with them is possible or needed: a word
// read whole, either the token or not). Static storage: its addresses stay valid for the whole
// life of the process, whatever exports come and go.
std::atomic<uint64_t> g_tokens[k_region_slots];
std::mutex g_table_mu;
std::vector<uint32_t> g_free_slots; // guarded by g_table_mu
uint32_t g_next_slot = 0;           // slots below it were handed out once; guarded by g_table_mu

class exported final : public transport::region_export {
public:
    exported(void *addr, size_t len, bool writable, uint32_t slot, uint64_t token,
             uint64_t start_time) noexcept
        : transport::region_export(traits::ops()),
          addr_(uint64_t(reinterpret_cast<uintptr_t>(addr))), len_(len), writable_(writable),
          slot_(slot), token_(token), start_time_(start_time)
    {}
    ~exported() override
    {
        // Revoked: importers reading the word from now on see 0.
        g_tokens[slot_].store(0, std::memory_order_relaxed);
        std::lock_guard<std::mutex> g(g_table_mu);
        g_free_slots.push_back(slot_);
    }

    size_t pack(uint8_t *out, size_t cap) const noexcept override
    {
        if (cap < sizeof(region_desc))
            return 0;
        region_desc d{};
        d.magic = k_region_magic;
        d.version = k_region_version;
        d.flags = writable_ ? k_region_writable : 0;
        d.pid = uint32_t(::getpid());
        d.start_time = start_time_;
        d.base = addr_;
        d.len = len_;
        d.slot_addr = uint64_t(reinterpret_cast<uintptr_t>(&g_tokens[slot_]));
        d.token = token_;
        std::memcpy(out, &d, sizeof d);
        return sizeof d;
    }
    const char *mechanism_name() const noexcept override { return "pvw"; }

private:
    uint64_t addr_;
    uint64_t len_;
    bool writable_;
    uint32_t slot_;
    uint64_t token_;
    uint64_t start_time_;
};

class imported final : public transport::region_import {
public:
    imported(const region_desc &d, unique_fd pidfd) noexcept
        : transport::region_import(traits::ops(), d.base, d.len,
                                   (d.flags & k_region_writable) != 0),
          pid_(pid_t(d.pid)), pidfd_(std::move(pidfd)), slot_addr_(d.slot_addr), token_(d.token)
    {}

    doca_error_t read(uint64_t addr, void *dst, size_t n, const char **why) noexcept override
    {
        if (doca_error_t rc = check(addr, n, false, why); rc != DOCA_SUCCESS)
            return rc;
        return transfer(addr, static_cast<uint8_t *>(dst), n, false, why);
    }
    doca_error_t write(uint64_t addr, const void *src, size_t n, const char **why) noexcept override
    {
        if (doca_error_t rc = check(addr, n, true, why); rc != DOCA_SUCCESS)
            return rc;
        return transfer(addr, const_cast<uint8_t *>(static_cast<const uint8_t *>(src)), n, true,
                        why);
    }
    std::string exporter() const override { return "pid " + std::to_string(pid_); }

    // The export still lives: the exporter runs and its token word is ours.
    doca_error_t alive(const char **why) const noexcept
    {
        if (!peer_running(pidfd_.get())) {
            *why = "the exporting process has exited";
            return DOCA_ERROR_NOT_FOUND;
        }
        uint64_t word = 0;
        iovec local{&word, sizeof word};
        iovec remote{reinterpret_cast<void *>(uintptr_t(slot_addr_)), sizeof word};
        const ssize_t got = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
        if (got != ssize_t(sizeof word)) {
            const int e = got < 0 ? errno : EFAULT;
            if (e == EPERM) {
                *why = "no access to the exporting process (another user, a process that is not "
                       "dumpable, or Yama's ptrace_scope 2 or 3)";
                return DOCA_ERROR_NOT_PERMITTED;
            }
            if (e == ESRCH) {
                *why = "the exporting process has exited";
                return DOCA_ERROR_NOT_FOUND;
            }
            *why = "the export is not one of the exporting process's";
            return DOCA_ERROR_NOT_PERMITTED;
        }
        if (word != token_) {
            *why = "the export was revoked (the exporting mmap was stopped or destroyed)";
            return DOCA_ERROR_NOT_PERMITTED;
        }
        return DOCA_SUCCESS;
    }

private:
    doca_error_t check(uint64_t addr, size_t n, bool write, const char **why) const noexcept
    {
        if (!in_window(base(), len(), addr, n)) {
            *why = "the access is outside the exported range";
            return DOCA_ERROR_INVALID_VALUE;
        }
        if (write && !writable()) {
            *why = "the export is read-only (DOCA_ACCESS_FLAG_PCI_READ_ONLY)";
            return DOCA_ERROR_NOT_PERMITTED;
        }
        return alive(why);
    }

    doca_error_t transfer(uint64_t addr, uint8_t *local_buf, size_t n, bool write,
                          const char **why) const noexcept
    {
        size_t done = 0;
        while (done < n) {
            iovec local{local_buf + done, n - done};
            iovec remote{reinterpret_cast<void *>(uintptr_t(addr + done)), n - done};
            const ssize_t got = write ? ::process_vm_writev(pid_, &local, 1, &remote, 1, 0)
                                      : ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
            if (got <= 0) {
                if (got < 0 && errno == EINTR)
                    continue;
                *why = got == 0 ? "nothing mapped at the exported address any more"
                                : "the exporting process's memory cannot be reached";
                return got < 0 ? pvw_errno(errno, DOCA_ERROR_NOT_FOUND) : DOCA_ERROR_INVALID_VALUE;
            }
            done += size_t(got);
        }
        return DOCA_SUCCESS;
    }

    pid_t pid_;
    unique_fd pidfd_;
    uint64_t slot_addr_;
    uint64_t token_;
};

} // namespace

doca_error_t export_region(void *addr, size_t len, bool writable,
                           std::unique_ptr<transport::region_export> &out, std::string &why)
{
    const uint64_t a = uint64_t(reinterpret_cast<uintptr_t>(addr));
    if (addr == nullptr || len == 0 || a + len < a) {
        why = "an empty or wrapping range cannot be exported";
        return DOCA_ERROR_INVALID_VALUE;
    }
    uint32_t slot;
    {
        std::lock_guard<std::mutex> g(g_table_mu);
        if (!g_free_slots.empty()) {
            slot = g_free_slots.back();
            g_free_slots.pop_back();
        } else if (g_next_slot < k_region_slots) {
            slot = g_next_slot++;
        } else {
            why = "this process already has " + std::to_string(k_region_slots) +
                  " exports; destroy some first";
            return DOCA_ERROR_NO_MEMORY;
        }
    }
    // Importers read us with process_vm_readv/writev: under Yama ptrace_scope=1 that needs our
    // consent (not their pid, which we do not know: any process of ours).
    grant_importers_access();
    const uint64_t token = random_token();
    g_tokens[slot].store(token, std::memory_order_relaxed);
    out = std::make_unique<exported>(addr, len, writable, slot, token, own_start_time());
    return DOCA_SUCCESS;
}

doca_error_t parse_region_desc(const uint8_t *desc, size_t len, region_desc &out, const char **why)
{
    if (desc == nullptr || len != sizeof(region_desc)) {
        *why = "the descriptor has the wrong length";
        return DOCA_ERROR_INVALID_VALUE;
    }
    region_desc d;
    std::memcpy(&d, desc, sizeof d);
    if (d.magic != k_region_magic || d.version != k_region_version) {
        *why = "the descriptor is not a memory export of this transport (or of another version)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((d.flags & ~k_region_writable) != 0 || d.reserved != 0) {
        *why = "the descriptor has unknown flags";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (d.pid == 0 || d.pid > k_max_pid) {
        *why = "the descriptor names no valid process";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (d.base == 0 || d.len == 0 || d.base + d.len < d.base) {
        *why = "the descriptor's range is empty or wraps";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (d.slot_addr == 0 || d.slot_addr % alignof(uint64_t) != 0 || d.token == 0) {
        *why = "the descriptor's revocation word is invalid";
        return DOCA_ERROR_INVALID_VALUE;
    }
    out = d;
    return DOCA_SUCCESS;
}

doca_error_t import_region(const uint8_t *desc, size_t len,
                           std::unique_ptr<transport::region_import> &out, std::string &why)
{
    const char *reason = nullptr;
    region_desc d;
    if (doca_error_t rc = parse_region_desc(desc, len, d, &reason); rc != DOCA_SUCCESS) {
        why = reason;
        return rc;
    }
    unique_fd pidfd;
    if (doca_error_t rc = open_exporter(d.pid, d.start_time, pidfd, why); rc != DOCA_SUCCESS)
        return rc;
    auto imp = std::make_unique<imported>(d, std::move(pidfd));
    if (doca_error_t rc = imp->alive(&reason); rc != DOCA_SUCCESS) {
        why = reason;
        return rc;
    }
    out = std::move(imp);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
