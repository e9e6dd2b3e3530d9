// SPDX-License-Identifier: Apache-2.0
//
// softcomch env: what in the environment makes a DOCA build pick the wrong library, or run
// another one than it was built against. Each hazard names what was found and what to do.
#include <doca_version.h>

#include "env.hpp"

namespace softcomch::tools::env {

namespace {

std::string owner(const std::string &pc_path)
{
    return softcomch_pc(pc_path) ? " (SoftComch)" : " (another DOCA)";
}

std::string dir_of(const std::string &path)
{
    return path.substr(0, path.rfind('/'));
}

std::string export_line(const report &r)
{
    return "export PKG_CONFIG_PATH=" + r.install.pc_dir + "${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}";
}

void check_pkg_config(report &r)
{
    if (!r.pkg_config) {
        r.hazards.push_back(
            {"pkg-config",
             "pkg-config is not installed: meson and Makefiles cannot find "
             "doca-comch, and hand-written -I/-L flags pick whatever DOCA they name",
             "apt-get install pkgconf (or your distribution's pkg-config)"});
        return;
    }
    if (!r.install.installed)
        return;
    // This SoftComch is installed: is it what builds find?
    if (!r.comch_pc) {
        r.hazards.push_back({"PKG_CONFIG_PATH",
                             "pkg-config finds no doca-comch: DOCA programs do not build against "
                             "this SoftComch (" +
                                 r.install.prefix + ")",
                             export_line(r)});
    } else if (!softcomch_pc(*r.comch_pc)) {
        r.hazards.push_back({"PKG_CONFIG_PATH",
                             "pkg-config finds doca-comch in " + dir_of(*r.comch_pc) +
                                 ", another DOCA: programs build against it, not this SoftComch (" +
                                 r.install.prefix + ")",
                             export_line(r) + " (or unset it to build against the other DOCA)"});
    }
}

void check_two_comch_pc(report &r)
{
    if (r.comch_pc_files.size() < 2)
        return;
    std::string list;
    for (size_t i = 1; i < r.comch_pc_files.size(); ++i)
        list += (i > 1 ? ", " : "") + r.comch_pc_files[i] + owner(r.comch_pc_files[i]);
    r.hazards.push_back(
        {"doca-comch.pc",
         std::to_string(r.comch_pc_files.size()) +
             " doca-comch.pc on pkg-config's search path: builds take the first, " +
             r.comch_pc_files[0] + owner(r.comch_pc_files[0]) + "; shadowed: " + list +
             ". Which DOCA a build gets depends on the order of PKG_CONFIG_PATH",
         "keep one DOCA's pkg-config directory on PKG_CONFIG_PATH per build (SoftComch's host "
         "and DPU flavours count as two)"});
}

void check_legacy(report &r)
{
    // SoftComch's own doca-comm-channel.pc carries the legacy API over its Comch on purpose
    // (docs/generations.md): only another DOCA's is a left-over.
    std::string list;
    for (const auto &f : r.legacy_pc_files)
        if (!softcomch_pc(f))
            list += (list.empty() ? "" : ", ") + f;
    if (list.empty())
        return;
    r.hazards.push_back(
        {"doca-comm-channel.pc",
         "the legacy Comm Channel module is installed (" + list +
             "): a partial install left over from DOCA 2.x; code written for doca_comm_channel_* "
             "builds against it and is not the Comch API (doca_comch_*, DOCA 2.7 and later)",
         "remove the old Comm Channel development package, or build with doca-comch only"});
}

void check_loader(report &r)
{
    if (r.pc_library.empty() || r.soname.empty())
        return;
    const std::string built =
        "programs built with `pkg-config --libs doca-comch` link " + r.pc_library;
    if (r.loader.path.empty()) {
        if (!r.pc_rpath)
            r.hazards.push_back({"libdoca_comch.so",
                                 built + ", but the loader finds no " + r.soname +
                                     " (no RUNPATH in the module's flags): they do not start",
                                 "add " + r.pc_library.substr(0, r.pc_library.rfind('/')) +
                                     " to the loader path (ldconfig or LD_LIBRARY_PATH)"});
        return;
    }
    const std::string resolved = real_path(r.loader.path);
    if (resolved == r.pc_library)
        return;
    std::string finding = built + ", but the loader resolves " + r.soname + " to " + resolved +
                          " (" + r.loader.source + ")";
    if (r.loader.source == "LD_LIBRARY_PATH")
        finding += ": every program loads that one (LD_LIBRARY_PATH beats RUNPATH)";
    else if (r.pc_rpath)
        finding += ": programs built through pkg-config keep theirs (RUNPATH), those built with "
                   "plain -ldoca_comch load the other";
    else
        finding += ": they run against another library than they were built with";
    r.hazards.push_back({"libdoca_comch.so", finding,
                         r.loader.source == "LD_LIBRARY_PATH"
                             ? "remove " + r.loader.path.substr(0, r.loader.path.rfind('/')) +
                                   " from LD_LIBRARY_PATH"
                             : "build through pkg-config (its RUNPATH pins the library), or "
                               "keep one DOCA on the loader path"});
}

void check_versions(report &r)
{
    if (r.consistent)
        return;
    std::string list = "doca_caps " + r.doca_caps_version;
    if (r.pkg_config_version)
        list += ", pkg-config doca-common " + *r.pkg_config_version;
    if (r.applications_version)
        list += ", " + r.doca.root + "/applications/VERSION " + *r.applications_version;
    r.hazards.push_back({"version",
                         "the DOCA versions disagree (" + list +
                             "): headers, libraries and samples come from different installs",
                         "build and run against one install (PKG_CONFIG_PATH)"});
}

} // namespace

void judge(report &r)
{
    r.hazards.clear();
    check_pkg_config(r);
    check_two_comch_pc(r);
    check_legacy(r);
    check_loader(r);
    check_versions(r);
}

} // namespace softcomch::tools::env
