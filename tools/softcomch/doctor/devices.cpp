// SPDX-License-Identifier: Apache-2.0
//
// The doctor's devices check: the devices a program started here would see (the topology and
// SOFTCOMCH_SIDE), one line each, and whether a Comch server and client can run on them.
#include <string>
#include <vector>

#include "doctor.hpp"
#include "introspect/topology.hpp"

namespace softcomch::tools::doctor {

void check_devices(report &r)
{
    const introspect::machine_info view = introspect::machine();
    json::value devices = json::value::array();
    if (!view.loaded) {
        r.add(verdict::fail, "devices", "none: " + view.error,
              "fix SOFTCOMCH_TOPOLOGY / SOFTCOMCH_SIDE (above)");
        r.facts.set("devices", std::move(devices));
        return;
    }
    const char *sides = view.side_filter.empty()     ? "both sides"
                        : view.side_filter == "host" ? "host side only"
                                                     : "DPU side only";
    bool server = false, client = false;
    std::vector<std::string> details;
    std::vector<std::string> refused; // BlueFields whose representors this user may not open
    for (const introspect::bluefield_info &bf : view.bluefields) {
        details.push_back(bf.id + ": " + bf.model + ", " + bf.mode + " mode");
        for (const introspect::device_info &d : view.devices) {
            if (d.bluefield != bf.id)
                continue;
            server = server || d.server_capable;
            client = client || d.client_capable;
            std::string line = "  " + d.side + (d.side == "host" ? "  " : "   ") + d.pci + "  " +
                               d.ibdev + "  " + d.function;
            std::string roles = d.server_capable   ? "server"
                                : d.client_capable ? "client"
                                                   : "no Comch";
            json::value reps = json::value::array();
            for (const introspect::representor_info &rep : d.representors) {
                roles += (reps.size() == 0 ? "; representors " : ", ") + rep.name + "=" + rep.pci;
                reps.push_back(json::value::object().set("name", rep.name).set("pci", rep.pci));
            }
            details.push_back(line + "  " + roles);
            devices.push_back(json::value::object()
                                  .set("bluefield", d.bluefield)
                                  .set("side", d.side)
                                  .set("pci", d.pci)
                                  .set("ibdev", d.ibdev)
                                  .set("function", d.function)
                                  .set("server_capable", d.server_capable)
                                  .set("client_capable", d.client_capable)
                                  .set("representors", std::move(reps)));
        }
        if (view.dpu_visible && !bf.representors_allowed)
            refused.push_back(bf.id + ": " + bf.representors_refusal);
    }
    verdict v = verdict::ok;
    std::string finding = view.origin + ": " + std::to_string(view.devices.size()) +
                          " devices visible (" + sides + ")";
    std::string fix;
    if (view.dpu_visible && !server) {
        v = verdict::warn;
        finding += "; no DPU-side device can run a Comch server (NIC mode?)";
        fix = "put a BlueField in dpu mode in the topology file";
    } else if (view.host_visible && !client) {
        v = verdict::warn;
        finding += "; no host-side device can run a Comch client (NIC mode?)";
        fix = "put a BlueField in dpu mode in the topology file";
    }
    if (!refused.empty()) {
        v = verdict::warn;
        for (const auto &w : refused)
            finding += "; representors refused: " + w;
        fix = "run the DPU side as a user the topology's privilege policy allows";
    }
    r.add(v, "devices", finding, fix).details = std::move(details);
    r.facts.set("devices", std::move(devices));
}

} // namespace softcomch::tools::doctor
