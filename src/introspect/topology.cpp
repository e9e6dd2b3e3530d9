// SPDX-License-Identifier: Apache-2.0
#include "introspect/topology.hpp"

#include "core/topology.hpp"

namespace softcomch::introspect {

namespace {

capability_set capabilities_of(const core::comch_caps &caps)
{
    capability_set set;
    for (const core::comch_cap_field &f : core::comch_cap_fields)
        set.values.push_back({f.name, caps.*(f.member)});
    return set;
}

const char *kind_text(const doca_devinfo &d)
{
    switch (d.func_type()) {
    case DOCA_PCI_FUNC_TYPE_PF:
        return "PF";
    case DOCA_PCI_FUNC_TYPE_VF:
        return "VF";
    case DOCA_PCI_FUNC_TYPE_SF:
        return "SF";
    }
    return "?";
}

std::string function_text(const doca_devinfo &d)
{
    switch (d.func_type()) {
    case DOCA_PCI_FUNC_TYPE_PF:
        return "PF" + std::to_string(d.pf_index());
    case DOCA_PCI_FUNC_TYPE_VF:
        return "VF" + std::to_string(d.vf_index()) + " of PF" + std::to_string(d.pf_index());
    case DOCA_PCI_FUNC_TYPE_SF:
        return "SF" + std::to_string(d.sf_num()) + " of PF" + std::to_string(d.pf_index());
    }
    return "?";
}

device_info device_of(const doca_devinfo &d)
{
    device_info info;
    info.bluefield = d.bluefield_id();
    info.side = core::side_name(d.side());
    info.pci = d.pci_addr();
    info.ibdev = d.ibdev_name();
    info.iface = d.iface_name();
    info.kind = kind_text(d);
    info.function = function_text(d);
    info.server_capable = d.server_capable();
    info.client_capable = d.client_capable();
    for (const doca_devinfo_rep *rep : d.representors())
        info.representors.push_back({rep->name(), rep->pci_addr()});
    return info;
}

} // namespace

uint32_t capability_set::get(std::string_view name) const noexcept
{
    for (const capability &c : values)
        if (c.name == name)
            return c.value;
    return 0;
}

capability_set default_capabilities()
{
    return capabilities_of(core::comch_caps{});
}

machine_info machine()
{
    const core::machine_view &view = core::machine();
    machine_info m;
    m.error = view.error;
    if (view.side_filter)
        m.side_filter = core::side_name(*view.side_filter);
    m.host_visible = view.visible(core::side::host);
    m.dpu_visible = view.visible(core::side::dpu);
    m.loaded = view.status == DOCA_SUCCESS && view.topo != nullptr;
    if (!m.loaded)
        return m;
    m.origin = view.topo->origin();
    const core::credentials who = core::credentials::current();
    for (const auto &bf : view.topo->bluefields()) {
        bluefield_info b;
        b.id = bf->id_;
        b.model = bf->model_;
        b.mode = core::bf_mode_name(bf->mode_);
        b.caps = capabilities_of(bf->caps_);
        b.representors_allowed =
            core::privilege_allows(bf->privilege_, who, &b.representors_refusal);
        m.bluefields.push_back(std::move(b));
    }
    for (const doca_devinfo *d : view.visible_devices())
        m.devices.push_back(device_of(*d));
    return m;
}

topology_file_check check_topology_file(const std::string &path)
{
    topology_file_check c;
    const auto topo = core::topology::from_file(path, &c.error);
    if (!topo)
        return c;
    c.valid = true;
    c.bluefields = topo->bluefields().size();
    c.devices = topo->devices().size();
    c.representors = topo->representors().size();
    return c;
}

std::optional<std::string> canonical_pci(const std::string &text)
{
    std::string out;
    if (text.find('\0') != std::string::npos || !core::canonical_pci_addr(text.c_str(), out))
        return std::nullopt;
    return out;
}

} // namespace softcomch::introspect
