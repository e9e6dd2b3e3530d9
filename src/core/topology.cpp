// SPDX-License-Identifier: Apache-2.0
//
// The topology model: the built-in machine, loading a document or file (through the builder,
// topology_builder.hpp), lookups, and the effective document (to_json).
#include "core/topology.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/topology_builder.hpp"
#include "core/topology_schema.hpp"

namespace softcomch::core {

namespace {

// The built-in machine (docs/topology.md section 1). Everything not written here is derived by the
// same rules that apply to a topology file, so this text doubles as the minimal example.
constexpr std::string_view builtin_text = R"({
  "version": 1,
  "bluefields": [
    {
      "id": "bf0",
      "model": "BlueField-3",
      "mode": "dpu",
      "host": [
        { "pci": "0000:b1:00.0", "type": "pf", "pf": 0 },
        { "pci": "0000:b1:00.1", "type": "pf", "pf": 1 },
        { "pci": "0000:b1:00.2", "type": "vf", "pf": 0, "vf": 0 }
      ],
      "dpu": [
        { "pci": "0000:03:00.0", "type": "pf", "pf": 0,
          "representors": [ { "host_function": "0000:b1:00.0" },
                            { "host_function": "0000:b1:00.2" } ] },
        { "pci": "0000:03:00.1", "type": "pf", "pf": 1,
          "representors": [ { "host_function": "0000:b1:00.1" } ] }
      ]
    }
  ]
})";

constexpr const char *builtin_origin = "built-in default";
constexpr size_t max_file_size = 1u << 20;

const char *type_text(doca_pci_func_type t)
{
    switch (t) {
    case DOCA_PCI_FUNC_TYPE_PF:
        return "pf";
    case DOCA_PCI_FUNC_TYPE_VF:
        return "vf";
    case DOCA_PCI_FUNC_TYPE_SF:
        return "sf";
    }
    return "pf";
}

const char *rule_text(privilege_policy::rule r)
{
    switch (r) {
    case privilege_policy::rule::anyone:
        return "anyone";
    case privilege_policy::rule::root:
        return "root";
    case privilege_policy::rule::group:
        return "group";
    }
    return "anyone";
}

json::value privilege_to_json(const privilege_policy &p)
{
    json::value v = json::value::object();
    v.set("representors", rule_text(p.rule_));
    if (p.rule_ == privilege_policy::rule::group)
        v.set("group", p.group_);
    return v;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// topology
// ------------------------------------------------------------------------------------------------

topology::~topology() = default;

std::unique_ptr<topology> topology::builtin()
{
    std::string error;
    std::unique_ptr<topology> t = from_json_text(builtin_text, builtin_origin, &error);
    if (!t) // the embedded text is validated by the unit tests; this cannot happen
        throw std::logic_error("built-in topology invalid: " + error);
    return t;
}

std::unique_ptr<topology> topology::from_json_text(std::string_view text, const std::string &origin,
                                                   std::string *error)
{
    std::string perr;
    json::value doc = json::parse(text, &perr);
    if (!perr.empty()) {
        if (error)
            *error = origin + ":" + perr;
        return nullptr;
    }
    try {
        std::unique_ptr<topology> t = build_topology(doc, origin);
        if (error)
            error->clear();
        return t;
    } catch (const schema::schema_error &e) {
        if (error)
            *error = origin + ": " + e.path + ": " + e.what;
        return nullptr;
    }
}

std::unique_ptr<topology> topology::from_file(const std::string &path, std::string *error)
{
    // A name instead of a path: the built-in machine as that model (docs/topology.md, section 1).
    if (path == "bluefield-2" || path == "bluefield-3") {
        std::string text(builtin_text);
        if (path == "bluefield-2")
            text.replace(text.find("BlueField-3"), 11, "BlueField-2");
        return from_json_text(text, "built-in " + path, error);
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        int err = errno;
        if (error)
            *error = path + ": cannot open topology file: " + std::strerror(err);
        return nullptr;
    }
    std::string text;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, static_cast<size_t>(in.gcount()));
        if (text.size() > max_file_size) {
            if (error)
                *error = path + ": topology file larger than " + std::to_string(max_file_size) +
                         " bytes";
            return nullptr;
        }
    }
    if (in.bad()) {
        if (error)
            *error = path + ": cannot read topology file";
        return nullptr;
    }
    return from_json_text(text, path, error);
}

doca_devinfo *topology::find_function(std::string_view function_id) const noexcept
{
    for (doca_devinfo *d : device_view_)
        if (d->function_id() == function_id)
            return d;
    return nullptr;
}

doca_devinfo *topology::find_device(side s, std::string_view pci) const noexcept
{
    for (doca_devinfo *d : device_view_)
        if (d->side() == s && d->pci_addr() == pci)
            return d;
    return nullptr;
}

json::value topology::to_json() const
{
    json::value doc = json::value::object();
    doc.set("version", 1);
    json::value bfs = json::value::array();
    for (const auto &bf : boards_) {
        json::value b = json::value::object();
        b.set("id", bf->id_)
            .set("model", bf->model_)
            .set("mode", bf_mode_name(bf->mode_))
            .set("serial", bf->serial_);
        json::value caps = json::value::object();
        for (const comch_cap_field &f : comch_cap_fields)
            caps.set(f.name, bf->caps_.*(f.member));
        b.set("comch_caps", std::move(caps));
        json::value dma = json::value::object();
        for (const dma_cap_field &f : dma_cap_fields)
            dma.set(f.name, bf->dma_.*(f.member));
        b.set("dma_caps", std::move(dma));
        b.set("privilege", privilege_to_json(bf->privilege_));
        json::value host = json::value::array(), dpu = json::value::array();
        for (doca_devinfo *d : device_view_) {
            if (&d->board() != bf.get())
                continue;
            const function_desc &fd = d->desc();
            json::value f = json::value::object();
            f.set("pci", fd.pci_).set("type", type_text(fd.type_)).set("pf", fd.pf_);
            if (fd.type_ == DOCA_PCI_FUNC_TYPE_VF)
                f.set("vf", fd.vf_);
            if (fd.type_ == DOCA_PCI_FUNC_TYPE_SF)
                f.set("sf", fd.sf_num_).set("sf_index", fd.sf_index_);
            f.set("ibdev", fd.ibdev_).set("iface", fd.iface_).set("vuid", fd.vuid_);
            f.set("mac", schema::mac_text(fd.mac_)).set("ipv4", schema::ipv4_text(fd.ipv4_));
            if (d->side() == side::dpu && fd.type_ == DOCA_PCI_FUNC_TYPE_PF) {
                json::value reps = json::value::array();
                for (doca_devinfo_rep *r : d->representors()) {
                    json::value rj = json::value::object();
                    rj.set("host_function", r->pci_addr());
                    if (r->func_type() == DOCA_PCI_FUNC_TYPE_SF)
                        rj.set("sf", r->host_function()->sf_num());
                    rj.set("name", r->name()).set("iface", r->iface_name());
                    reps.push_back(std::move(rj));
                }
                f.set("representors", std::move(reps));
            }
            (d->side() == side::host ? host : dpu).push_back(std::move(f));
        }
        b.set("host", std::move(host)).set("dpu", std::move(dpu));
        bfs.push_back(std::move(b));
    }
    doc.set("bluefields", std::move(bfs));
    return doc;
}

} // namespace softcomch::core
