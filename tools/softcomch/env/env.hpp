// SPDX-License-Identifier: Apache-2.0
//
// softcomch env (cmd_env.cpp): the doca-env schema of DOCA's structured-tools contract for the
// emulated machine (docs/cli.md, "softcomch env"), plus, under one "softcomch" member, what the
// schema has no field for: the SoftComch install, a real DOCA install beside it, and the hazards
// that make builds pick the wrong library (two doca-comch.pc on pkg-config's search path, a
// legacy doca-comm-channel.pc, a libdoca_comch.so the loader resolves to another file than the
// one pkg-config names, versions that disagree).
//
// Files: gather.cpp (collects the report), hazards.cpp (judges it), output.cpp (JSON and text).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../inventory/devices.hpp"
#include "../inventory/doca_root.hpp"
#include "../inventory/pkgconfig.hpp"
#include "../paths.hpp"
#include "../system.hpp"
#include "common/json.hpp"

namespace softcomch::tools::env {

struct hazard {
    std::string check;   // "doca-comch.pc", "doca-comm-channel.pc", "libdoca_comch.so", ...
    std::string finding; // what was found
    std::string fix;     // what to do
};

// One entry of the schema's `libraries`.
struct library_entry {
    std::string name;                   // pkg-config module
    bool installed = false;             // pkg-config --exists
    std::optional<std::string> pc_path; // what pkg-config resolves, else the file of an install
    std::string where;                  // "SoftComch", "DOCA install", "legacy", "" (text only)
};

struct report {
    // ---- the schema ----
    std::optional<std::string> pkg_config_version; // pkg-config --modversion doca-common
    std::optional<std::string> applications_version;
    std::string doca_caps_version; // what this install's doca_caps --version says
    std::optional<std::string> bfb;
    bool consistent = true;
    inventory::device_inventory inv;
    std::vector<library_entry> libraries;
    std::vector<inventory::sample_root> samples;
    bool mlx5_core = false, mlx5_ib = false;
    std::string kernel;
    hugepage_info huge;
    std::string host_kind;
    std::optional<std::string> bf_mode;

    // ---- the "softcomch" member ----
    std::string fabric;
    install_location install;
    inventory::doca_install doca;
    bool pkg_config = false; // pkg-config is installed
    std::vector<std::string> search_path;
    std::vector<std::string> comch_pc_files; // every doca-comch.pc on the search path
    std::optional<std::string> comch_pc;     // the one pkg-config picks
    std::vector<std::string> legacy_pc_files;
    std::string pc_library;          // <libdir of doca-comch>/libdoca_comch.so, canonical
    bool pc_rpath = false;           // doca-comch's Libs carry an -rpath
    std::string soname;              // of pc_library
    inventory::loader_answer loader; // where the loader finds that soname
    std::vector<hazard> hazards;
};

// Everything but the hazards; `doca_root` is the DOCA install tree to look at.
report gather(const std::string &doca_root);
// Fills r.hazards.
void judge(report &r);

softcomch::json::value to_json(const report &r);
void print_text(const report &r);

// Whether the .pc file is one of SoftComch's (its Description says so).
bool softcomch_pc(const std::string &pc_path);

} // namespace softcomch::tools::env
