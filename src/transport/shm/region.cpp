// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/region.hpp"

#include <linux/io_uring.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
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

// One word per live export: its token while it lives, 0 once revoked. The words live in a sealed
// memfd that importers map read-only (they take it with pidfd_getfd), so checking an export costs
// them one load, not a system call per access. Until the first export, and in a child after
// fork() until its first export, the words are the private array below: a forked child must not
// write its parent's table (its inherited exports are not importable; their destruction must not
// revoke the parent's).
constexpr size_t k_table_bytes = size_t(k_region_slots) * sizeof(uint64_t);

struct token_table {
    std::atomic<uint64_t> *words; // k_region_slots of them
    int fd;                       // the memfd mapped at `words`; -1: `words` is g_private_words
};

std::atomic<uint64_t> g_private_words[k_region_slots];
std::mutex g_table_mu;
token_table g_table{g_private_words, -1}; // guarded by g_table_mu
std::vector<uint32_t> g_free_slots;       // guarded by g_table_mu
uint32_t g_next_slot = 0; // slots below it were handed out once; guarded by g_table_mu

// fork(): the child keeps the words in private memory and drops the shared file (system calls
// and a copy only: the child of a threaded program may only do async-signal-safe work).
void table_atfork_prepare() noexcept
{
    g_table_mu.lock();
}

void table_atfork_parent() noexcept
{
    g_table_mu.unlock();
}

void table_atfork_child() noexcept
{
    if (g_table.fd >= 0) {
        for (uint32_t i = 0; i < k_region_slots; ++i)
            g_private_words[i].store(g_table.words[i].load(std::memory_order_relaxed),
                                     std::memory_order_relaxed);
        ::munmap(static_cast<void *>(g_table.words), k_table_bytes);
        ::close(g_table.fd);
        g_table = token_table{g_private_words, -1};
    }
    g_table_mu.unlock();
}

