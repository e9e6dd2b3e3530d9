// SPDX-License-Identifier: Apache-2.0
//
// softcomch doctor: environment and install checks, so a developer learns why Comch programs will
// or will not work here before chasing a connection that never forms. Each check is one line:
// status (ok, warn, FAIL), what was checked, the finding and, for warn/FAIL, what to do.
//
// Every finding comes from the library's own code: the parsers of the SOFTCOMCH_* variables, the
// topology loader, the fabric's paths and endpoint files, the fast path's memory probe. The
// doctor changes nothing: stale endpoints are reported, not removed.
#include <doca_version.h>

#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "command.hpp"
#include "common/error_names.hpp"
#include "common/json.hpp"
#include "common/posix.hpp"
#include "common/log_backend.hpp"
#include "core/topology.hpp"
#include "options.hpp"
#include "paths.hpp"
#include "transport/fabric.hpp"
#include "transport/shm/shared_memory.hpp"
#include "transport/unix_socket.hpp"

extern char **environ;

namespace softcomch::tools {

namespace {

namespace fs = std::filesystem;
namespace shm = transport::shm;

constexpr std::array doctor_options{
    option_spec{"json", 0, "", "print the report as one JSON object on stdout"},
    option_spec{"fabric", 0, "NAME",
                "check fabric NAME instead of $SOFTCOMCH_FABRIC (e.g. one kept by run --fabric)"},
};

constexpr command_usage doctor_usage{
    "doctor",
    "[--json] [--fabric NAME]",
    "Checks this machine and environment for SoftComch: versions, every SOFTCOMCH_* variable "
    "(unknown ones are likely typos), the fabric directory and the endpoints in it (stale ones "
    "of dead servers), the devices this process would see, the fast path's memory mechanism "
    "(shared memory or process_vm_writev) and copy policy, descriptor limits, memfd_create, and "
    "for an installed tree the library and the pkg-config files. Each line reads: status (ok, "
    "warn, FAIL), what was checked, the finding, and for warn/FAIL what to do. Nothing is "
    "changed.",
    doctor_options,
    "Exit status:\n"
    "  0  no check FAILed (warnings allowed)\n"
    "  1  at least one check FAILed\n"
    "  2  bad command line\n",
};

// Descriptors one Comch connection holds in the server (its socket and two eventfds; the
// segment's fd is closed once mapped), and one consumer or producer on top (eventfd, channel and
// memory memfds). Counted in /proc/<pid>/fd of comch_ping and comch_stream servers; used only to
// turn RLIMIT_NOFILE into a number of connections.
constexpr uint64_t fds_per_connection = 3;
constexpr uint64_t fds_per_fast_path_ctx = 4;
constexpr uint64_t fds_base = 64; // the program's own, stdio, the progress engine's
// Below this many connections RLIMIT_NOFILE is a warning (the usual soft limit, 1024, allows ~320).
constexpr uint64_t min_comfortable_connections = 128;

// ---- the report --------------------------------------------------------------------------------

enum class verdict { ok, warn, fail };

const char *verdict_name(verdict v) noexcept
{
    switch (v) {
    case verdict::ok:
        return "ok";
    case verdict::warn:
        return "warn";
    case verdict::fail:
        return "FAIL";
    }
    return "?";
}

struct check_result {
    verdict status = verdict::ok;
    std::string check;                // what was checked ("SOFTCOMCH_MEMORY", "fabric", ...)
    std::string finding;              // what was found
    std::string fix;                  // warn/fail: what to do
    std::vector<std::string> details; // extra lines (devices)
};

struct report {
    std::vector<check_result> checks;
    json::value facts = json::value::object(); // machine-readable findings for --json

