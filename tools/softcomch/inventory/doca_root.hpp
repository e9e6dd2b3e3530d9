// SPDX-License-Identifier: Apache-2.0
//
// A DOCA install tree on disk (by default NVIDIA's /opt/mellanox/doca), as `softcomch env`
// reports it beside the emulated machine: its version, pkg-config directories and modules, its
// libdoca_comch files, a legacy doca-comm-channel.pc, its samples. Read-only.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace softcomch::tools::inventory {

inline constexpr const char *default_doca_root = "/opt/mellanox/doca";

struct sample_root {
    std::string library; // pkg-config name: "doca-comch"
    std::string path;
};

struct doca_install {
    std::string root;
    bool present = false;   // root is a directory
    bool softcomch = false; // it is a SoftComch install (SoftComch's private library is there)
    std::optional<std::string> applications_version; // <root>/applications/VERSION
    std::vector<std::string> pc_dirs;                // directories of its doca-common.pc
    std::vector<std::string> modules;                // the pkg-config modules there, sorted
    std::optional<std::string> comch_pc_version;     // Version: of its doca-comch.pc
    std::vector<std::string> comch_libraries;        // libdoca_comch.so* files
    std::vector<std::string> legacy_pc;              // doca-comm-channel.pc files
    std::optional<std::string> doca_caps;            // <root>/tools/doca_caps
    std::vector<sample_root> samples;                // <root>/samples/doca_<lib>
};
doca_install inspect_doca_root(const std::string &root);

// The Version: field of a .pc file; nullopt if it has none or cannot be read.
std::optional<std::string> pc_file_version(const std::string &pc_path);

} // namespace softcomch::tools::inventory