// The words in a shared file (once per process, and again in a forked child). Called with
// g_table_mu held.
doca_error_t share_table_locked() noexcept
{
    if (g_table.fd >= 0)
        return DOCA_SUCCESS;
    static std::once_flag once;
    std::call_once(once, [] {
        (void)::pthread_atfork(table_atfork_prepare, table_atfork_parent, table_atfork_child);
    });
    unique_fd fd;
    void *base = nullptr;
    if (doca_error_t rc =
            create_mapped_memfd("softcomch-exports", k_table_bytes, true, true, fd, &base);
        rc != DOCA_SUCCESS)
        return rc;
    auto *words = static_cast<std::atomic<uint64_t> *>(base);
    for (uint32_t i = 0; i < k_region_slots; ++i)
        words[i].store(g_table.words[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
    g_table = token_table{words, fd.release()};
    return DOCA_SUCCESS;
}

class exported final : public transport::region_export {
public:
    exported(exported_memory mem, bool writable, uint32_t slot, uint64_t token,
             uint64_t start_time) noexcept
        : transport::region_export(traits::ops()), mem_(std::move(mem)), writable_(writable),
          slot_(slot), token_(token), start_time_(start_time)
    {}
    ~exported() override
    {
        // Revoked first: importers reading the word from now on see 0 and touch nothing; then
        // the pages go back to private memory (shared mechanism). The slot is free after both.
        {
            std::lock_guard<std::mutex> g(g_table_mu);
            g_table.words[slot_].store(0, std::memory_order_seq_cst);
        }
        (void)unexport_memory(mem_);
        std::lock_guard<std::mutex> g(g_table_mu);
        g_free_slots.push_back(slot_);
    }

    size_t pack(uint8_t *out, size_t cap) const noexcept override
    {
        if (cap < sizeof(region_desc))
            return 0;
        std::lock_guard<std::mutex> g(g_table_mu);
        // A forked child's inherited export: its own table first.
        if (share_table_locked() != DOCA_SUCCESS)
            return 0;
        region_desc d{};
        d.magic = k_region_magic;
        d.version = k_region_version;
        d.flags = writable_ ? k_region_writable : 0;
        d.pid = uint32_t(::getpid());
        d.start_time = start_time_;
        d.base = mem_.desc.addr;
        d.len = mem_.desc.len;
        d.slot_addr = uint64_t(reinterpret_cast<uintptr_t>(&g_table.words[slot_]));
        d.token = token_;
        d.table_fd = uint32_t(g_table.fd);
        d.slot = slot_;
        if (mem_.range.valid()) {
            d.flags |= k_region_shared;
            d.fd = uint32_t(mem_.range.fd.get());
            d.map_base = mem_.range.base;
            d.map_size = mem_.range.size;
            d.file_offset = mem_.range.file_offset;
            d.inner_base = mem_.range.inner_base;
            d.inner_size = mem_.range.inner_size;
        }
        std::memcpy(out, &d, sizeof d);
        return sizeof d;
    }
    const char *mechanism_name() const noexcept override
    {
        return mem_.range.valid() ? "shared" : "pvw";
    }

private:
    exported_memory mem_;
    bool writable_;
    uint32_t slot_;
    uint64_t token_;
    uint64_t start_time_;
};

// Whether the exporter exited, without a system call per question: an io_uring holding one poll
// of the exporter's pidfd, whose completion the kernel posts when the exporter exits (a pidfd
// becomes readable then). The question is one load of the completion ring's tail. The completion
// is posted at the latest when this process next returns from the kernel (io_uring completes a
// poll through the submitter's task work), so a program that learned of the exit by any system
// call (waitpid, a read of a pipe, epoll) sees it. Where io_uring is not available (before Linux
// 5.1, seccomp, kernel.io_uring_disabled) start() fails and the caller asks the pidfd each time.
class exit_watch {
public:
    exit_watch() noexcept = default;
    exit_watch(const exit_watch &) = delete;
    exit_watch &operator=(const exit_watch &) = delete;
    ~exit_watch()
    {
        if (rings_ != nullptr)
            ::munmap(rings_, rings_len_);
        if (sqes_ != nullptr)
            ::munmap(sqes_, sizeof(io_uring_sqe));
        if (fd_ >= 0)
            ::close(fd_);
    }

    bool start(int pidfd) noexcept
    {
        io_uring_params p{};
        fd_ = int(::syscall(SYS_io_uring_setup, 1, &p));
        if (fd_ < 0 || (p.features & IORING_FEAT_SINGLE_MMAP) == 0)
            return false;
        const size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
        const size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
        rings_len_ = std::max(sq_len, cq_len);
        void *rings = ::mmap(nullptr, rings_len_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                             fd_, off_t(IORING_OFF_SQ_RING));
        if (rings == MAP_FAILED)
            return false;
        rings_ = static_cast<uint8_t *>(rings);
        void *sqes = ::mmap(nullptr, sizeof(io_uring_sqe), PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_POPULATE, fd_, off_t(IORING_OFF_SQES));
        if (sqes == MAP_FAILED)
            return false;
        sqes_ = static_cast<io_uring_sqe *>(sqes);
        cq_tail_ = reinterpret_cast<const uint32_t *>(rings_ + p.cq_off.tail);
        cq_head_ = __atomic_load_n(reinterpret_cast<const uint32_t *>(rings_ + p.cq_off.head),
                                   __ATOMIC_ACQUIRE);
        // One poll of the pidfd: readable once the process exited.
        std::memset(sqes_, 0, sizeof(io_uring_sqe));
        sqes_->opcode = IORING_OP_POLL_ADD;
        sqes_->fd = pidfd;
        sqes_->poll32_events = POLLIN;
        sqes_->user_data = 1;
        auto *array = reinterpret_cast<uint32_t *>(rings_ + p.sq_off.array);
        auto *sq_tail = reinterpret_cast<uint32_t *>(rings_ + p.sq_off.tail);
        const uint32_t tail = __atomic_load_n(sq_tail, __ATOMIC_ACQUIRE);
        array[tail & *reinterpret_cast<const uint32_t *>(rings_ + p.sq_off.ring_mask)] = 0;
        __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
        if (::syscall(SYS_io_uring_enter, fd_, 1, 0, 0, nullptr, 0) != 1)
            return false;
        armed_ = true;
        return true;
    }
    bool armed() const noexcept { return armed_; }
    // The poll completed: the exporter exited (or its pidfd went bad, which means the same).
    bool fired() const noexcept { return __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE) != cq_head_; }

private:
    int fd_ = -1;
    uint8_t *rings_ = nullptr;
    size_t rings_len_ = 0;
    io_uring_sqe *sqes_ = nullptr;
    const uint32_t *cq_tail_ = nullptr;
    uint32_t cq_head_ = 0;
    bool armed_ = false;
};

class imported final : public transport::region_import {
public:
    // `map`: the exporter's pages [map_base, map_base + map_size) mapped here (shared
    // mechanism), or nullptr (pvw). `table`: the exporter's token table mapped here, or nullptr
    // (a kernel without pidfd_getfd: the word is read with process_vm_readv).
    imported(const region_desc &d, unique_fd pidfd, uint8_t *map, const void *table) noexcept
        : transport::region_import(traits::ops(), d.base, d.len,
                                   (d.flags & k_region_writable) != 0),
          pid_(pid_t(d.pid)), pidfd_(std::move(pidfd)), slot_addr_(d.slot_addr), token_(d.token),
          table_(table),
          word_(table ? static_cast<const std::atomic<uint64_t> *>(table) + d.slot : nullptr),
          map_(map), map_base_(d.map_base), map_size_(d.map_size), inner_base_(d.inner_base),
          inner_end_(d.inner_base + d.inner_size)
    {
        (void)exit_.start(pidfd_.get()); // else alive() asks the pidfd each time
    }
    ~imported() override
    {
        if (map_)
            ::munmap(map_, map_size_);
        if (table_)
            ::munmap(const_cast<void *>(table_), k_table_bytes);
    }

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
    doca_error_t alive(const char **why) const noexcept override
    {
        if (exit_.armed() ? exit_.fired() : !peer_running(pidfd_.get())) {
            *why = "the exporting process has exited";
            return DOCA_ERROR_NOT_FOUND;
        }
        return not_revoked(why);
    }

private:
    // The token word is ours: one load from the exporter's table, or one process_vm_readv.
    doca_error_t not_revoked(const char **why) const noexcept
    {
        uint64_t word = 0;
        if (word_ != nullptr) {
            word = word_->load(std::memory_order_seq_cst);
        } else {
            iovec local{&word, sizeof word};
            iovec remote{reinterpret_cast<void *>(uintptr_t(slot_addr_)), sizeof word};
            const ssize_t got = ::process_vm_readv(pid_, &local, 1, &remote, 1, 0);
            if (got != ssize_t(sizeof word)) {
                const int e = got < 0 ? errno : EFAULT;
                if (e == EPERM) {
                    *why = "no access to the exporting process (another user, a process that is "
                           "not dumpable, or Yama's ptrace_scope 2 or 3)";
                    return DOCA_ERROR_NOT_PERMITTED;
                }
                if (e == ESRCH) {
                    *why = "the exporting process has exited";
                    return DOCA_ERROR_NOT_FOUND;
                }
                *why = "the export is not one of the exporting process's";
                return DOCA_ERROR_NOT_PERMITTED;
            }
        }
        if (word != token_) {
            *why = "the export was revoked (the exporting mmap was stopped or destroyed)";
            return DOCA_ERROR_NOT_PERMITTED;
        }
        return DOCA_SUCCESS;
    }

    // Every access: the window, the access granted, the token. Whether the exporter still runs
    // is alive()'s (a system call: once per DMA task, not per slice) and, for the parts reached
    // with process_vm_readv/writev, transfer_pvw's.
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
        return not_revoked(why);
    }

    // [addr, addr + n) of the exporter from or into `local_buf`: the whole shared pages through
    // the mapping, the rest (all of it under pvw; the partial pages at the ends under shared)
    // with process_vm_readv/writev.
    doca_error_t transfer(uint64_t addr, uint8_t *local_buf, size_t n, bool write,
                          const char **why) const noexcept
    {
        const uint64_t end = addr + n;
        if (map_ == nullptr || inner_end_ <= addr || end <= inner_base_)
            return transfer_pvw(addr, local_buf, n, write, why);
        if (addr < inner_base_) {
            const size_t head = size_t(inner_base_ - addr);
            if (doca_error_t rc = transfer_pvw(addr, local_buf, head, write, why);
                rc != DOCA_SUCCESS)
                return rc;
        }
        const uint64_t lo = std::max(addr, inner_base_);
        const uint64_t hi = std::min(end, inner_end_);
        uint8_t *mapped = map_ + (lo - map_base_);
        uint8_t *mine = local_buf + (lo - addr);
        if (write)
            std::memcpy(mapped, mine, size_t(hi - lo));
        else
            std::memcpy(mine, mapped, size_t(hi - lo));
        if (end > inner_end_)
            return transfer_pvw(inner_end_, local_buf + (inner_end_ - addr),
                                size_t(end - inner_end_), write, why);
        return DOCA_SUCCESS;
    }

    doca_error_t transfer_pvw(uint64_t addr, uint8_t *local_buf, size_t n, bool write,
                              const char **why) const noexcept
    {
        // The pid must still be the exporter's: never another process that reused it.
        if (!peer_running(pidfd_.get())) {
            *why = "the exporting process has exited";
            return DOCA_ERROR_NOT_FOUND;
        }
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
    const void *table_;
    const std::atomic<uint64_t> *word_;
    exit_watch exit_;
    uint8_t *map_;
    uint64_t map_base_;
    uint64_t map_size_;
    uint64_t inner_base_;
    uint64_t inner_end_;
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
    memory_policy policy = memory_policy::auto_select;
    if (memory_policy_from_env(&policy) != DOCA_SUCCESS) {
        why = std::string(k_memory_env) + " is not one of auto, shared, pvw";
        return DOCA_ERROR_BAD_CONFIG;
    }
    uint32_t slot;
    {
        std::lock_guard<std::mutex> g(g_table_mu);
        if (doca_error_t rc = share_table_locked(); rc != DOCA_SUCCESS) {
            why = "cannot create the shared table of this process's exports";
            return rc;
        }
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
    // Shared pages when the range can be shared (auto, shared), else pvw (auto, pvw).
    exported_memory mem;
    if (doca_error_t rc = export_memory(addr, len, policy, mem); rc != DOCA_SUCCESS) {
        std::lock_guard<std::mutex> g(g_table_mu);
        g_free_slots.push_back(slot);
        why = std::string("the range cannot be shared (") + k_memory_env + "=shared)";
        return rc;
    }
    // Importers read us with process_vm_readv/writev and take the memfd with pidfd_getfd: under
    // Yama ptrace_scope=1 that needs our consent (not their pid, which we do not know).
    grant_importers_access();
    const uint64_t token = random_token();
    {
        std::lock_guard<std::mutex> g(g_table_mu);
        g_table.words[slot].store(token, std::memory_order_seq_cst);
    }
    out = std::make_unique<exported>(std::move(mem), writable, slot, token, own_start_time());
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
    if ((d.flags & ~(k_region_writable | k_region_shared)) != 0) {
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
    if (d.slot_addr == 0 || d.slot_addr % alignof(uint64_t) != 0 || d.token == 0 ||
        d.slot >= k_region_slots || d.table_fd > uint32_t(INT32_MAX)) {
        *why = "the descriptor's revocation word is invalid";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((d.flags & k_region_shared) == 0) {
        if (d.fd != 0 || d.map_base != 0 || d.map_size != 0 || d.file_offset != 0 ||
            d.inner_base != 0 || d.inner_size != 0) {
            *why = "the descriptor has shared-memory fields without the shared flag";
            return DOCA_ERROR_INVALID_VALUE;
        }
    } else {
        // The pages: whole, covering the range, the inner ones whole and inside it.
        const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
        const uint64_t map_end = d.map_base + d.map_size;
        const uint64_t inner_end = d.inner_base + d.inner_size;
        if (d.fd > uint32_t(INT32_MAX) || d.map_size == 0 || d.map_base % page != 0 ||
            d.map_size % page != 0 || d.file_offset % page != 0 || map_end < d.map_base ||
            d.file_offset + d.map_size < d.file_offset || d.base < d.map_base ||
            d.base + d.len > map_end || d.inner_base % page != 0 || d.inner_size % page != 0 ||
            inner_end < d.inner_base ||
            (d.inner_size != 0 && (d.inner_base < d.base || inner_end > d.base + d.len))) {
            *why = "the descriptor's shared pages do not describe its range";
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    out = d;
    return DOCA_SUCCESS;
}

namespace {

// The exporter's shared pages of `d`, mapped here: its memfd taken with pidfd_getfd, checked
// to be a sealed memfd holding the pages (the exporter cannot shrink it under our mapping), and
// mapped read-only unless the export is writable.
doca_error_t map_exported_pages(const region_desc &d, int pidfd, uint8_t *&out, std::string &why)
{
    unique_fd fd;
    if (doca_error_t rc = take_exporter_fd(
            pidfd, d.fd, "the export was revoked (the exporting mmap was stopped or destroyed)", fd,
            why);
        rc != DOCA_SUCCESS)
        return rc;
    uint64_t size = 0;
    if (check_sealed_memfd(fd.get(), &size) != nullptr || size < d.file_offset + d.map_size) {
        why = "the export was revoked (the exporter's file is not the exported pages any more)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    const int prot = PROT_READ | ((d.flags & k_region_writable) != 0 ? PROT_WRITE : 0);
    void *m = ::mmap(nullptr, size_t(d.map_size), prot, MAP_SHARED, fd.get(), off_t(d.file_offset));
    if (m == MAP_FAILED) {
        why = std::string("cannot map the exported pages: ") + std::strerror(errno);
        return DOCA_ERROR_NO_MEMORY;
    }
    // The page tables now, as a DMA engine's translation is set up at registration: a first
    // copy would otherwise pay a minor fault per page (a write fault per page of a writable map:
    // 0.34x memcpy for one 64 MiB copy, against 0.8x read).
    if ((d.flags & k_region_writable) != 0) {
        populate_allocated(m, d.map_size, fd.get(), d.file_offset, d.map_size);
    } else {
#ifdef MADV_POPULATE_READ
        constexpr int k_populate_read = MADV_POPULATE_READ;
#else
        constexpr int k_populate_read = 22; // Linux 5.14; older C libraries lack the name
#endif
        (void)::madvise(m, size_t(d.map_size), k_populate_read); // best effort
    }
    out = static_cast<uint8_t *>(m);
    return DOCA_SUCCESS;
}

// The exporter's token table, mapped here read-only: its memfd taken with pidfd_getfd and checked
// to be a sealed memfd of exactly the table's size. DOCA_SUCCESS with `out` nullptr on a kernel
// without pidfd_getfd (the word is then read with process_vm_readv).
doca_error_t map_token_table(const region_desc &d, int pidfd, const void *&out, std::string &why)
{
    out = nullptr;
    unique_fd fd;
    if (doca_error_t rc = take_exporter_fd(
            pidfd, d.table_fd, "the export was revoked (the exporter's table of exports is gone)",
            fd, why);
        rc != DOCA_SUCCESS)
        return rc == DOCA_ERROR_NOT_SUPPORTED ? DOCA_SUCCESS : rc;
    uint64_t size = 0;
    if (check_sealed_memfd(fd.get(), &size) != nullptr || size != k_table_bytes) {
        why = "the export was revoked (the exporter's file is not its table of exports)";
        return DOCA_ERROR_NOT_PERMITTED;
    }
    void *m = ::mmap(nullptr, k_table_bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (m == MAP_FAILED) {
        why = std::string("cannot map the exporter's table of exports: ") + std::strerror(errno);
        return DOCA_ERROR_NO_MEMORY;
    }
    out = m;
    return DOCA_SUCCESS;
}

} // namespace

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
    const void *table = nullptr;
    if (doca_error_t rc = map_token_table(d, pidfd.get(), table, why); rc != DOCA_SUCCESS)
        return rc;
    uint8_t *map = nullptr;
    if ((d.flags & k_region_shared) != 0) {
        if (doca_error_t rc = map_exported_pages(d, pidfd.get(), map, why); rc != DOCA_SUCCESS) {
            if (table != nullptr)
                ::munmap(const_cast<void *>(table), k_table_bytes);
            return rc;
        }
    }
    auto imp = std::make_unique<imported>(d, std::move(pidfd), map, table);
    if (doca_error_t rc = imp->alive(&reason); rc != DOCA_SUCCESS) {
        why = reason;
        return rc;
    }
    out = std::move(imp);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