    check_result &add(verdict v, std::string check, std::string finding, std::string fix = {})
    {
        checks.push_back({v, std::move(check), std::move(finding), std::move(fix), {}});
        return checks.back();
    }
    size_t count(verdict v) const
    {
        return size_t(std::count_if(checks.begin(), checks.end(),
                                    [v](const check_result &c) { return c.status == v; }));
    }
};

// ---- small helpers -----------------------------------------------------------------------------

// The value of an environment variable; nullopt when unset or empty (the library treats both
// alike for every SOFTCOMCH_* variable).
std::optional<std::string> env_value(const char *name)
{
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0')
        return std::nullopt;
    return std::string(v);
}

std::string in_quotes(const std::string &s)
{
    return "\"" + s + "\"";
}

std::string bytes_text(uint64_t n)
{
    char buf[32];
    if (n >= (uint64_t(1) << 30) && n % (uint64_t(1) << 30) == 0)
        std::snprintf(buf, sizeof buf, "%llu GiB", static_cast<unsigned long long>(n >> 30));
    else if (n >= (uint64_t(1) << 20))
        std::snprintf(buf, sizeof buf, "%.0f MiB", double(n) / double(1 << 20));
    else if (n >= 1024)
        std::snprintf(buf, sizeof buf, "%.0f KiB", double(n) / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
    return buf;
}

std::string limit_text(rlim_t v)
{
    return v == RLIM_INFINITY ? std::string("unlimited")
                              : std::to_string(static_cast<unsigned long long>(v));
}

std::string real_path(const std::string &p)
{
    std::error_code ec;
    auto r = fs::canonical(p, ec);
    return ec ? p : r.string();
}

// A library exception's message without the "softcomch: " prefix and the errno text what()
// appends.
std::string library_message(const std::system_error &e)
{
    std::string m = e.what();
    if (m.starts_with("softcomch: "))
        m.erase(0, 11);
    const std::string tail = ": " + e.code().message();
    if (m.ends_with(tail))
        m.erase(m.size() - tail.size());
    return m;
}

// Levenshtein distance, for "did you mean" on misspelt variable names.
size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// An executable named `name` on $PATH.
bool on_path(const std::string &name)
{
    const char *path = std::getenv("PATH");
    if (path == nullptr)
        return false;
    std::string_view rest(path);
    while (true) {
        const size_t colon = rest.find(':');
        std::string dir(rest.substr(0, colon));
        if (dir.empty())
            dir = ".";
        if (::access((dir + "/" + name).c_str(), X_OK) == 0)
            return true;
        if (colon == std::string_view::npos)
            return false;
        rest.remove_prefix(colon + 1);
    }
}

// Runs a shell command line; its stdout (trailing newline removed) and exit status.
std::pair<int, std::string> capture(const std::string &command)
{
    std::string out;
    FILE *p = ::popen(command.c_str(), "r");
    if (p == nullptr)
        return {-1, out};
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    const int status = ::pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// ---- versions ----------------------------------------------------------------------------------

void check_version(report &r)
{
    char doca[64];
    std::snprintf(doca, sizeof doca, "DOCA API %s (DOCA %d.%d)", DOCA_VERSION_STRING,
                  DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR);
    r.add(verdict::ok, "version",
          std::string("softcomch ") + SOFTCOMCH_VERSION_STRING + ", " + doca);
    r.facts.set("softcomch_version", SOFTCOMCH_VERSION_STRING);
    r.facts.set("doca_api_version", DOCA_VERSION_STRING);
}

// ---- environment variables ---------------------------------------------------------------------

// Every SOFTCOMCH_* variable something of SoftComch reads, and who reads it.
struct known_variable {
    const char *name;
    const char *reader;
};
constexpr std::array known_variables{
    known_variable{"SOFTCOMCH_FABRIC", "library"},
    known_variable{"SOFTCOMCH_SIDE", "library"},
    known_variable{"SOFTCOMCH_TOPOLOGY", "library"},
    known_variable{"SOFTCOMCH_LOG_LEVEL", "library"},
    known_variable{shm::k_memory_env, "library"},
    known_variable{shm::k_copy_env, "library"},
    known_variable{"SOFTCOMCH_SAMPLES_DIR", "softcomch demo"},
    known_variable{"SOFTCOMCH_TEST_BIN_DIR", "the test suite"},
};

void check_fabric_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_FABRIC");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_FABRIC", "unset: fabric \"default\"");
        return;
    }
    if (!transport::valid_fabric_name(*v)) {
        r.add(verdict::fail, "SOFTCOMCH_FABRIC",
              in_quotes(*v) +
                  " is not a fabric name ([A-Za-z0-9._-]{1,64}): servers and clients fail "
                  "to start",
              "export SOFTCOMCH_FABRIC=<letters, digits, '.', '_', '-'>, or unset it");
        return;
    }
    r.add(verdict::ok, "SOFTCOMCH_FABRIC",
          in_quotes(*v) +
              ": only processes with the same SOFTCOMCH_FABRIC (and uid) see each other");
}

void check_side_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_SIDE");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_SIDE", "unset: devices of both sides are visible");
        return;
    }
    if (*v == "host" || *v == "dpu") {
        r.add(verdict::ok, "SOFTCOMCH_SIDE",
              *v + ": only " +
                  (*v == "host" ? "host-side devices (Comch clients)"
                                : "DPU-side devices (Comch servers)") +
                  " are visible");
        return;
    }
    // The loader's own message.
    const auto &view = core::machine();
    r.add(verdict::fail, "SOFTCOMCH_SIDE",
          view.error.empty() ? in_quotes(*v) + " is invalid" : view.error,
          "export SOFTCOMCH_SIDE=host or SOFTCOMCH_SIDE=dpu, or unset it");
}

void check_topology_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_TOPOLOGY");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_TOPOLOGY", "unset: the built-in BlueField-3 (bf0)");
        return;
    }
    std::string error;
    auto topo = core::topology::from_file(*v, &error);
    if (!topo) {
        r.add(verdict::fail, "SOFTCOMCH_TOPOLOGY",
              error + " (every doca_devinfo_create_list fails with DOCA_ERROR_INITIALIZATION)",
              "fix the file (docs/topology.md), or unset SOFTCOMCH_TOPOLOGY for the built-in "
              "machine");
        return;
    }
    r.add(verdict::ok, "SOFTCOMCH_TOPOLOGY",
          *v + ": " + std::to_string(topo->bluefields().size()) + " BlueField(s), " +
              std::to_string(topo->devices().size()) + " devices, " +
              std::to_string(topo->representors().size()) + " representors");
}

void check_log_level_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_LOG_LEVEL");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_LOG_LEVEL", "unset: the program's own SDK log level applies");
        return;
    }
    uint32_t level = 0;
    if (!log::parse_level(*v, &level)) {
        r.add(verdict::warn, "SOFTCOMCH_LOG_LEVEL",
              in_quotes(*v) + " is not a log level: ignored (programs say so once on stderr)",
              "use 10..70 or disable, critical, error, warning, info, debug, trace");
        return;
    }
    r.add(verdict::ok, "SOFTCOMCH_LOG_LEVEL",
          in_quotes(*v) + ": SDK lines up to level " + std::to_string(level) + " (" +
              log::level_token(level) + "), whatever the program sets");
}

