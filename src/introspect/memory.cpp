// SPDX-License-Identifier: Apache-2.0
#include "introspect/memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "common/error_names.hpp"
#include "transport/shm/shared_memory.hpp"

namespace softcomch::introspect {

namespace shm = transport::shm;

static_assert(std::string_view(memory_env) == shm::k_memory_env);
static_assert(std::string_view(copy_env) == shm::k_copy_env);

// The introspection enums list the fast path's values in the same order.
template <class To, class From> constexpr To mirrored(From v) noexcept
{
    return static_cast<To>(static_cast<uint32_t>(v));
}
static_assert(mirrored<memory_policy>(shm::memory_policy::auto_select) ==
              memory_policy::auto_select);
static_assert(mirrored<memory_policy>(shm::memory_policy::shared) == memory_policy::shared);
static_assert(mirrored<memory_policy>(shm::memory_policy::pvw) == memory_policy::pvw);
static_assert(mirrored<copy_policy>(shm::copy_policy::auto_select) == copy_policy::auto_select);
static_assert(mirrored<copy_policy>(shm::copy_policy::cached) == copy_policy::cached);
static_assert(mirrored<copy_policy>(shm::copy_policy::streaming) == copy_policy::streaming);

memory_setting memory_policy_setting()
{
    memory_setting s;
    shm::memory_policy p = shm::memory_policy::auto_select;
    if (shm::memory_policy_from_env(&p) != DOCA_SUCCESS)
        return s;
    s.valid = true;
    s.name = shm::memory_policy_name(p);
    s.policy = mirrored<memory_policy>(p);
    return s;
}

copy_setting copy_policy_setting()
{
    copy_setting s;
    shm::copy_plan plan;
    if (shm::copy_plan_from_env(&plan) != DOCA_SUCCESS)
        return s;
    s.valid = true;
    s.name = shm::copy_policy_name(plan.policy);
    s.cache_budget = plan.cache_budget;
    s.policy = mirrored<copy_policy>(plan.policy);
    return s;
}

uint64_t last_level_cache_bytes() noexcept
{
    return shm::last_level_cache_bytes();
}

uint64_t min_streaming_bytes() noexcept
{
    return shm::k_min_streaming_bytes;
}

std::string active_memory_mechanism()
{
    return shm::active_memory_mechanism();
}

bool can_share_a_page()
{
    const long ps = ::sysconf(_SC_PAGESIZE);
    void *m =
        ::mmap(nullptr, size_t(ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return false;
    shm::shared_range range;
    const bool ok = shm::share_range(m, size_t(ps), range) == DOCA_SUCCESS;
    if (ok)
        (void)shm::unshare_range(range);
    ::munmap(m, size_t(ps));
    return ok;
}

namespace {

// shm::probe_pvw() against a child of ours that waits for the end of its pipe.
doca_error_t probe_child()
{
    static volatile int target = 1;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return DOCA_ERROR_OPERATING_SYSTEM;
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    if (pid == 0) {
        ::close(fds[1]);
        char c;
        while (::read(fds[0], &c, 1) < 0 && errno == EINTR) {
        }
        ::_exit(0);
    }
    ::close(fds[0]);
    const doca_error_t rc =
        shm::probe_pvw(pid, reinterpret_cast<uint64_t>(const_cast<int *>(&target)));
    ::close(fds[1]); // the child sees EOF and exits
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return rc;
}

} // namespace

pvw_probe probe_pvw_on_child()
{
    const doca_error_t rc = probe_child();
    pvw_probe p;
    p.succeeded = rc == DOCA_SUCCESS;
    p.not_supported = rc == DOCA_ERROR_NOT_SUPPORTED;
    if (!p.succeeded)
        p.error = softcomch::error_name(rc);
    return p;
}

} // namespace softcomch::introspect
