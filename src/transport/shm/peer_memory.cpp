// SPDX-License-Identifier: Apache-2.0
//
// Consumer memory reachable from the peer: the policy knob (SOFTCOMCH_MEMORY), the pvw fallback
// (process_vm_writev access), export on the consumer side and the producer's mapping of it.
// Contract in shared_memory.hpp; layout notes in docs/shm_layout.md sections 10.9-10.11.
#include "transport/shm/shared_memory.hpp"

#include "common/enum_names.hpp"
#include "common/errno_map.hpp"
#include "transport/shm/memory_detail.hpp"
#include "transport/shm/peer_checks.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace softcomch::transport::shm {

// errno of a process_vm_* call -> DOCA error (`gone` for ESRCH).
doca_error_t pvw_errno(int e, doca_error_t gone) noexcept
{
    switch (e) {
    case EPERM:
    case EACCES:
        // The ptrace access check failed: Yama, another uid, a non-dumpable consumer.
        return DOCA_ERROR_NOT_PERMITTED;
    case ESRCH:
        // No such process: the consumer exited (probe: NOT_FOUND; copy: the peer is gone).
        return gone;
    case EFAULT:
        // The address is not mapped (writable) in the consumer: a bad post entry.
        return DOCA_ERROR_INVALID_VALUE;
    case ENOMEM:
        return DOCA_ERROR_NO_MEMORY;
    case ENOSYS:
        // A kernel built without CONFIG_CROSS_MEMORY_ATTACH, or a seccomp filter.
        return DOCA_ERROR_NOT_SUPPORTED;
    default:
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
}

// ---- policy ---------------------------------------------------------------------------------

namespace {

// SOFTCOMCH_MEMORY's values; case-sensitive on purpose, like the other knobs.
constexpr enum_name<memory_policy> k_memory_policies[] = {{memory_policy::auto_select, "auto"},
                                                          {memory_policy::shared, "shared"},
                                                          {memory_policy::pvw, "pvw"}};
constexpr enum_name<memory_mechanism> k_memory_mechanisms[] = {{memory_mechanism::none, "none"},
                                                               {memory_mechanism::shared, "shared"},
                                                               {memory_mechanism::pvw, "pvw"}};

} // namespace

// Read on every call (control path only): tests and tools change the variable at run time.
doca_error_t memory_policy_from_env(memory_policy *out) noexcept
{
    return value_from_env(k_memory_policies, k_memory_env, memory_policy::auto_select, out)
               ? DOCA_SUCCESS
               : DOCA_ERROR_BAD_CONFIG;
}

const char *memory_policy_name(memory_policy p) noexcept
{
    return name_of(k_memory_policies, p);
}

const char *memory_mechanism_name(memory_mechanism m) noexcept
{
    return name_of(k_memory_mechanisms, m);
}

const char *active_memory_mechanism() noexcept
{
    memory_policy p;
    if (memory_policy_from_env(&p) != DOCA_SUCCESS)
        return "invalid";
    if (p != memory_policy::auto_select)
        return memory_policy_name(p);
    // auto: what would an ordinary private page get? Try it on a scratch page.
    // (Covers memfd availability, seccomp filters, /proc being readable, the map limit.)
    const uint64_t ps = page_size();
    void *m = ::mmap(nullptr, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return "pvw";
    shared_range r;
    const bool ok = share_range(m, ps, r) == DOCA_SUCCESS;
    if (ok)
        (void)unshare_range(r);
    ::munmap(m, ps);
    return ok ? "shared" : "pvw";
}

// ---- pvw ------------------------------------------------------------------------------------

// Yama's PR_SET_PTRACER: "this process may be ptraced (and process_vm_* accessed) by `peer` and
// its descendants", in addition to the usual same-uid rule. Effective under ptrace_scope 1 only.
doca_error_t allow_peer_access(pid_t peer) noexcept
{
    const unsigned long who = peer < 0 ? PR_SET_PTRACER_ANY : static_cast<unsigned long>(peer);
    if (::prctl(PR_SET_PTRACER, who, 0, 0, 0) == 0)
        return DOCA_SUCCESS;
    // EINVAL without Yama: nothing restricts ptrace beyond the usual uid/dumpable rules.
    if (errno == EINVAL && ::access("/proc/sys/kernel/yama/ptrace_scope", F_OK) != 0)
        return DOCA_SUCCESS;
    return DOCA_ERROR_OPERATING_SYSTEM;
}

doca_error_t probe_pvw(pid_t pid, uint64_t peer_addr) noexcept
{
    if (pid <= 0)
        return DOCA_ERROR_INVALID_VALUE;
    // A one-byte read: same ptrace access check as a write, and harmless.
    uint8_t byte = 0;
    const iovec local{&byte, 1};
    const iovec remote{reinterpret_cast<void *>(peer_addr), 1};
    const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n == 1)
        return DOCA_SUCCESS;
    return n < 0 ? pvw_errno(errno, DOCA_ERROR_NOT_FOUND) : DOCA_ERROR_INVALID_VALUE;
}

// ---- export / import ------------------------------------------------------------------------

// Consumer side: one call per consumer mmap (SoftComch shares an mmap once, however many
// consumers use it).
doca_error_t export_memory(void *addr, size_t len, memory_policy policy,
                           exported_memory &out) noexcept
{
    // The same argument rules as share_range, checked here for the pvw policy too.
    const auto a = reinterpret_cast<uint64_t>(addr);
    if (addr == nullptr || len == 0 || a + len < a)
        return DOCA_ERROR_INVALID_VALUE;
    // Built locally; `out` is written on success only.
    exported_memory m;
    m.desc.pid = uint32_t(::getpid());
    m.desc.addr = a;
    m.desc.len = len;
    if (policy != memory_policy::pvw) {
        shared_range r;
        const doca_error_t err = share_range(addr, len, r);
        if (err == DOCA_SUCCESS) {
            m.desc.mechanism = uint32_t(memory_mechanism::shared);
            m.desc.map_base = r.base;
            m.desc.map_size = r.size;
            m.desc.file_offset = r.file_offset;
            m.range = std::move(r);
            out = std::move(m);
            return DOCA_SUCCESS;
        }
        // Forced shared: no fallback. auto: anything share_range refuses goes to pvw.
        if (policy == memory_policy::shared || err == DOCA_ERROR_INVALID_VALUE)
            return err;
    }
    // pvw: the peer writes at our own addresses; nothing to prepare here (allow_peer_access is
    // per peer process, done by the caller once it knows the peer's pid).
    m.desc.mechanism = uint32_t(memory_mechanism::pvw);
    out = std::move(m);
    return DOCA_SUCCESS;
}

// The reverse; only the shared mechanism holds anything to undo.
doca_error_t unexport_memory(exported_memory &m) noexcept
{
    if (m.range.valid()) {
        const doca_error_t err = unshare_range(m.range);
        if (err != DOCA_SUCCESS)
            return err;
    }
    m = exported_memory();
    return DOCA_SUCCESS;
}

// Moves transfer the mapping; the source is left empty (its target no longer points anywhere).
peer_mapping::peer_mapping(peer_mapping &&other) noexcept
    : map_(std::move(other.map_)), pidfd_(std::move(other.pidfd_)),
      target_(std::exchange(other.target_, peer_target{}))
{}

peer_mapping &peer_mapping::operator=(peer_mapping &&other) noexcept
{
    if (this != &other) {
        map_ = std::move(other.map_); // unmaps ours first
        pidfd_ = std::move(other.pidfd_);
        target_ = std::exchange(other.target_, peer_target{});
    }
    return *this;
}

// The producer's view of consumer address `peer_addr`: local = mapping + (peer_addr - window
// start). Checked against the registered window, never just the mapped pages.
uint8_t *peer_mapping::translate(uint64_t peer_addr, uint64_t len) const noexcept
{
    if (target_.mechanism != memory_mechanism::shared ||
        !in_window(target_.addr, target_.len, peer_addr, len))
        return nullptr;
    return target_.local + (peer_addr - target_.addr);
}

// Producer side, control path: every field of `d` came from the peer and is checked here once;
// the data path then relies on the process-local target only.
doca_error_t map_peer(int fd, const memory_desc &d, peer_mapping &out, int pidfd) noexcept
{
    // The window producers may write: non-empty, not wrapping.
    if (d.len == 0 || d.addr + d.len < d.addr)
        return DOCA_ERROR_INVALID_VALUE;
    if (d.mechanism == uint32_t(memory_mechanism::pvw)) {
        // Check access now, so a refused pvw is a connection-time error, not a data-path one.
        const doca_error_t err = probe_pvw(pid_t(d.pid), d.addr);
        if (err != DOCA_SUCCESS)
            return err;
        unique_fd own(pidfd >= 0 ? ::fcntl(pidfd, F_DUPFD_CLOEXEC, 0) : -1);
        if (pidfd >= 0 && !own)
            return resource_errno_to_doca(errno);
        out = peer_mapping();
        out.pidfd_ = std::move(own);
        out.target_ = peer_target{memory_mechanism::pvw, d.addr,          d.len, nullptr,
                                  pid_t(d.pid),          out.pidfd_.get()};
        return DOCA_SUCCESS;
    }
    if (d.mechanism != uint32_t(memory_mechanism::shared) || fd < 0)
        return DOCA_ERROR_INVALID_VALUE;
    // Geometry: whole pages, no wrap, the window inside the pages.
    const uint64_t ps = page_size();
    if (d.map_size == 0 || d.map_base % ps != 0 || d.map_size % ps != 0 ||
        d.file_offset % ps != 0 || d.map_base + d.map_size < d.map_base ||
        d.file_offset + d.map_size < d.file_offset ||
        !in_window(d.map_base, d.map_size, d.addr, d.len))
        return DOCA_ERROR_INVALID_VALUE;
    // A sealed memfd (the peer cannot truncate it under our mapping: SIGBUS) that holds every
    // byte we map.
    uint64_t file_size = 0;
    if (check_sealed_memfd(fd, &file_size) != nullptr || file_size < d.file_offset + d.map_size)
        return DOCA_ERROR_INVALID_VALUE;
    // Pre-faulted only where the file has pages already (the consumer wrote them when it shared
    // its memory) and only up to k_peer_populate_budget: the size is the peer's choice, and a
    // sparse 2 GiB file must not cost 2 GiB here. Other pages fault once, on the first payload
    // written into them.
    void *m =
        ::mmap(nullptr, d.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(d.file_offset));
    if (m == MAP_FAILED)
        return resource_errno_to_doca(errno);
    populate_allocated(m, d.map_size, fd, d.file_offset, k_peer_populate_budget);
    out = peer_mapping();
    out.map_ = mapped_region(m, d.map_size);
    out.target_ = peer_target{memory_mechanism::shared, d.addr, d.len,
                              static_cast<uint8_t *>(m) + (d.addr - d.map_base), 0};
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