void check_memory_env(report &r)
{
    shm::memory_policy p;
    const auto v = env_value(shm::k_memory_env);
    if (shm::memory_policy_from_env(&p) != DOCA_SUCCESS) {
        r.add(verdict::fail, shm::k_memory_env,
              in_quotes(v.value_or("")) +
                  " is not one of auto, shared, pvw: no consumer memory can be exported, so "
                  "consumers fail to start",
              std::string("unset ") + shm::k_memory_env + ", or set it to auto, shared or pvw");
        r.facts.set("memory_policy", "invalid");
        return;
    }
    r.facts.set("memory_policy", shm::memory_policy_name(p));
    const char *what = "";
    switch (p) {
    case shm::memory_policy::auto_select:
        what = "shared memory when the consumer's memory can be shared, else process_vm_writev";
        break;
    case shm::memory_policy::shared:
        what = "shared memory only (memory that cannot be shared is an error, no fallback)";
        break;
    case shm::memory_policy::pvw:
        what = "process_vm_writev only (one system call per send)";
        break;
    }
    r.add(verdict::ok, shm::k_memory_env,
          (v ? in_quotes(*v) : std::string("unset")) + ": " + shm::memory_policy_name(p) + ", " +
              what);
}

void check_copy_env(report &r)
{
    const uint64_t llc = shm::last_level_cache_bytes();
    r.facts.set("last_level_cache_bytes", llc);
    r.facts.set("cache_budget_bytes", llc / 2);
    shm::copy_plan plan;
    const auto v = env_value(shm::k_copy_env);
    if (shm::copy_plan_from_env(&plan) != DOCA_SUCCESS) {
        r.add(
            verdict::fail, shm::k_copy_env,
            in_quotes(v.value_or("")) +
                " is not one of auto, cached, streaming: producers fail to start (doca_ctx_start)",
            std::string("unset ") + shm::k_copy_env + ", or set it to auto, cached or streaming");
        r.facts.set("copy_policy", "invalid");
        return;
    }
    r.facts.set("copy_policy", shm::copy_policy_name(plan.policy));
    const std::string min = bytes_text(shm::k_min_streaming_bytes);
    std::string what;
    switch (plan.policy) {
    case shm::copy_policy::auto_select:
        what = "payloads from " + min +
               " are streamed (non-temporal stores) once posted buffers + "
               "payload exceed the cache budget of " +
               bytes_text(plan.cache_budget) + " (half the " + bytes_text(llc) +
               " last-level cache)";
        break;
    case shm::copy_policy::cached:
        what = "plain stores for every payload (cache budget " + bytes_text(plan.cache_budget) +
               " not used)";
        break;
    case shm::copy_policy::streaming:
        what = "non-temporal stores for every payload from " + min;
        break;
    }
    r.add(verdict::ok, shm::k_copy_env,
          (v ? in_quotes(*v) : std::string("unset")) + ": " + shm::copy_policy_name(plan.policy) +
              ", " + what);
}

void check_samples_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_SAMPLES_DIR");
    if (!v)
        return; // a tool-only override; nothing to say when unset
    if (::access((*v + "/comch_ctrl_path_server").c_str(), X_OK) == 0) {
        r.add(verdict::ok, "SOFTCOMCH_SAMPLES_DIR",
              *v + ": softcomch demo takes its programs from here");
        return;
    }
    r.add(verdict::warn, "SOFTCOMCH_SAMPLES_DIR",
          *v + " has no executable comch_ctrl_path_server: softcomch demo looks elsewhere",
          "point it at <prefix>/libexec/softcomch or <build>/samples, or unset it");
}

// SOFTCOMCH_* variables nobody reads (typos), and DOCA_LOG_LEVEL, which folklore invents.
void check_unknown_env(report &r)
{
    std::vector<std::pair<std::string, std::string>> unknown;
    for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const size_t eq = entry.find('=');
        const std::string name(entry.substr(0, eq));
        const std::string value(eq == std::string_view::npos ? "" : entry.substr(eq + 1));
        if (name == "DOCA_LOG_LEVEL") {
            r.add(verdict::warn, name,
                  "set to " + in_quotes(value) + ", but neither DOCA nor SoftComch reads it",
                  "use SOFTCOMCH_LOG_LEVEL, or the program's --sdk-log-level / -l flags");
            continue;
        }
        if (!name.starts_with("SOFTCOMCH_"))
            continue;
        if (std::none_of(known_variables.begin(), known_variables.end(),
                         [&](const known_variable &k) { return name == k.name; }))
            unknown.emplace_back(name, value);
    }
    std::sort(unknown.begin(), unknown.end());
    for (const auto &[name, value] : unknown) {
        const known_variable *best = nullptr;
        size_t best_d = 4; // more than 3 edits is not a typo
        for (const auto &k : known_variables) {
            const size_t d = edit_distance(name, k.name);
            if (d < best_d) {
                best_d = d;
                best = &k;
            }
        }
        r.add(verdict::warn, name,
              "set to " + in_quotes(value) + ", but SoftComch reads no such variable",
              best ? std::string("did you mean ") + best->name + "?" : "unset it (a typo?)");
    }
}

// ---- fabric ------------------------------------------------------------------------------------

struct endpoint_fact {
    std::string name;
    int pid = 0;
    bool alive = false;
    std::string reason; // why it is stale
    std::string bluefield, host_function, dpu_device, representor, socket, info;
};

