// SPDX-License-Identifier: Apache-2.0
//
// softcomch env: collecting the report (env.hpp says what it holds). Each schema field comes from
// the source the contract's manual chain names, with SoftComch standing in for what it emulates:
// pkg-config for the version and the libraries, the install tree's applications/VERSION and
// samples/, this SoftComch's doca_caps for doca_caps --version and the devices, /proc and /sys
// for drivers and huge pages.
#include <doca_version.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "../build_tree.hpp"
#include "../inventory/contract.hpp"
#include "env.hpp"
#include "introspect/fabric.hpp"

namespace softcomch::tools::env {

namespace {

namespace fs = std::filesystem;

bool exists(const std::string &p)
{
    return ::access(p.c_str(), F_OK) == 0;
}

// The modules `libraries` lists: SoftComch's own, every module of the DOCA install, and the
// legacy Comm Channel module (reported even when absent: its presence is a hazard).
std::vector<std::string> module_names(const report &r)
{
    std::vector<std::string> names{"doca-common", "doca-comch",    "doca-argp",
                                   "doca-dma",    "doca-compress", "doca-sha"};
    for (const auto &m : r.doca.modules)
        if (std::find(names.begin(), names.end(), m) == names.end())
            names.push_back(m);
    if (std::find(names.begin(), names.end(), "doca-comm-channel") == names.end())
        names.emplace_back("doca-comm-channel");
    return names;
}

library_entry library_of(const report &r, const std::string &name)
{
    library_entry e;
    e.name = name;
    e.pc_path = inventory::pc_file(name);
    e.installed = e.pc_path.has_value();
    if (!e.pc_path) {
        // Not resolvable: the file of an install, if one has it (installed = false says
        // pkg-config does not find it).
        std::vector<std::string> dirs;
        if (r.install.installed)
            dirs.push_back(r.install.pc_dir);
        dirs.insert(dirs.end(), r.doca.pc_dirs.begin(), r.doca.pc_dirs.end());
        for (const auto &d : dirs)
            if (exists(d + "/" + name + ".pc")) {
                e.pc_path = d + "/" + name + ".pc";
                break;
            }
    }
    if (name == "doca-comm-channel")
        e.where = "legacy";
    else if (e.pc_path && softcomch_pc(*e.pc_path))
        e.where = "SoftComch";
    else if (e.pc_path && real_path(*e.pc_path).starts_with(real_path(r.doca.root) + "/"))
        e.where = "DOCA install";
    return e;
}

std::vector<inventory::sample_root> sample_roots(const report &r)
{
    std::vector<inventory::sample_root> out;
    std::string ours;
    if (r.install.installed)
        ours = r.install.prefix + "/share/softcomch/samples";
    else if (*build_tree::source_samples_dir != '\0')
        ours = build_tree::source_samples_dir; // the checkout a build-tree softcomch came from
    std::error_code ec;
    if (!ours.empty() && fs::is_directory(ours, ec))
        out.push_back({"doca-comch", ours});
    for (const auto &s : r.doca.samples)
        if (s.path != ours)
            out.push_back(s);
    return out;
}

void add_unique(std::vector<std::string> &list, const std::string &path)
{
    const std::string real = real_path(path);
    for (const auto &p : list)
        if (real_path(p) == real)
            return;
    list.push_back(path);
}

} // namespace

bool softcomch_pc(const std::string &pc_path)
{
    const auto text = read_file(pc_path);
    return text && text->find("\nDescription: SoftComch") != std::string::npos;
}

report gather(const std::string &doca_root)
{
    report r;
    r.fabric = introspect::fabric_name();
    r.install = this_install();
    r.doca = inventory::inspect_doca_root(doca_root);
    r.pkg_config = inventory::have_pkg_config();
    r.search_path = inventory::pc_search_path();

    r.pkg_config_version = inventory::pc_modversion("doca-common");
    r.applications_version = r.doca.applications_version;
    r.doca_caps_version = DOCA_VERSION_STRING;
    r.bfb = read_first_line("/etc/mlnx-release");
    std::vector<std::string> versions{r.doca_caps_version};
    for (const auto &v : {r.pkg_config_version, r.applications_version})
        if (v)
            versions.push_back(*v);
    r.consistent = inventory::all_same_release(versions);

    r.inv = inventory::take_inventory();
    r.host_kind = inventory::host_kind(r.inv.machine);
    if (r.host_kind == "bluefield")
        r.bf_mode = inventory::machine_bf_mode(r.inv);

    for (const auto &name : module_names(r))
        r.libraries.push_back(library_of(r, name));
    r.samples = sample_roots(r);

    const auto modules = loaded_modules("mlx5");
    r.mlx5_core = std::find(modules.begin(), modules.end(), "mlx5_core") != modules.end();
    r.mlx5_ib = std::find(modules.begin(), modules.end(), "mlx5_ib") != modules.end();
    r.kernel = kernel_release();
    r.huge = hugepages();

    r.comch_pc_files = inventory::pc_files_on_search_path("doca-comch");
    r.comch_pc = inventory::pc_file("doca-comch");
    for (const auto &f : inventory::pc_files_on_search_path("doca-comm-channel"))
        add_unique(r.legacy_pc_files, f);
    for (const auto &f : r.doca.legacy_pc)
        add_unique(r.legacy_pc_files, f);
    if (auto libdir = inventory::pc_variable("doca-comch", "libdir")) {
        const std::string dev_link = *libdir + "/libdoca_comch.so";
        if (exists(dev_link)) {
            r.pc_library = real_path(dev_link);
            r.soname = inventory::soname_of(fs::path(r.pc_library).filename().string());
        }
        const auto libs = inventory::pc_libs("doca-comch");
        r.pc_rpath = libs && libs->find("-rpath") != std::string::npos;
    }
    if (!r.soname.empty())
        r.loader = inventory::loader_resolves(r.soname);
    judge(r);
    return r;
}

} // namespace softcomch::tools::env
