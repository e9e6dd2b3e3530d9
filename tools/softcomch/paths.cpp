// SPDX-License-Identifier: Apache-2.0
#include "paths.hpp"

#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "build_tree.hpp"

namespace softcomch::tools {

namespace {

namespace fs = std::filesystem;

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

// The install prefix of a library directory: <prefix>/lib, <prefix>/lib64 or DOCA's
// <prefix>/lib/<multiarch> (lib/x86_64-linux-gnu).
std::string prefix_of_libdir(const std::string &libdir)
{
    fs::path p(libdir);
    if (p.filename() != "lib" && p.filename() != "lib64" && p.parent_path().filename() == "lib")
        p = p.parent_path();
    return p.parent_path().string();
}

} // namespace

std::string self_dir()
{
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    return exe.parent_path().string();
}

std::vector<std::string> samples_search_path()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("SOFTCOMCH_SAMPLES_DIR"); env && *env)
        dirs.emplace_back(env);
    if (std::string self = self_dir(); !self.empty())
        dirs.push_back((std::filesystem::path(self) / build_tree::libexec_from_bindir)
                           .lexically_normal()
                           .string());
    if (*build_tree::samples_dir)
        dirs.emplace_back(build_tree::samples_dir);
    return dirs;
}

std::string find_sample_dir(const std::string &program)
{
    for (const auto &dir : samples_search_path()) {
        std::string path = dir + "/" + program;
        if (::access(path.c_str(), X_OK) == 0)
            return dir;
    }
    return {};
}

install_location this_install()
{
    install_location here;
    const std::string lib = loaded_library();
    if (lib.empty())
        return here;
    std::error_code ec;
    const fs::path real = fs::canonical(lib, ec);
    here.library = ec ? lib : real.string();
    // Installed, libsoftcomch sits in <libdir>/softcomch, beside-and-below the DOCA libraries; in
    // a build tree they share one directory.
    fs::path libdir = fs::path(here.library).parent_path();
    if (libdir.filename() == "softcomch" &&
        ::access((libdir.parent_path() / "libdoca_comch.so").c_str(), F_OK) == 0)
        libdir = libdir.parent_path();
    here.libdir = libdir.string();
    const std::string file = fs::path(here.library).filename().string();
    const std::string tag = "libsoftcomch.so.";
    here.library_version = file.starts_with(tag) ? file.substr(tag.size()) : "";
    here.installed = ::access((here.libdir + "/pkgconfig/doca-comch.pc").c_str(), F_OK) == 0;
    if (here.installed) {
        here.prefix = prefix_of_libdir(here.libdir);
        here.pc_dir = here.libdir + "/pkgconfig";
        here.dpu_pc_dir = here.libdir + "/softcomch/pkgconfig-dpu";
    }
    return here;
}

} // namespace softcomch::tools