std::string endpoint_where(const transport::endpoint_info &e)
{
    std::string s = e.key.bluefield + ", host function " + e.key.host_function;
    if (!e.dpu_device.empty())
        s += " via DPU " + e.dpu_device + (e.representor.empty() ? "" : "/" + e.representor);
    return s;
}

// The endpoints of `dir`, judged but never touched (list_endpoints() would remove stale ones).
void check_endpoints(report &r, const std::string &fabric, const std::string &dir,
                     json::value &fabric_facts)
{
    json::value eps = json::value::array();
    const transport::fabric_files files = transport::scan_fabric_dir(dir);
    std::vector<std::string> socks = files.sockets; // those without an info file remain
    size_t live = 0, stale = 0;
    auto record = [&](const endpoint_fact &f) {
        json::value j = json::value::object();
        j.set("name", f.name).set("pid", f.pid).set("alive", f.alive);
        if (!f.alive)
            j.set("stale_reason", f.reason);
        j.set("bluefield", f.bluefield).set("host_function", f.host_function);
        j.set("dpu_device", f.dpu_device).set("representor", f.representor);
        j.set("socket", f.socket).set("info", f.info);
        eps.push_back(std::move(j));
    };

    for (const auto &name : files.infos) {
        const std::string path = dir + "/" + name;
        transport::endpoint_info e;
        if (!transport::read_endpoint_info(path, e)) {
            ++stale;
            r.add(verdict::warn, "endpoint", path + " is not a readable endpoint file",
                  "rm -f " + path);
            continue;
        }
        socks.erase(std::remove(socks.begin(), socks.end(),
                                e.socket_path.substr(e.socket_path.rfind('/') + 1)),
                    socks.end());
        endpoint_fact f{
            e.key.name,   e.pid,         false,         {},  e.key.bluefield, e.key.host_function,
            e.dpu_device, e.representor, e.socket_path, path};
        f.alive = !transport::endpoint_dead(e);
        if (f.alive) {
            ++live;
            r.add(verdict::ok, "endpoint",
                  in_quotes(e.key.name) + ": server pid " + std::to_string(e.pid) + " listening (" +
                      endpoint_where(e) + ")");
        } else {
            ++stale;
            f.reason =
                softcomch::process_exists(e.pid) ? "socket file missing" : "server process gone";
            r.add(verdict::warn, "endpoint",
                  "stale " + in_quotes(e.key.name) + " (" + endpoint_where(e) + "): server pid " +
                      std::to_string(e.pid) +
                      (softcomch::process_exists(e.pid) ? " is alive but its socket file is missing"
                                                        : " is gone (crashed or killed)") +
                      "; its clients wait until a server of that name starts again",
                  "restart the DPU side (its server replaces the stale files), or remove them: "
                  "rm -f " +
                      e.socket_path + " " + path);
        }
        record(f);
    }
    // Sockets without an info file: a server between listen() and writing its info, or a leftover.
    for (const auto &name : socks) {
        const std::string path = dir + "/" + name;
        const transport::socket_probe p = transport::probe_socket(path);
        endpoint_fact f;
        f.socket = path;
        if (p == transport::socket_probe::live) {
            ++live;
            f.alive = true;
            r.add(verdict::ok, "endpoint", path + ": listening (its info file is not written yet)");
        } else if (p == transport::socket_probe::absent) {
            continue;
        } else {
            ++stale;
            f.reason = "socket without info file, nobody listening";
            r.add(verdict::warn, "endpoint",
                  path + ": a socket nobody listens on, without info file", "rm -f " + path);
        }
        record(f);
    }
    for (const auto &name : files.dead_tmps) {
        const int pid = std::atoi(name.c_str() + name.rfind('.') + 1);
        ++stale;
        r.add(verdict::warn, "endpoint",
              dir + "/" + name + ": temporary info file of a dead process (pid " +
                  std::to_string(pid) + ")",
              "rm -f " + dir + "/" + name);
    }
    if (live == 0 && stale == 0)
        r.add(verdict::ok, "endpoints",
              "none: no Comch server is listening in fabric " + in_quotes(fabric));
    fabric_facts.set("live_endpoints", live);
    fabric_facts.set("stale_endpoints", stale);
    fabric_facts.set("endpoints", std::move(eps));
}

