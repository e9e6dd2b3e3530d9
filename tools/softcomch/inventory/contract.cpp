// SPDX-License-Identifier: Apache-2.0
#include "contract.hpp"

#include <cstdio>

namespace softcomch::tools::inventory {

namespace {

namespace json = softcomch::json;

struct release {
    int major = -1, minor = -1, patch = -1;
    bool build = false; // the patch field is a 4-digit build number ("0058")
};

release parse_release(const std::string &s)
{
    release r;
    int consumed = 0;
    if (std::sscanf(s.c_str(), "%d.%d.%d%n", &r.major, &r.minor, &r.patch, &consumed) < 2)
        return {};
    const size_t last_dot = s.rfind('.', size_t(consumed > 0 ? consumed : 0));
    if (consumed > 0 && last_dot != std::string::npos)
        r.build = size_t(consumed) - last_dot - 1 == 4;
    return r;
}

} // namespace

json::value contract_devices(const device_inventory &inv, bool with_name)
{
    json::value out = json::value::array();
    auto record = [&](const std::string &pci, const std::string &kind, const std::string &name,
                      json::value representor_of) {
        json::value r = json::value::object();
        r.set("pcie_address", pci).set("kind", kind);
        if (with_name)
            r.set("name", name);
        r.set("representor_of", std::move(representor_of))
            .set("state", "active")
            .set("mtu", emulated_mtu);
        out.push_back(std::move(r));
    };
    for (const auto &d : inv.devices)
        record(d.pci, d.kind, d.iface, nullptr);
    for (const auto &d : inv.devices)
        for (const auto &rep : d.representors)
            record(d.pci, rep.kind, rep.name, rep.pci);
    return out;
}

std::optional<std::string> machine_bf_mode(const device_inventory &inv)
{
    for (const auto &d : inv.devices)
        if (!d.bf_mode.empty())
            return contract_bf_mode(d.bf_mode);
    return std::nullopt;
}

bool same_release(const std::string &a, const std::string &b)
{
    const release x = parse_release(a), y = parse_release(b);
    if (x.major < 0 || y.major < 0)
        return a == b;
    if (x.major != y.major || x.minor != y.minor)
        return false;
    return !(x.build && y.build) || x.patch == y.patch;
}

bool all_same_release(const std::vector<std::string> &versions)
{
    for (size_t i = 0; i < versions.size(); ++i)
        for (size_t j = i + 1; j < versions.size(); ++j)
            if (!same_release(versions[i], versions[j]))
                return false;
    return true;
}

} // namespace softcomch::tools::inventory
