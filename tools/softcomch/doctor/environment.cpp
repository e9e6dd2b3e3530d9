// SPDX-License-Identifier: Apache-2.0
//
// The doctor's first checks: versions, then every variable SoftComch reads, as the library reads
// it (the fabric name, the side filter, the topology file, the SDK log level, the fast path's
// memory and copy policies, the bounds that are set), then variables nobody reads (likely typos).
#include <doca_version.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "../text.hpp"
#include "common/near_name.hpp"
#include "common/bounds.hpp"
#include "doctor.hpp"
#include "introspect/fabric.hpp"
#include "introspect/log_level.hpp"
#include "introspect/memory.hpp"
#include "introspect/topology.hpp"

extern char **environ;

namespace softcomch::tools::doctor {

namespace {

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
    known_variable{"SOFTCOMCH_LOG_BURST", "library"}, // src/common/log.cpp
    known_variable{"SOFTCOMCH_TRACE", "library"},     // src/common/trace.hpp
    known_variable{"SOFTCOMCH_TRANSPORT", "library"}, // src/transport/transport.hpp
    known_variable{introspect::memory_env, "library"},
    known_variable{introspect::copy_env, "library"},
    known_variable{bounds::handshake_timeout.env, "library"}, // src/common/bounds.hpp
    known_variable{bounds::max_handshakes.env, "library"},
    known_variable{bounds::stop_linger.env, "library"},
    known_variable{bounds::peer_stall.env, "library"},
    known_variable{bounds::peer_timeout.env, "library"},
    known_variable{bounds::diag_delay.env, "library"},
    known_variable{"SOFTCOMCH_FAULTS", "library"}, // src/comch/faults.hpp
    known_variable{"SOFTCOMCH_SAMPLES_DIR", "softcomch demo"},
    known_variable{"SOFTCOMCH_TEST_BIN_DIR", "the test suite"},
};

} // namespace

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

void check_fabric_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_FABRIC");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_FABRIC", "unset: fabric \"default\"");
        return;
    }
    if (!introspect::valid_fabric_name(*v)) {
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
    const introspect::machine_info view = introspect::machine();
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
    const introspect::topology_file_check topo = introspect::check_topology_file(*v);
    if (!topo.valid) {
        r.add(verdict::fail, "SOFTCOMCH_TOPOLOGY",
              topo.error + " (every doca_devinfo_create_list fails with DOCA_ERROR_INITIALIZATION)",
              "fix the file (docs/topology.md), or unset SOFTCOMCH_TOPOLOGY for the built-in "
              "machine");
        return;
    }
    r.add(verdict::ok, "SOFTCOMCH_TOPOLOGY",
          *v + ": " + std::to_string(topo.bluefields) + " BlueField(s), " +
              std::to_string(topo.devices) + " devices, " + std::to_string(topo.representors) +
              " representors");
}

void check_log_level_env(report &r)
{
    const auto v = env_value("SOFTCOMCH_LOG_LEVEL");
    if (!v) {
        r.add(verdict::ok, "SOFTCOMCH_LOG_LEVEL", "unset: the program's own SDK log level applies");
        return;
    }
    const auto level = introspect::parse_log_level(*v);
    if (!level) {
        r.add(verdict::warn, "SOFTCOMCH_LOG_LEVEL",
              in_quotes(*v) + " is not a log level: ignored (programs say so once on stderr)",
              "use 10..70 or disable, critical, error, warning, info, debug, trace");
        return;
    }
    r.add(verdict::ok, "SOFTCOMCH_LOG_LEVEL",
          in_quotes(*v) + ": SDK lines up to level " + std::to_string(level->value) + " (" +
              level->token + "), whatever the program sets");
}

void check_memory_env(report &r)
{
    using introspect::memory_env;
    const introspect::memory_setting p = introspect::memory_policy_setting();
    const auto v = env_value(memory_env);
    if (!p.valid) {
        r.add(verdict::fail, memory_env,
              in_quotes(v.value_or("")) +
                  " is not one of auto, shared, pvw: no consumer memory can be exported, so "
                  "consumers fail to start",
              std::string("unset ") + memory_env + ", or set it to auto, shared or pvw");
        r.facts.set("memory_policy", "invalid");
        return;
    }
    r.facts.set("memory_policy", p.name);
    const char *what = "";
    switch (p.policy) {
    case introspect::memory_policy::auto_select:
        what = "shared memory when the consumer's memory can be shared, else process_vm_writev";
        break;
    case introspect::memory_policy::shared:
        what = "shared memory only (memory that cannot be shared is an error, no fallback)";
        break;
    case introspect::memory_policy::pvw:
        what = "process_vm_writev only (one system call per send)";
        break;
    }
    r.add(verdict::ok, memory_env,
          (v ? in_quotes(*v) : std::string("unset")) + ": " + p.name + ", " + what);
}

void check_copy_env(report &r)
{
    using introspect::copy_env;
    const uint64_t llc = introspect::last_level_cache_bytes();
    r.facts.set("last_level_cache_bytes", llc);
    r.facts.set("cache_budget_bytes", llc / 2);
    const introspect::copy_setting plan = introspect::copy_policy_setting();
    const auto v = env_value(copy_env);
    if (!plan.valid) {
        r.add(
            verdict::fail, copy_env,
            in_quotes(v.value_or("")) +
                " is not one of auto, cached, streaming: producers fail to start (doca_ctx_start)",
            std::string("unset ") + copy_env + ", or set it to auto, cached or streaming");
        r.facts.set("copy_policy", "invalid");
        return;
    }
    r.facts.set("copy_policy", plan.name);
    const std::string min = bytes_text(introspect::min_streaming_bytes());
    std::string what;
    switch (plan.policy) {
    case introspect::copy_policy::auto_select:
        what = "payloads from " + min +
               " are streamed (non-temporal stores) once the working set a stream "
               "cycles through + payload exceeds the cache budget of " +
               bytes_text(plan.cache_budget) + " (half the " + bytes_text(llc) +
               " last-level cache)";
        break;
    case introspect::copy_policy::cached:
        what = "plain stores for every payload (cache budget " + bytes_text(plan.cache_budget) +
               " not used)";
        break;
    case introspect::copy_policy::streaming:
        what = "non-temporal stores for every payload from " + min;
        break;
    }
    r.add(verdict::ok, copy_env,
          (v ? in_quotes(*v) : std::string("unset")) + ": " + plan.name + ", " + what);
}

void check_bounds_env(report &r)
{
    // Only the ones set: their defaults are in README's table.
    for (const bounds::knob *k : bounds::all) {
        const auto v = env_value(k->env);
        if (!v)
            continue;
        uint64_t value = 0;
        std::string why;
        if (!bounds::read(*k, value, why)) {
            r.add(verdict::fail, k->env, why + ": Comch servers and clients fail to start",
                  std::string("unset ") + k->env + " for its default (" +
                      std::to_string(k->fallback) + " " + k->unit + ")");
            continue;
        }
        r.add(verdict::ok, k->env,
              in_quotes(*v) + ": " + k->meaning + ": " +
                  (value == 0 && k->zero_off ? std::string("off")
                                             : std::to_string(value) + " " + k->unit) +
                  " (default " + std::to_string(k->fallback) + ")");
    }
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
            const size_t d = softcomch::name_distance(name, k.name);
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

} // namespace softcomch::tools::doctor