void check_fabric(report &r, const std::string &fabric)
{
    json::value facts = json::value::object();
    facts.set("name", fabric);
    std::string dir;
    try {
        dir = transport::fabric_dir_path(fabric);
    } catch (const std::system_error &e) {
        r.add(verdict::fail, "fabric", library_message(e), "use a name of [A-Za-z0-9._-]{1,64}");
        r.facts.set("fabric", std::move(facts));
        return;
    }
    facts.set("dir", dir);
    const auto xdg = env_value("XDG_RUNTIME_DIR");
    const bool under_xdg = xdg && dir.starts_with(*xdg + "/softcomch/");
    std::string where = under_xdg ? "under $XDG_RUNTIME_DIR"
                                  : (xdg ? "XDG_RUNTIME_DIR=" + *xdg + " is not usable"
                                         : "XDG_RUNTIME_DIR is unset");
    const std::string uid = std::to_string(::geteuid());

    verdict v = verdict::ok;
    std::string state, fix;
    struct stat st;
    if (::lstat(dir.c_str(), &st) == 0) {
        facts.set("exists", true);
        if (!S_ISDIR(st.st_mode)) {
            v = verdict::fail;
            state = "exists but is not a directory (or is a symlink)";
            fix = "remove it: rm -f " + dir;
        } else if (st.st_uid != ::geteuid()) {
            v = verdict::fail;
            state = "is owned by uid " + std::to_string(st.st_uid) + ", not by us (uid " + uid +
                    "): the library refuses it";
            fix = "run as uid " + std::to_string(st.st_uid) +
                  ", or remove the directory as its owner";
        } else if (::access(dir.c_str(), W_OK | X_OK) != 0) {
            v = verdict::fail;
            state = std::string("is not writable: ") + std::strerror(errno);
            fix = "chmod 700 " + dir;
        } else {
            state = "exists, writable";
        }
    } else {
        facts.set("exists", false);
        // The first existing ancestor must let us create the rest.
        fs::path p = fs::path(dir).parent_path();
        while (!p.empty() && p != p.root_path() && ::access(p.c_str(), F_OK) != 0)
            p = p.parent_path();
        if (::access(p.c_str(), W_OK | X_OK) == 0) {
            state = "does not exist yet; the first server or client creates it";
        } else {
            v = verdict::fail;
            state = "cannot be created: " + p.string() + " is not writable";
            fix =
                "make " + p.string() + " writable, or set XDG_RUNTIME_DIR to a directory of yours";
        }
    }
    if (v == verdict::ok && xdg && !under_xdg) {
        v = verdict::warn;
        fix = "processes that can use XDG_RUNTIME_DIR rendezvous there instead: make it an "
              "existing writable directory, or unset it everywhere";
    }
    // Every endpoint socket path must fit a sockaddr_un; the library says so if not.
    if (v != verdict::fail) {
        const auto &view = core::machine();
        if (view.topo) {
            for (doca_devinfo *d : view.topo->devices()) {
                if (d->side() != core::side::host)
                    continue;
                try {
                    (void)transport::endpoint_socket_path(dir,
                                                          {d->bluefield_id(), d->pci_addr(), "x"});
                } catch (const std::system_error &e) {
                    v = verdict::fail;
                    state = library_message(e);
                    if (const size_t cut = state.find("; use a shorter"); cut != std::string::npos)
                        state.erase(cut);
                    fix = "use a shorter SOFTCOMCH_FABRIC or XDG_RUNTIME_DIR";
                    break;
                }
            }
        }
    }
    r.add(v, "fabric",
          in_quotes(fabric) + ": " + dir + ": " + state + " (" + where + "; private to uid " + uid +
              ")",
          fix);
    check_endpoints(r, fabric, dir, facts);
    r.facts.set("fabric", std::move(facts));
}

// ---- devices -----------------------------------------------------------------------------------

std::string function_text(const doca_devinfo &d)
{
    switch (d.func_type()) {
    case DOCA_PCI_FUNC_TYPE_PF:
        return "PF" + std::to_string(d.pf_index());
    case DOCA_PCI_FUNC_TYPE_VF:
        return "VF" + std::to_string(d.vf_index()) + " of PF" + std::to_string(d.pf_index());
    case DOCA_PCI_FUNC_TYPE_SF:
        return "SF" + std::to_string(d.sf_num()) + " of PF" + std::to_string(d.pf_index());
    }
    return "?";
}

void check_devices(report &r)
{
    const auto &view = core::machine();
    json::value devices = json::value::array();
    if (view.status != DOCA_SUCCESS || view.topo == nullptr) {
        r.add(verdict::fail, "devices", "none: " + view.error,
              "fix SOFTCOMCH_TOPOLOGY / SOFTCOMCH_SIDE (above)");
        r.facts.set("devices", std::move(devices));
        return;
    }
    const auto visible = view.visible_devices();
    const char *sides = !view.side_filter                       ? "both sides"
                        : *view.side_filter == core::side::host ? "host side only"
                                                                : "DPU side only";
    bool server = false, client = false;
    std::vector<std::string> details;
    std::vector<std::string> refused; // BlueFields whose representors this user may not open
    const core::credentials who = core::credentials::current();
    for (const auto &bf : view.topo->bluefields()) {
        details.push_back(bf->id_ + ": " + bf->model_ + ", " + core::bf_mode_name(bf->mode_) +
                          " mode");
        for (doca_devinfo *d : visible) {
            if (&d->board() != bf.get())
                continue;
            server = server || d->server_capable();
            client = client || d->client_capable();
            std::string line = std::string("  ") + core::side_name(d->side()) +
                               (d->side() == core::side::host ? "  " : "   ") + d->pci_addr() +
                               "  " + d->ibdev_name() + "  " + function_text(*d);
            std::string roles = d->server_capable()   ? "server"
                                : d->client_capable() ? "client"
                                                      : "no Comch";
            json::value reps = json::value::array();
            for (doca_devinfo_rep *rep : d->representors()) {
                roles += (reps.size() == 0 ? "; representors " : ", ") + rep->name() + "=" +
                         rep->pci_addr();
                reps.push_back(
                    json::value::object().set("name", rep->name()).set("pci", rep->pci_addr()));
            }
            details.push_back(line + "  " + roles);
            devices.push_back(json::value::object()
                                  .set("bluefield", d->bluefield_id())
                                  .set("side", core::side_name(d->side()))
                                  .set("pci", d->pci_addr())
                                  .set("ibdev", d->ibdev_name())
                                  .set("function", function_text(*d))
                                  .set("server_capable", d->server_capable())
                                  .set("client_capable", d->client_capable())
                                  .set("representors", std::move(reps)));
        }
        std::string why;
        if (view.visible(core::side::dpu) && !core::privilege_allows(bf->privilege_, who, &why))
            refused.push_back(bf->id_ + ": " + why);
    }
    verdict v = verdict::ok;
    std::string finding = view.topo->origin() + ": " + std::to_string(visible.size()) +
                          " devices visible (" + sides + ")";
    std::string fix;
    if (view.visible(core::side::dpu) && !server) {
        v = verdict::warn;
        finding += "; no DPU-side device can run a Comch server (NIC mode?)";
        fix = "put a BlueField in dpu mode in the topology file";
    } else if (view.visible(core::side::host) && !client) {
        v = verdict::warn;
        finding += "; no host-side device can run a Comch client (NIC mode?)";
        fix = "put a BlueField in dpu mode in the topology file";
    }
    if (!refused.empty()) {
        v = verdict::warn;
        for (const auto &w : refused)
            finding += "; representors refused: " + w;
        fix = "run the DPU side as a user the topology's privilege policy allows";
    }
    r.add(v, "devices", finding, fix).details = std::move(details);
    r.facts.set("devices", std::move(devices));
}

