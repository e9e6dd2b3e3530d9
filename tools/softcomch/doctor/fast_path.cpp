// SPDX-License-Identifier: Apache-2.0
//
// The doctor's fast-path checks: which mechanism consumer memory gets (shared memory or
// process_vm_writev), whether process_vm_writev is permitted, and memfd_create.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "doctor.hpp"
#include "introspect/memory.hpp"

namespace softcomch::tools::doctor {

namespace {

// Yama's ptrace_scope, or nullopt without Yama.
std::optional<int> yama_scope()
{
    FILE *f = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    if (f == nullptr)
        return std::nullopt;
    int v = -1;
    const int got = std::fscanf(f, "%d", &v);
    std::fclose(f);
    return got == 1 ? std::optional<int>(v) : std::nullopt;
}

} // namespace

void check_fast_path(report &r)
{
    using introspect::memory_env;
    using introspect::memory_policy;
    const std::string mech = introspect::active_memory_mechanism();
    const introspect::memory_setting setting = introspect::memory_policy_setting();
    const bool policy_ok = setting.valid;
    const memory_policy policy = setting.policy;
    r.facts.set("mechanism", mech);

    // Which mechanism.
    if (!policy_ok) {
        r.add(verdict::fail, "fast-path memory",
              std::string("none: ") + memory_env + " is invalid (above)",
              std::string("unset ") + memory_env);
    } else if (policy == memory_policy::shared && !introspect::can_share_a_page()) {
        r.add(verdict::fail, "fast-path memory",
              std::string("shared is forced by ") + memory_env +
                  ", but this process cannot share a heap page (see memfd_create)",
              std::string("unset ") + memory_env + " (auto falls back to pvw)");
    } else if (mech == "shared") {
        r.add(verdict::ok, "fast-path memory",
              "shared: consumer buffers become shared memory the producer maps (one memcpy, no "
              "system call per send)");
    } else if (policy == memory_policy::pvw) {
        r.add(verdict::ok, "fast-path memory",
              std::string("pvw (forced by ") + memory_env +
                  "): process_vm_writev, one system call per send");
    } else {
        r.add(verdict::warn, "fast-path memory",
              "pvw: this process cannot share a heap page (memfd_create, /proc/self/maps or "
              "vm.max_map_count), so sends use process_vm_writev (one system call each)",
              "see the memfd_create line; a seccomp profile may block memfd_create");
    }

    // process_vm_writev: needed when the mechanism is pvw, and by `auto` for memory that cannot be
    // shared (stacks, file mappings).
    const auto scope = yama_scope();
    const introspect::pvw_probe probe = introspect::probe_pvw_on_child();
    r.facts.set("ptrace_scope", scope ? json::value(*scope) : json::value());
    bool permitted = probe.succeeded && (!scope || *scope <= 1 || ::geteuid() == 0);
    r.facts.set("pvw_permitted", permitted);
    std::string yama = !scope ? "no Yama" : "Yama ptrace_scope " + std::to_string(*scope);
    if (permitted) {
        std::string how = !scope || *scope == 0
                              ? "same-uid processes may write each other"
                              : (*scope == 1 ? "consumers allow their peer with PR_SET_PTRACER"
                                             : "root (CAP_SYS_PTRACE)");
        r.add(verdict::ok, "process_vm_writev", "permitted (" + yama + ": " + how + ")");
    } else {
        std::string why =
            probe.not_supported
                ? "not available (ENOSYS: kernel without CROSS_MEMORY_ATTACH, or seccomp)"
                : "refused (" + yama +
                      (scope && *scope >= 2 ? ": only CAP_SYS_PTRACE may attach" : "") +
                      ", probe: " + probe.error + ")";
        verdict v = verdict::ok;
        std::string consequence;
        if (mech == "pvw") {
            v = verdict::fail;
            consequence = ": every fast-path send fails";
        } else if (policy == memory_policy::auto_select) {
            v = verdict::warn;
            consequence = ": consumer memory that cannot be shared (stacks, file mappings) fails";
        } else {
            consequence = ": not needed with SOFTCOMCH_MEMORY=shared";
        }
        std::string fix;
        if (v != verdict::ok)
            fix = scope && *scope == 3
                      ? "ptrace_scope 3 holds until reboot: keep consumer buffers shareable "
                        "(heap, mmap) with SOFTCOMCH_MEMORY=auto or shared"
                      : "as root: sysctl -w kernel.yama.ptrace_scope=1, or keep consumer buffers "
                        "shareable (heap, mmap) with SOFTCOMCH_MEMORY=auto or shared";
        r.add(v, "process_vm_writev", why + consequence, fix);
    }

    // memfd_create: rings (with a /dev/shm fallback), fast channels and shared consumer memory.
    int fd = ::memfd_create("softcomch-doctor", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0) {
        ::close(fd);
        r.add(verdict::ok, "memfd_create",
              "available (rings, fast-path channels and shared consumer memory use sealed memfds)");
        r.facts.set("memfd", true);
        return;
    }
    const int e = errno;
    r.facts.set("memfd", false);
    if (::access("/dev/shm", W_OK | X_OK) == 0)
        r.add(verdict::warn, "memfd_create",
              std::string("fails (") + std::strerror(e) +
                  "): connections fall back to POSIX shared memory in /dev/shm, but consumers and "
                  "producers cannot start",
              "allow memfd_create (Linux >= 3.17; check the container's seccomp profile)");
    else
        r.add(verdict::fail, "memfd_create",
              std::string("fails (") + std::strerror(e) +
                  ") and /dev/shm is not writable: no connection can be set up",
              "allow memfd_create (check the seccomp profile), or mount a writable /dev/shm");
}

} // namespace softcomch::tools::doctor
