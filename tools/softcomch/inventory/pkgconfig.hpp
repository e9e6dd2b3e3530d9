// SPDX-License-Identifier: Apache-2.0
//
// What a build on this machine would pick: pkg-config's answers for the DOCA modules, every .pc
// file of a module on pkg-config's search path, and the file the dynamic loader resolves a
// library's soname to. Used by `softcomch env` to flag what makes builds pick the wrong library.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace softcomch::tools::inventory {

// pkg-config is on $PATH.
bool have_pkg_config();

// The directories pkg-config searches, in order: $PKG_CONFIG_PATH, then $PKG_CONFIG_LIBDIR when
// set (it replaces the default), else pkg-config's compiled-in default (its pc_path variable).
std::vector<std::string> pc_search_path();

// `pkg-config --variable=<variable> <module>`; nullopt when the module is not found.
std::optional<std::string> pc_variable(const std::string &module, const std::string &variable);
// `pkg-config --modversion <module>`; nullopt when the module is not found.
std::optional<std::string> pc_modversion(const std::string &module);
// `pkg-config --libs <module>`; nullopt when the module is not found.
std::optional<std::string> pc_libs(const std::string &module);
// The .pc file pkg-config resolves `module` to (its pcfiledir + "/<module>.pc"); nullopt if none.
std::optional<std::string> pc_file(const std::string &module);

// Every distinct <module>.pc on the search path, in search order (two directories that are the
// same, or two files one is a symlink to, count once: the first path is kept).
std::vector<std::string> pc_files_on_search_path(const std::string &module);

// The soname of a library file name: "libdoca_comch.so.3" for "libdoca_comch.so.3.0.0058";
// empty if the name has no version after ".so".
std::string soname_of(const std::string &file_name);

// Where the dynamic loader finds `soname` for a program that carries no RUNPATH: the directories
// of $LD_LIBRARY_PATH, then the loader cache (ldconfig -p), then the default directories. Also
// says which of the three it came from ("LD_LIBRARY_PATH", "ld.so.cache", "default path").
struct loader_answer {
    std::string path;   // as found (not canonical); empty: not found
    std::string source; // where it was found
};
loader_answer loader_resolves(const std::string &soname);

} // namespace softcomch::tools::inventory
