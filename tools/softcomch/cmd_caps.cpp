// SPDX-License-Identifier: Apache-2.0
//
// softcomch caps: a doca_caps look-alike for the emulated machine (installed also as
// <prefix>/tools/doca_caps, and with --json as bin/doca-capability-snapshot). Every value is what
// the public DOCA API answers a program started in this environment (inventory/devices.hpp).
// Layout: one "PCI: <address>" header per device, then the library blocks at 4 spaces and their
// rows at 8, names padded to a column; booleans print as supported / unsupported, limits as
// decimal integers (docs/cli.md, "softcomch caps").
#include <doca_version.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "common/json.hpp"
#include "inventory/devices.hpp"
#include "options.hpp"
#include "system.hpp"

namespace softcomch::tools {

namespace {

namespace json = softcomch::json;
using inventory::device_record;

constexpr std::array caps_options{
    option_spec{"list-devs", 0, "", "list the devices and their attributes"},
    option_spec{"list-rep-devs", 0, "", "list the representors of each device that has some"},
    option_spec{"list-libs", 0, "", "list the DOCA libraries and whether each is available"},
    option_spec{"pci-addr", 'p', "PCI", "only the device at PCI (03:00.0 or 0000:03:00.0)"},
    option_spec{"version", 'v', "", "print the DOCA version and exit"},
    option_spec{"json", 0, "",
                "print the capability snapshot (the doca-capability-snapshot JSON schema)"},
};

constexpr command_usage caps_usage{
    "caps",
    "[--list-devs | --list-rep-devs | --list-libs | --json] [-p PCI] [-v]",
    "Prints what the emulated devices can do, as NVIDIA's doca_caps does: with no option every "
    "capability of every device (the doca_devinfo_* capability queries, the Comch server and "
    "client caps, the consumer and producer caps, DMA, mmap export, sync events, mmap advise, "
    "compress and SHA), one block per library. The values are read "
    "through the public DOCA API, so they are exactly what a DOCA program started in this "
    "environment (SOFTCOMCH_TOPOLOGY, SOFTCOMCH_SIDE) sees. Installed also as "
    "<prefix>/tools/doca_caps, and as bin/doca-capability-snapshot (= caps --json).",
    caps_options,
    "Exit status:\n"
    "  0  printed\n"
    "  1  no device could be listed (invalid topology or side), or no device at -p PCI\n"
    "  2  bad command line\n",
};

// The value column: names padded to 46 characters, as in doca_caps' output.
constexpr int name_width = 46;

void print_row(const std::string &name, const std::string &value)
{
    std::printf("        %-*s%s%s\n", name_width, name.c_str(),
                name.size() < size_t(name_width) ? "" : " ", value.c_str());
}

void print_caps(const device_record &d)
{
    std::printf("PCI: %s\n", d.pci.c_str());
    for (const auto &block : d.caps) {
        std::printf("    %s\n", block.library.c_str());
        for (const auto &v : block.values)
            print_row(v.name, v.text());
    }
}

void print_attributes(const device_record &d)
{
    std::printf("PCI: %s\n", d.pci.c_str());
    for (const auto &a : d.attributes)
        print_row(a.name, a.value);
    // What the API does not say, from the emulation.
    if (!d.side.empty()) {
        print_row("side", d.side);
        print_row("bluefield", d.bluefield + " (" + d.bf_mode + " mode)");
        print_row("function", d.function);
    }
}

void print_representors(const device_record &d)
{
    if (!d.rep_status)
        return;
    std::printf("PCI: %s\n", d.pci.c_str());
    if (*d.rep_status != DOCA_SUCCESS) {
        std::printf("    doca_devinfo_rep_create_list failed: %s\n",
                    doca_error_get_name(*d.rep_status));
        return;
    }
    for (const auto &r : d.representors) {
        std::printf("    %s\n", r.name.c_str());
        for (const auto &a : r.attributes)
            print_row(a.name, a.value);
        print_row("open_permitted",
                  d.representors_allowed ? "yes" : "no: " + d.representors_refusal);
    }
}

void print_libraries()
{
    // The DOCA libraries SoftComch provides; MsgQ (DPA data paths) is declared but every call
    // answers DOCA_ERROR_NOT_SUPPORTED. Which tasks of compress and SHA a device has depends on
    // its BlueField's model (the per-device blocks say).
    constexpr std::array<std::array<const char *, 2>, 7> libs{{{"common", "supported"},
                                                               {"argp", "supported"},
                                                               {"comch", "supported"},
                                                               {"comch_msgq", "unsupported"},
                                                               {"dma", "supported"},
                                                               {"compress", "supported"},
                                                               {"sha", "supported"}}};
    for (const auto &l : libs)
        std::printf("%-*s%s\n", name_width, l[0], l[1]);
}

void print_version()
{
    std::printf("doca_caps (SoftComch %s)\nDOCA SDK version (compiled): %s\n"
                "DOCA runtime version:        %s\n",
                SOFTCOMCH_VERSION_STRING, DOCA_VERSION_STRING, DOCA_VERSION_STRING);
}

// The capability-snapshot schema: one entry per doca_devinfo, each library's capabilities as
// "name=value" strings (consumer and producer rows prefixed so within doca-comch).
json::value snapshot(const inventory::device_inventory &inv,
                     const std::vector<const device_record *> &devices)
{
    json::value list = json::value::array();
    for (const device_record *d : devices) {
        json::value libs = json::value::object();
        for (const auto &block : d->caps) {
            const std::string prefix = block.library == "comch_consumer"   ? "consumer_"
                                       : block.library == "comch_producer" ? "producer_"
                                                                           : "";
            json::value *flags = libs.find(block.pkg_config);
            if (flags == nullptr) {
                libs.set(block.pkg_config, json::value::array());
                flags = libs.find(block.pkg_config);
            }
            for (const auto &v : block.values)
                flags->push_back(prefix + v.name + "=" + v.text());
        }
        list.push_back(json::value::object()
                           .set("pcie_address", d->pci)
                           .set("library_capabilities", std::move(libs)));
    }
    return json::value::object()
        .set("snapshot_at", iso8601_now())
        .set("doca_version", DOCA_VERSION_STRING)
        .set("host_kind", inventory::host_kind(inv.machine))
        .set("devices", std::move(list));
}

} // namespace

int cmd_caps(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, caps_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(caps_usage, "unexpected argument '" + opts.positional().front() + "'");
    const int modes = int(opts.has("list-devs")) + int(opts.has("list-rep-devs")) +
                      int(opts.has("list-libs")) + int(opts.has("json"));
    if (modes > 1)
        return usage_error(caps_usage,
                           "--list-devs, --list-rep-devs, --list-libs and --json are exclusive");
    if (opts.has("version")) {
        if (modes != 0)
            return usage_error(caps_usage, "-v/--version takes no other option");
        print_version();
        return exit_ok;
    }
    if (opts.has("list-libs")) {
        print_libraries();
        return exit_ok;
    }
    std::optional<std::string> only;
    if (auto p = opts.get("pci-addr")) {
        only = inventory::canonical_pci(*p);
        if (!only)
            return usage_error(caps_usage, "-p " + *p + ": not a PCI address (BB:DD.F)");
    }

    const inventory::device_inventory inv = inventory::take_inventory();
    if (inv.status != DOCA_SUCCESS) {
        std::fprintf(stderr, "softcomch caps: doca_devinfo_create_list failed: %s%s%s\n",
                     doca_error_get_name(inv.status), inv.machine.error.empty() ? "" : ": ",
                     inv.machine.error.c_str());
        return exit_failure;
    }
    std::vector<const device_record *> selected;
    for (const auto &d : inv.devices)
        if (!only || d.pci == *only)
            selected.push_back(&d);
    if (selected.empty()) {
        std::string known;
        for (const auto &d : inv.devices)
            known += (known.empty() ? "" : ", ") + d.pci;
        std::fprintf(stderr, "softcomch caps: no device at %s (visible: %s)\n", only->c_str(),
                     known.c_str());
        return exit_failure;
    }

    if (opts.has("json")) {
        std::printf("%s\n", json::dump(snapshot(inv, selected), 2).c_str());
    } else if (opts.has("list-devs")) {
        for (const device_record *d : selected)
            print_attributes(*d);
    } else if (opts.has("list-rep-devs")) {
        bool any = false;
        for (const device_record *d : selected) {
            any = any || d->rep_status.has_value();
            print_representors(*d);
        }
        if (!any)
            std::fprintf(stderr, "softcomch caps: none of these devices has representors "
                                 "(they exist on the DPU side, SOFTCOMCH_SIDE=dpu or unset)\n");
    } else {
        for (const device_record *d : selected)
            print_caps(*d);
    }
    return exit_ok;
}

} // namespace softcomch::tools
