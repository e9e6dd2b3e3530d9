// SPDX-License-Identifier: Apache-2.0
//
// The doctor's install checks: the libsoftcomch this tool runs with and the DOCA libraries beside
// it, and in an installed tree the pkg-config files and LD_LIBRARY_PATH.
#include <doca_version.h>

#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../paths.hpp"
#include "doctor.hpp"

namespace softcomch::tools::doctor {

namespace {

namespace fs = std::filesystem;

std::string real_path(const std::string &p)
{
    std::error_code ec;
    auto r = fs::canonical(p, ec);
    return ec ? p : r.string();
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
        const std::string_view dir = rest.substr(0, colon);
        // Built by appends, not `dir + "/" + name`: g++ 12 warns falsely on that when optimizing
        // (-Wrestrict, GCC bug 105651).
        std::string candidate(dir.empty() ? std::string_view(".") : dir);
        candidate.append("/").append(name);
        if (::access(candidate.c_str(), X_OK) == 0)
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

} // namespace

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

} // namespace softcomch::tools::doctor
