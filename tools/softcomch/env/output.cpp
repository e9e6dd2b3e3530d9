// SPDX-License-Identifier: Apache-2.0
//
// softcomch env: the report as the doca-env JSON object (the schema's fields in its order, then
// the "softcomch" member), or as text.
#include <doca_version.h>

#include <algorithm>
#include <cstdio>

#include "../inventory/contract.hpp"
#include "env.hpp"

namespace softcomch::tools::env {

namespace {

namespace json = softcomch::json;

json::value opt(const std::optional<std::string> &v)
{
    return v ? json::value(*v) : json::value();
}

json::value strings(const std::vector<std::string> &list)
{
    json::value a = json::value::array();
    for (const auto &s : list)
        a.push_back(s);
    return a;
}

json::value extension(const report &r)
{
    const auto &m = r.inv.machine;
    json::value bluefields = json::value::array();
    for (const auto &bf : m.bluefields)
        bluefields.push_back(
            json::value::object().set("id", bf.id).set("model", bf.model).set("mode", bf.mode));
    json::value install = json::value::object();
    install.set("installed", r.install.installed)
        .set("prefix", r.install.installed ? json::value(r.install.prefix) : json::value())
        .set("pc_dir", r.install.installed ? json::value(r.install.pc_dir) : json::value())
        .set("dpu_pc_dir", r.install.installed ? json::value(r.install.dpu_pc_dir) : json::value())
        .set("library", r.install.library);
    json::value doca = json::value::object();
    doca.set("path", r.doca.root).set("present", r.doca.present).set("softcomch", r.doca.softcomch);
    doca.set("applications_version", opt(r.doca.applications_version))
        .set("doca_comch_pc_version", opt(r.doca.comch_pc_version))
        .set("pc_dirs", strings(r.doca.pc_dirs))
        .set("libdoca_comch", strings(r.doca.comch_libraries))
        .set("doca_caps", opt(r.doca.doca_caps));
    json::value loader = json::value::object();
    loader.set("pc_library", r.pc_library.empty() ? json::value() : json::value(r.pc_library))
        .set("soname", r.soname.empty() ? json::value() : json::value(r.soname))
        .set("resolves_to", r.loader.path.empty() ? json::value() : json::value(r.loader.path))
        .set("source", r.loader.source.empty() ? json::value() : json::value(r.loader.source))
        .set("pc_rpath", r.pc_rpath);
    json::value hazards = json::value::array();
    for (const auto &h : r.hazards)
        hazards.push_back(json::value::object()
                              .set("check", h.check)
                              .set("finding", h.finding)
                              .set("fix", h.fix));
    return json::value::object()
        .set("version", SOFTCOMCH_VERSION_STRING)
        .set("doca_api_version", DOCA_VERSION_STRING)
        .set("fabric", r.fabric)
        .set("side", m.side_filter.empty() ? "both" : m.side_filter)
        .set("topology", m.loaded ? json::value(m.origin) : json::value())
        .set("topology_error", m.loaded ? json::value() : json::value(m.error))
        .set("bluefields", std::move(bluefields))
        .set("install", std::move(install))
        .set("doca_root", std::move(doca))
        .set("pkg_config_search_path", strings(r.search_path))
        .set("doca_comch_pc_files", strings(r.comch_pc_files))
        .set("doca_comm_channel_pc_files", strings(r.legacy_pc_files))
        .set("loader", std::move(loader))
        .set("hazards", std::move(hazards));
}

const char *or_none(const std::optional<std::string> &v)
{
    return v ? v->c_str() : "none";
}

} // namespace

json::value to_json(const report &r)
{
    json::value version = json::value::object();
    version.set("pkg_config", opt(r.pkg_config_version))
        .set("applications_version", opt(r.applications_version))
        .set("doca_caps", r.doca_caps_version)
        .set("bfb", opt(r.bfb))
        .set("consistent", r.consistent);
    json::value libraries = json::value::array();
    for (const auto &l : r.libraries)
        libraries.push_back(json::value::object()
                                .set("pkg_config_name", l.name)
                                .set("installed", l.installed)
                                .set("pc_path", opt(l.pc_path)));
    json::value samples = json::value::array();
    for (const auto &s : r.samples)
        samples.push_back(json::value::object().set("library", s.library).set("path", s.path));
    json::value drivers = json::value::object();
    drivers.set("mlx5_core_loaded", r.mlx5_core)
        .set("mlx5_ib_loaded", r.mlx5_ib)
        .set("kernel_version", r.kernel);
    json::value huge = json::value::object();
    huge.set("available_2m", r.huge.available_2m)
        .set("available_1g", r.huge.available_1g)
        .set("mount_point", opt(r.huge.mount_point));
    return json::value::object()
        .set("version", std::move(version))
        .set("devices", inventory::contract_devices(r.inv, true))
        .set("libraries", std::move(libraries))
        .set("sample_paths", std::move(samples))
        .set("drivers", std::move(drivers))
        .set("hugepages", std::move(huge))
        .set("host_kind", r.host_kind)
        .set("bf_mode", opt(r.bf_mode))
        .set("softcomch", extension(r));
}

void print_text(const report &r)
{
    const auto &m = r.inv.machine;
    std::printf("SoftComch %s emulating DOCA %s; fabric \"%s\"; %s; topology: %s\n",
                SOFTCOMCH_VERSION_STRING, DOCA_VERSION_STRING, r.fabric.c_str(),
                m.side_filter.empty() ? "both sides visible"
                                      : (m.side_filter + " side only").c_str(),
                m.loaded ? m.origin.c_str() : ("invalid: " + m.error).c_str());
    std::printf(
        "\nversion\n  pkg_config            %s\n  applications_version  %s\n"
        "  doca_caps             %s\n  bfb                   %s\n  consistent            %s\n",
        or_none(r.pkg_config_version), or_none(r.applications_version), r.doca_caps_version.c_str(),
        or_none(r.bfb), r.consistent ? "yes" : "NO");
    std::printf("host_kind               %s\nbf_mode                 %s\n", r.host_kind.c_str(),
                or_none(r.bf_mode));
    std::printf("\ndevices\n");
    for (const auto &d : r.inv.devices)
        std::printf("  %s  %-2s  %-12s active  mtu %d  %s, %s side\n", d.pci.c_str(),
                    d.kind.c_str(), d.iface.c_str(), inventory::emulated_mtu, d.bluefield.c_str(),
                    d.side.c_str());
    for (const auto &d : r.inv.devices)
        for (const auto &rep : d.representors)
            std::printf("  %s  %-2s  %-12s active  mtu %d  representor of %s\n", d.pci.c_str(),
                        rep.kind.c_str(), rep.name.c_str(), inventory::emulated_mtu,
                        rep.pci.c_str());
    if (r.inv.status != DOCA_SUCCESS)
        std::printf("  none: doca_devinfo_create_list failed: %s\n",
                    doca_error_get_name(r.inv.status));
    std::printf("\nlibraries\n");
    for (const auto &l : r.libraries) {
        std::string line = "  " + l.name;
        line.resize(std::max<size_t>(line.size() + 1, 25), ' ');
        line += l.installed ? "installed    " : "not installed";
        if (l.pc_path)
            line += " " + *l.pc_path;
        if (!l.where.empty())
            line += " (" + l.where + ")";
        std::printf("%s\n", line.c_str());
    }
    std::printf("\nsample_paths\n");
    for (const auto &s : r.samples)
        std::printf("  %-22s %s\n", s.library.c_str(), s.path.c_str());
    if (r.samples.empty())
        std::printf("  none\n");
    std::printf("\ndrivers                 mlx5_core %s, mlx5_ib %s, kernel %s (SoftComch needs no "
                "driver)\n",
                r.mlx5_core ? "loaded" : "not loaded", r.mlx5_ib ? "loaded" : "not loaded",
                r.kernel.c_str());
    std::printf("hugepages               2 MiB: %lld free, 1 GiB: %lld free, mount point %s\n",
                r.huge.available_2m, r.huge.available_1g, or_none(r.huge.mount_point));
    if (r.install.installed)
        std::printf("SoftComch install       %s (pkg-config: %s)\n", r.install.prefix.c_str(),
                    r.install.pc_dir.c_str());
    else
        std::printf("SoftComch install       build tree (%s)\n", r.install.library.c_str());
    if (!r.doca.present)
        std::printf("DOCA install            none at %s\n", r.doca.root.c_str());
    else
        std::printf("DOCA install            %s%s, applications %s, doca-comch.pc %s\n",
                    r.doca.root.c_str(), r.doca.softcomch ? " (SoftComch)" : "",
                    or_none(r.doca.applications_version), or_none(r.doca.comch_pc_version));
    std::printf("\nhazards\n");
    for (const auto &h : r.hazards)
        std::printf("  warn  %-20s %s -- fix: %s\n", h.check.c_str(), h.finding.c_str(),
                    h.fix.c_str());
    if (r.hazards.empty())
        std::printf("  none\n");
}

} // namespace softcomch::tools::env
