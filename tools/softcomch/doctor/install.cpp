// SPDX-License-Identifier: Apache-2.0
//
// The doctor's install checks: the libsoftcomch this tool runs with and the DOCA libraries beside
// it, and in an installed tree the pkg-config files and LD_LIBRARY_PATH.
#include <doca_version.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../paths.hpp"
#include "../system.hpp"
#include "doctor.hpp"

namespace softcomch::tools::doctor {

namespace {

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
    for (const char *module :
         {"doca-comch", "doca-common", "doca-argp", "doca-dma", "doca-compress", "doca-sha"}) {
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

} // namespace

void check_install(report &r)
{
    json::value facts = json::value::object();
    facts.set("tool_dir", self_dir());
    const install_location here = this_install();
    if (here.library.empty()) {
        r.add(verdict::warn, "library", "libsoftcomch is not among the loaded libraries",
              "reinstall SoftComch (make install PREFIX=...)");
        r.facts.set("install", std::move(facts));
        return;
    }
    const std::string &real = here.library;
    const std::string &libdir = here.libdir;
    const std::string &lib_version = here.library_version;
    const bool installed = here.installed;
    facts.set("library", real).set("library_version", lib_version).set("installed", installed);
    if (installed)
        facts.set("prefix", here.prefix);

    std::string where =
        installed ? "installed tree " + here.prefix : "build tree: install checks skipped";
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
