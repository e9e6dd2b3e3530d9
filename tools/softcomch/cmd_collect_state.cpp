// SPDX-License-Identifier: Apache-2.0
//
// softcomch collect-state --side host|dpu: one side's state in the collect-host-state /
// collect-dpu-state schema of DOCA's structured-tools contract, symmetric so that the two sides
// can be diffed. The devices are those a program on that side sees: SOFTCOMCH_SIDE is set to the
// side before the first device call, as a process started there would have it. Installed also as
// bin/doca-collect-host-state and bin/doca-collect-dpu-state (= collect-state --side ... --json).
#include <doca_version.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "command.hpp"
#include "common/json.hpp"
#include "inventory/contract.hpp"
#include "inventory/devices.hpp"
#include "options.hpp"
#include "system.hpp"

namespace softcomch::tools {

namespace {

namespace json = softcomch::json;

constexpr std::array collect_options{
    option_spec{"side", 0, "host|dpu", "the side to report (default: $SOFTCOMCH_SIDE)"},
    option_spec{"json", 0, "", "print the collect-host-state / collect-dpu-state JSON object"},
};

constexpr command_usage collect_usage{
    "collect-state",
    "--side host|dpu [--json]",
    "Reports the state of one side of the emulated machine as DOCA's collect-host-state and "
    "collect-dpu-state tools describe it: DOCA version, firmware, kernel, loaded mlx5 modules, "
    "BlueField mode, and every PCIe function a program on that side sees (on the DPU side also "
    "the representors, with the host function each stands for). Run it for both sides and "
    "compare.",
    collect_options,
    "Exit status:\n"
    "  0  reported\n"
    "  1  the devices could not be listed (invalid topology), or that side has none\n"
    "  2  bad command line\n",
};

// The emulated functions have no firmware; the field says so in one stable string.
std::string firmware_text()
{
    return std::string("none (emulated by SoftComch ") + SOFTCOMCH_VERSION_STRING + ")";
}

} // namespace

int cmd_collect_state(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, collect_usage, opts))
        return *status;
    if (!opts.positional().empty())
        return usage_error(collect_usage,
                           "unexpected argument '" + opts.positional().front() + "'");
    std::string side;
    if (auto s = opts.get("side"))
        side = *s;
    else if (const char *env = std::getenv("SOFTCOMCH_SIDE"); env != nullptr)
        side = env;
    if (side != "host" && side != "dpu")
        return usage_error(collect_usage, side.empty() ? "--side host|dpu is required"
                                                       : "--side " + side + ": use host or dpu");
    // What a process on that side sees (the library reads it at the first device call).
    ::setenv("SOFTCOMCH_SIDE", side.c_str(), 1);

    const inventory::device_inventory inv = inventory::take_inventory();
    if (inv.status != DOCA_SUCCESS) {
        std::fprintf(stderr, "softcomch collect-state: doca_devinfo_create_list failed: %s%s%s\n",
                     doca_error_get_name(inv.status), inv.machine.error.empty() ? "" : ": ",
                     inv.machine.error.c_str());
        return exit_failure;
    }
    const auto bf_mode = inventory::machine_bf_mode(inv);
    const auto modules = loaded_modules("mlx5");
    if (opts.has("json")) {
        json::value mods = json::value::array();
        for (const auto &m : modules)
            mods.push_back(m);
        json::value doc = json::value::object();
        doc.set("side", side)
            .set("doca_version", DOCA_VERSION_STRING)
            .set("firmware_version", firmware_text())
            .set("kernel_version", kernel_release())
            .set("mlx5_modules", std::move(mods))
            .set("bf_mode", bf_mode ? json::value(*bf_mode) : json::value())
            .set("devices", inventory::contract_devices(inv, false));
        std::printf("%s\n", json::dump(doc, 2).c_str());
        return exit_ok;
    }
    std::string mods;
    for (const auto &m : modules)
        mods += (mods.empty() ? "" : " ") + m;
    std::printf("side              %s\ndoca_version      %s\nfirmware_version  %s\n"
                "kernel_version    %s\nmlx5_modules      %s\nbf_mode           %s\ndevices\n",
                side.c_str(), DOCA_VERSION_STRING, firmware_text().c_str(),
                kernel_release().c_str(), mods.empty() ? "none" : mods.c_str(),
                bf_mode ? bf_mode->c_str() : "none");
    for (const auto &d : inv.devices)
        std::printf("  %s  %-2s  active  mtu %d\n", d.pci.c_str(), d.kind.c_str(),
                    inventory::emulated_mtu);
    for (const auto &d : inv.devices)
        for (const auto &rep : d.representors)
            std::printf("  %s  %-2s  active  mtu %d  representor of %s (%s)\n", d.pci.c_str(),
                        rep.kind.c_str(), inventory::emulated_mtu, rep.pci.c_str(),
                        rep.name.c_str());
    return exit_ok;
}

} // namespace softcomch::tools