// ---- the fast path: memory mechanism, process_vm_writev, memfd ---------------------------------

// Whether share_range() accepts an ordinary private page here (what `auto` would get).
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

// probe_pvw() against a child of ours (what a producer does to its consumer).
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

void check_fast_path(report &r)
{
    const std::string mech = shm::active_memory_mechanism();
    shm::memory_policy policy = shm::memory_policy::auto_select;
    const bool policy_ok = shm::memory_policy_from_env(&policy) == DOCA_SUCCESS;
    r.facts.set("mechanism", mech);

    // Which mechanism.
    if (!policy_ok) {
        r.add(verdict::fail, "fast-path memory",
              std::string("none: ") + shm::k_memory_env + " is invalid (above)",
              std::string("unset ") + shm::k_memory_env);
    } else if (policy == shm::memory_policy::shared && !can_share_a_page()) {
        r.add(verdict::fail, "fast-path memory",
              std::string("shared is forced by ") + shm::k_memory_env +
                  ", but this process cannot share a heap page (see memfd_create)",
              std::string("unset ") + shm::k_memory_env + " (auto falls back to pvw)");
    } else if (mech == "shared") {
        r.add(verdict::ok, "fast-path memory",
              "shared: consumer buffers become shared memory the producer maps (one memcpy, no "
              "system call per send)");
    } else if (policy == shm::memory_policy::pvw) {
        r.add(verdict::ok, "fast-path memory",
              std::string("pvw (forced by ") + shm::k_memory_env +
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
    const doca_error_t probe = probe_child();
    r.facts.set("ptrace_scope", scope ? json::value(*scope) : json::value());
    bool permitted = probe == DOCA_SUCCESS && (!scope || *scope <= 1 || ::geteuid() == 0);
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
            probe == DOCA_ERROR_NOT_SUPPORTED
                ? "not available (ENOSYS: kernel without CROSS_MEMORY_ATTACH, or seccomp)"
                : "refused (" + yama +
                      (scope && *scope >= 2 ? ": only CAP_SYS_PTRACE may attach" : "") +
                      ", probe: " + std::string(softcomch::error_name(probe)) + ")";
        verdict v = verdict::ok;
        std::string consequence;
        if (mech == "pvw") {
            v = verdict::fail;
            consequence = ": every fast-path send fails";
        } else if (policy == shm::memory_policy::auto_select) {
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

// ---- limits ------------------------------------------------------------------------------------

void check_limits(report &r)
{
    // The most clients a server may have, from the topology (512 by default).
    uint64_t max_clients = core::comch_caps{}.max_clients;
    if (const auto &view = core::machine(); view.topo) {
        max_clients = 0;
        for (const auto &bf : view.topo->bluefields())
            max_clients = std::max<uint64_t>(max_clients, bf->caps_.max_clients);
    }
    const uint64_t needed = fds_base + max_clients * fds_per_connection;
    rlimit nofile{};
    if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
        r.facts.set("nofile_soft", nofile.rlim_cur == RLIM_INFINITY
                                       ? json::value(-1)
                                       : json::value(uint64_t(nofile.rlim_cur)));
        r.facts.set("nofile_hard", nofile.rlim_max == RLIM_INFINITY
                                       ? json::value(-1)
                                       : json::value(uint64_t(nofile.rlim_max)));
        const std::string limits =
            "soft " + limit_text(nofile.rlim_cur) + ", hard " + limit_text(nofile.rlim_max);
        const uint64_t soft =
            nofile.rlim_cur == RLIM_INFINITY ? UINT64_MAX : uint64_t(nofile.rlim_cur);
        const uint64_t fit = soft > fds_base ? (soft - fds_base) / fds_per_connection : 0;
        const uint64_t hard =
            nofile.rlim_max == RLIM_INFINITY ? UINT64_MAX : uint64_t(nofile.rlim_max);
        const std::string raise =
            hard >= needed ? "ulimit -n " + std::to_string(std::min<uint64_t>(hard, 4 * needed))
                           : "raise the hard limit (limits.conf nofile, systemd LimitNOFILE=) to " +
                                 std::to_string(needed) + " or more, then ulimit -n";
        const std::string per =
            "about " + std::to_string(fds_per_connection) + " descriptors per connection, " +
            std::to_string(fds_per_fast_path_ctx) + " more per consumer or producer";
        if (soft >= needed) {
            r.add(verdict::ok, "RLIMIT_NOFILE",
                  limits + ": enough for a server with " + std::to_string(max_clients) +
                      " clients (" + per + ")");
        } else if (fit >= min_comfortable_connections) {
            // The common default (1024): fine unless a server really takes hundreds of clients.
            r.add(verdict::ok, "RLIMIT_NOFILE",
                  limits + ": a server holds about " + std::to_string(fit) + " connections (" +
                      per + "); for all " + std::to_string(max_clients) + " clients: " + raise);
        } else {
            r.add(verdict::warn, "RLIMIT_NOFILE",
                  limits + ": a server runs out of descriptors after about " + std::to_string(fit) +
                      " connections (" + per + ")",
                  raise);
        }
    }
    rlimit memlock{};
    if (::getrlimit(RLIMIT_MEMLOCK, &memlock) == 0)
        r.add(verdict::ok, "RLIMIT_MEMLOCK",
              (memlock.rlim_cur == RLIM_INFINITY ? std::string("unlimited")
                                                 : bytes_text(uint64_t(memlock.rlim_cur))) +
                  ": not used (SoftComch pins no memory, unlike DOCA on a BlueField)");
}

// ---- install -----------------------------------------------------------------------------------

// Path of the libsoftcomch this process runs with (from the dynamic linker), or empty.
std::string loaded_library()
{
    std::string found;
    ::dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *data) -> int {
            const std::string_view name = info->dlpi_name ? info->dlpi_name : "";
            const size_t slash = name.rfind('/');
            const std::string_view base =
                name.substr(slash == std::string_view::npos ? 0 : slash + 1);
            if (base.starts_with("libsoftcomch.so")) {
                *static_cast<std::string *>(data) = std::string(name);
                return 1;
            }
            return 0;
        },
        &found);
    return found;
}

void check_pkg_config(report &r, const std::string &libdir)
{
    const std::string host_dir = libdir + "/pkgconfig";
    const std::string dpu_dir = libdir + "/softcomch/pkgconfig-dpu";
    const std::string export_line = "export PKG_CONFIG_PATH=" + host_dir +
                                    "${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" +
                                    "   (DPU side: " + dpu_dir + ")";
    if (!on_path("pkg-config")) {
        r.add(verdict::warn, "pkg-config",
              "pkg-config is not installed: DOCA programs cannot find "
              "doca-comch (meson and Makefiles use it)",
              "apt-get install pkgconf (or your distribution's pkg-config), then " + export_line);
        return;
    }
    const std::string ours_host = real_path(host_dir), ours_dpu = real_path(dpu_dir);
    std::vector<std::string> missing, foreign;
    std::string flavour;
    json::value modules = json::value::object();
    for (const char *module : {"doca-comch", "doca-common", "doca-argp"}) {
        const auto [status, dir] =
            capture(std::string("pkg-config --variable=pcfiledir ") + module + " 2>/dev/null");
        modules.set(module, status == 0 ? json::value(dir) : json::value());
        if (status != 0) {
            missing.push_back(module);
            continue;
        }
        const std::string real = real_path(dir);
        if (real == ours_host)
            flavour = "host";
        else if (real == ours_dpu)
            flavour = "DPU";
        else
            foreign.push_back(std::string(module) + " in " + dir);
    }
    r.facts.set("pkg_config", std::move(modules));
    if (!missing.empty()) {
        std::string list;
        for (const auto &m : missing)
            list += (list.empty() ? "" : ", ") + m;
        r.add(verdict::warn, "pkg-config",
              list + " not found (" +
                  (env_value("PKG_CONFIG_PATH") ? "PKG_CONFIG_PATH=" + *env_value("PKG_CONFIG_PATH")
                                                : std::string("PKG_CONFIG_PATH is unset")) +
                  "): DOCA programs do not build against this install",
              export_line);
    } else if (!foreign.empty()) {
        std::string list;
        for (const auto &m : foreign)
            list += (list.empty() ? "" : "; ") + m;
        r.add(verdict::warn, "pkg-config",
              "finds another DOCA: " + list +
                  " (programs would build against it, not this SoftComch)",
              export_line);
    } else {
        r.add(verdict::ok, "pkg-config",
              "doca-comch, doca-common, doca-argp found in this install (" + flavour + " flavour)");
    }
}

// LD_LIBRARY_PATH beats the RUNPATH pkg-config puts into programs: another libdoca_comch on it
// is what they would load.
void check_ld_library_path(report &r, const std::string &libdir)
{
    const auto v = env_value("LD_LIBRARY_PATH");
    if (!v)
        return;
    const std::string soname = "libdoca_comch.so." + std::to_string(DOCA_VERSION_MAJOR);
    const std::string ours = real_path(libdir);
    std::string_view rest(*v);
    while (true) {
        const size_t colon = rest.find(':');
        const std::string dir(rest.substr(0, colon));
        if (!dir.empty() && ::access((dir + "/" + soname).c_str(), F_OK) == 0) {
            if (real_path(dir) != ours) {
                r.add(verdict::warn, "LD_LIBRARY_PATH",
                      dir + "/" + soname +
                          " comes first: programs load it instead of SoftComch's "
                          "(LD_LIBRARY_PATH beats their RUNPATH)",
                      "remove " + dir + " from LD_LIBRARY_PATH when running SoftComch programs");
            } else {
                r.add(verdict::ok, "LD_LIBRARY_PATH", "finds SoftComch's " + soname + " in " + dir);
            }
            return;
        }
        if (colon == std::string_view::npos)
            break;
        rest.remove_prefix(colon + 1);
    }
    r.add(verdict::ok, "LD_LIBRARY_PATH", "set; holds no other " + soname);
}

// The install prefix of a library directory: <prefix>/lib, <prefix>/lib64 or DOCA's
// <prefix>/lib/<multiarch> (lib/x86_64-linux-gnu).
std::string prefix_of_libdir(const std::string &libdir)
{
    fs::path p(libdir);
    if (p.filename() != "lib" && p.filename() != "lib64" && p.parent_path().filename() == "lib")
        p = p.parent_path();
    return p.parent_path().string();
}

void check_install(report &r)
{
    json::value facts = json::value::object();
    facts.set("tool_dir", self_dir());
    const std::string lib = loaded_library();
    if (lib.empty()) {
        r.add(verdict::warn, "library", "libsoftcomch is not among the loaded libraries",
              "reinstall SoftComch (make install PREFIX=...)");
        r.facts.set("install", std::move(facts));
        return;
    }
    const std::string real = real_path(lib);
    // Installed, libsoftcomch sits in <libdir>/softcomch, beside-and-below the DOCA libraries; in
    // a build tree they share one directory.
    std::string libdir = fs::path(real).parent_path().string();
    if (fs::path(libdir).filename() == "softcomch" &&
        ::access((fs::path(libdir).parent_path() / "libdoca_comch.so").c_str(), F_OK) == 0)
        libdir = fs::path(libdir).parent_path().string();
    const std::string file = fs::path(real).filename().string();
    const std::string prefix_tag = "libsoftcomch.so.";
    const std::string lib_version =
        file.starts_with(prefix_tag) ? file.substr(prefix_tag.size()) : "";
    const bool installed = ::access((libdir + "/pkgconfig/doca-comch.pc").c_str(), F_OK) == 0;
    facts.set("library", real).set("library_version", lib_version).set("installed", installed);
    if (installed)
        facts.set("prefix", prefix_of_libdir(libdir));

    std::string where = installed ? "installed tree " + prefix_of_libdir(libdir)
                                  : "build tree: install checks skipped";
    if (lib_version != SOFTCOMCH_VERSION_STRING) {
        r.add(verdict::warn, "library",
              real + " is version " + (lib_version.empty() ? "?" : lib_version) + ", this tool " +
                  SOFTCOMCH_VERSION_STRING + " (" + where + ")",
              "use the softcomch of the same install, or fix LD_LIBRARY_PATH");
    } else {
        std::string missing;
        for (const char *l : {"libdoca_comch.so", "libdoca_common.so", "libdoca_argp.so"})
            if (::access((libdir + "/" + l).c_str(), F_OK) != 0)
                missing += (missing.empty() ? "" : ", ") + std::string(l);
        if (missing.empty())
            r.add(verdict::ok, "library", real + " (" + where + ")");
        else
            r.add(verdict::warn, "library",
                  real + ": " + missing + " missing beside it (" + where + ")",
                  installed ? "reinstall: make install PREFIX=..." : "build everything: ninja");
    }
    if (installed)
        check_pkg_config(r, libdir);
    check_ld_library_path(r, libdir);
    r.facts.set("install", std::move(facts));
}

// ---- output ------------------------------------------------------------------------------------

void print_text(const report &r)
{
    constexpr int check_width = 19;
    for (const auto &c : r.checks) {
        std::printf("%-5s %-*s %s", verdict_name(c.status), check_width, c.check.c_str(),
                    c.finding.c_str());
        if (c.status != verdict::ok && !c.fix.empty())
            std::printf(" -- fix: %s", c.fix.c_str());
        std::printf("\n");
        for (const auto &d : c.details)
            std::printf("%*s%s\n", 6 + check_width + 1, "", d.c_str());
    }
    std::printf("%zu ok, %zu warn, %zu FAIL\n", r.count(verdict::ok), r.count(verdict::warn),
                r.count(verdict::fail));
}

void print_json(report &r)
{
    json::value checks = json::value::array();
    for (const auto &c : r.checks) {
        json::value j = json::value::object();
        j.set("status", verdict_name(c.status)).set("check", c.check).set("finding", c.finding);
        if (c.status != verdict::ok && !c.fix.empty())
            j.set("fix", c.fix);
        checks.push_back(std::move(j));
    }
    json::value doc = json::value::object();
    const bool failed = r.count(verdict::fail) != 0;
    doc.set("status", failed ? "FAIL" : (r.count(verdict::warn) ? "warn" : "ok"));
    doc.set("ok", r.count(verdict::ok))
        .set("warn", r.count(verdict::warn))
        .set("fail", r.count(verdict::fail));
    for (const auto &[key, value] : r.facts.items())
        doc.set(key, value);
    doc.set("checks", std::move(checks));
    std::printf("%s\n", json::dump(doc, 2).c_str());
}

} // namespace

int cmd_doctor(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, doctor_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(doctor_usage, "unexpected argument '" + opts.positional().front() + "'");
    const std::string fabric = opts.get("fabric").value_or(transport::fabric_name());

    report r;
    check_version(r);
    check_fabric_env(r);
    check_side_env(r);
    check_topology_env(r);
    check_log_level_env(r);
    check_memory_env(r);
    check_copy_env(r);
    check_samples_env(r);
    check_unknown_env(r);
    check_fabric(r, fabric);
    check_devices(r);
    check_fast_path(r);
    check_limits(r);
    check_install(r);

    if (opts.has("json"))
        print_json(r);
    else
        print_text(r);
    return r.count(verdict::fail) != 0 ? exit_failure : exit_ok;
}

} // namespace softcomch::tools
