// SPDX-License-Identifier: Apache-2.0
//
// Where the softcomch executable and its companion programs (the samples) are.
#pragma once

#include <string>
#include <vector>

namespace softcomch::tools {

// Directory of the running executable (from /proc/self/exe); empty if unknown.
std::string self_dir();

// Directories searched for the sample programs, in order:
//   $SOFTCOMCH_SAMPLES_DIR                         explicit override
//   <dir of softcomch>/<bindir -> libexecdir>/softcomch   an installed tree
//   <build dir>/samples                            the build tree softcomch was built in
std::vector<std::string> samples_search_path();

// The SoftComch this tool runs with: its private library as the dynamic linker loaded it, and
// whether that is an installed tree (pkg-config files beside the DOCA libraries) or a build tree.
struct install_location {
    std::string library;         // canonical path of libsoftcomch.so.*; empty: not loaded
    std::string library_version; // "0.1.0", from the file name
    std::string libdir;          // where libdoca_comch.so is (installed: <prefix>/lib/<multiarch>)
    bool installed = false;
    std::string prefix;     // installed only
    std::string pc_dir;     // installed only: the host flavour's pkg-config directory
    std::string dpu_pc_dir; // installed only: the DPU flavour's
};
install_location this_install();

// The first directory of samples_search_path() that holds an executable `program`; empty if
// none does.
std::string find_sample_dir(const std::string &program);

} // namespace softcomch::tools
