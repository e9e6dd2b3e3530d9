// SPDX-License-Identifier: Apache-2.0
//
// softcomch doctor (cmd_doctor.cpp): environment and install checks, so a developer learns why
// Comch programs will or will not work here before chasing a connection that never forms. Each
// check is one line: status (ok, warn, FAIL), what was checked, the finding and, for warn/FAIL,
// what to do.
//
// Every finding comes from the library's own code, through the introspection API
// (src/introspect/): the parsers of the SOFTCOMCH_* variables, the topology loader, the fabric's
// paths and endpoint files, the fast path's memory probe. The doctor changes nothing: stale
// endpoints are reported, not removed.
//
// Files: report.cpp (the report, its text and JSON forms), text.cpp (wording helpers), and one
// file per group of checks, run in this order: environment.cpp (versions, SOFTCOMCH_* and other
// variables), fabric.cpp (the fabric directory and its endpoints), client.cpp (with --client:
// one client's connection, "why does my client not connect?"), devices.cpp, fast_path.cpp
// (memory mechanism, process_vm_writev, memfd_create), limits.cpp, install.cpp (library,
// pkg-config, LD_LIBRARY_PATH).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace softcomch::tools::doctor {

// ---- the report (report.cpp) ----

enum class verdict { ok, warn, fail };

const char *verdict_name(verdict v) noexcept; // "ok", "warn", "FAIL"

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

    check_result &add(verdict v, std::string check, std::string finding, std::string fix = {});
    size_t count(verdict v) const;
};

void print_text(const report &r);
void print_json(const report &r);

// ---- wording (text.cpp) ----

// The value of an environment variable; nullopt when unset or empty (the library treats both
// alike for every SOFTCOMCH_* variable).
std::optional<std::string> env_value(const char *name);
std::string in_quotes(const std::string &s);
// "16 MiB", "64 KiB", "1 GiB", "12 bytes".
std::string bytes_text(uint64_t n);

// ---- the checks, in the order the report lists them ----

// environment.cpp
void check_version(report &r);
void check_fabric_env(report &r);
void check_side_env(report &r);
void check_topology_env(report &r);
void check_log_level_env(report &r);
void check_memory_env(report &r);
void check_copy_env(report &r);
// The bounds' knobs that are set (src/common/bounds.hpp).
void check_bounds_env(report &r);
void check_samples_env(report &r);
void check_unknown_env(report &r);
// fabric.cpp
void check_fabric(report &r, const std::string &fabric);
// client.cpp (--client NAME [--pci ADDR]): why that client would or would not connect.
void check_client(report &r, const std::string &fabric, const std::string &name,
                  const std::optional<std::string> &pci);
// devices.cpp
void check_devices(report &r);
// fast_path.cpp
void check_fast_path(report &r);
// limits.cpp
void check_limits(report &r);
// install.cpp
void check_install(report &r);

} // namespace softcomch::tools::doctor
