// SPDX-License-Identifier: Apache-2.0
//
// topology_builder: a topology document checked against the schema, with every default filled in
// (docs/topology.md).
#include "core/topology_builder.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>

#include "core/topology_schema.hpp"

namespace softcomch::core {

using namespace schema;

namespace {

constexpr size_t max_bluefields = 64;
constexpr size_t max_functions_per_side = 1024;
constexpr size_t max_reps_per_device = 1024;

struct model_info {
    const char *name;
    uint64_t port_rate_bps;
    const char *serial_prefix;
};
constexpr model_info models[] = {
    {"BlueField-2", 100'000'000'000ull, "MT2109"},
    {"BlueField-3", 200'000'000'000ull, "MT2334"},
};
constexpr const char *default_model = "BlueField-3";

const model_info *find_model(std::string_view name)
{
    for (const model_info &m : models)
        if (name == m.name)
            return &m;
    return nullptr;
}

privilege_policy parse_privilege(const json::value &v, const std::string &path,
                                 const std::string &origin)
{
    require_object(v, path);
    check_keys(v, path, {"representors", "group"});
    privilege_policy p;
    p.origin_ = origin;
    const std::string rpath = member_path(path, "representors");
    const std::string &r = as_string(required_member(v, path, "representors"), rpath);
    if (r == "anyone")
        p.rule_ = privilege_policy::rule::anyone;
    else if (r == "root")
        p.rule_ = privilege_policy::rule::root;
    else if (r == "group")
        p.rule_ = privilege_policy::rule::group;
    else
        fail(rpath, "unknown rule \"" + r + "\" (expected \"anyone\", \"root\" or \"group\")");
    const json::value *g = optional_member(v, "group");
    if (p.rule_ == privilege_policy::rule::group) {
        if (!g)
            fail(path, "rule \"group\" needs a \"group\" member naming the group");
        p.group_ = checked_name(*g, member_path(path, "group"), 32, "_-.", "group name");
    } else if (g) {
        fail(member_path(path, "group"),
             "\"group\" is only meaningful with \"representors\": \"group\"");
    }
    return p;
}

} // namespace

// ------------------------------------------------------------------------------------------------
// topology_builder: schema validation and defaults
// ------------------------------------------------------------------------------------------------

class topology_builder {
public:
    explicit topology_builder(std::string origin) : origin_(std::move(origin))
    {
        topo_.reset(new topology());
        topo_->origin_ = origin_;
    }

    std::unique_ptr<topology> build(const json::value &doc)
    {
        const std::string root = "$";
        require_object(doc, root);
        check_keys(doc, root, {"version", "privilege", "bluefields"});
        if (const json::value *ver = optional_member(doc, "version")) {
            if (!ver->is_int() || ver->as_int() != 1)
                fail(member_path(root, "version"), "unsupported version " + json::dump(*ver, 0) +
                                                       " (this SoftComch reads version 1)");
        }
        privilege_policy global;
        global.origin_ = origin_;
        if (const json::value *p = optional_member(doc, "privilege"))
            global = parse_privilege(*p, member_path(root, "privilege"), origin_);
        const std::string bpath = member_path(root, "bluefields");
        const json::value &bfs =
            as_array(required_member(doc, root, "bluefields"), bpath, 1, max_bluefields);
        for (size_t i = 0; i < bfs.size(); ++i)
            build_bluefield(bfs[i], index_path(bpath, i), static_cast<uint32_t>(i), global);
        return std::move(topo_);
    }

private:
    // A function as read from the file, before the devinfo is created.
    struct pending_function {
        std::string path;
        function_desc d;
        bool ibdev_given = false, iface_given = false, vuid_given = false, mac_given = false;
        bool sf_index_given = false;
        const json::value *reps = nullptr; // DPU PFs only
        doca_devinfo *info = nullptr;
    };

    // Records `key` as used by `path`; refuses duplicates.
    void claim(std::map<std::string, std::string> &used, const std::string &key,
               const std::string &path, const std::string &what)
    {
        auto [it, inserted] = used.emplace(key, path);
        if (!inserted)
            fail(path, "duplicate " + what + " (also used by " + it->second + ")");
    }

    void build_bluefield(const json::value &v, const std::string &path, uint32_t index,
                         const privilege_policy &global)
    {
        require_object(v, path);
        check_keys(v, path,
                   {"id", "model", "mode", "serial", "comch_caps", "dma_caps", "privilege", "host",
                    "dpu"});
        auto bf = std::make_unique<bluefield>();
        bf->index_ = index;
        bf->id_ = checked_name(required_member(v, path, "id"), member_path(path, "id"), 32, "_-.",
                               "BlueField id");
        claim(bf_ids_, bf->id_, member_path(path, "id"), "BlueField id \"" + bf->id_ + "\"");

        bf->model_ = default_model;
        if (const json::value *m = optional_member(v, "model")) {
            const std::string mpath = member_path(path, "model");
            bf->model_ = as_string(*m, mpath);
            if (!find_model(bf->model_)) {
                std::string list;
                for (const model_info &mi : models)
                    list += (list.empty() ? "\"" : ", \"") + std::string(mi.name) + "\"";
                fail(mpath, "unknown device model \"" + bf->model_ + "\" (known: " + list + ")");
            }
        }
        const model_info *model = find_model(bf->model_);
        bf->port_rate_bps_ = model->port_rate_bps;

        if (const json::value *m = optional_member(v, "mode")) {
            const std::string mpath = member_path(path, "mode");
            const std::string &mode = as_string(*m, mpath);
            if (mode == "dpu")
                bf->mode_ = bf_mode::dpu;
            else if (mode == "nic")
                bf->mode_ = bf_mode::nic;
            else
                fail(mpath, "unknown mode \"" + mode + "\" (expected \"dpu\" or \"nic\")");
        }

        char serial[32];
        std::snprintf(serial, sizeof serial, "%sSC%04u", model->serial_prefix, index);
        bf->serial_ = serial;
        if (const json::value *s = optional_member(v, "serial"))
            bf->serial_ = checked_name(*s, member_path(path, "serial"), 32, "", "serial");

        if (const json::value *c = optional_member(v, "comch_caps"))
            bf->caps_ = parse_caps(*c, member_path(path, "comch_caps"));
        if (const json::value *c = optional_member(v, "dma_caps"))
            bf->dma_ = parse_dma_caps(*c, member_path(path, "dma_caps"));

        bf->privilege_ = global;
        if (const json::value *p = optional_member(v, "privilege"))
            bf->privilege_ = parse_privilege(*p, member_path(path, "privilege"), origin_);

        const bluefield *board = bf.get();
        topo_->boards_.push_back(std::move(bf));

        std::vector<pending_function> host = read_functions(v, path, "host", side::host, *board);
        std::vector<pending_function> dpu = read_functions(v, path, "dpu", side::dpu, *board);

        // vHCA ids: unique within the BlueField; host functions first, then DPU-side devices.
        uint16_t vhca = 0;
        for (auto *list : {&host, &dpu})
            for (pending_function &f : *list)
                f.d.vhca_id_ = vhca++;

        for (auto *list : {&host, &dpu}) {
            for (pending_function &f : *list) {
                auto info = std::make_unique<doca_devinfo>(board, f.d);
                f.info = info.get();
                topo_->device_view_.push_back(info.get());
                topo_->devices_.push_back(std::move(info));
            }
        }
        build_representors(dpu, host, *board);
    }

    comch_caps parse_caps(const json::value &v, const std::string &path)
    {
        require_object(v, path);
        comch_caps caps;
        for (const auto &[key, val] : v.items()) {
            const comch_cap_field *field = nullptr;
            for (const comch_cap_field &f : comch_cap_fields)
                if (key == f.name)
                    field = &f;
            if (!field) {
                std::string list;
                for (const comch_cap_field &f : comch_cap_fields)
                    list += (list.empty() ? "" : ", ") + std::string(f.name);
                fail(member_path(path, key),
                     "unknown capability \"" + key + "\" (known: " + list + ")");
            }
            caps.*(field->member) = static_cast<uint32_t>(
                as_uint(val, member_path(path, key), 1, std::numeric_limits<uint32_t>::max()));
        }
        if (caps.max_name_len < 2)
            fail(member_path(path, "max_name_len"),
                 "must be at least 2 (one character and the NUL)");
        if (caps.default_recv_queue_size > caps.max_recv_queue_size)
            fail(path, "default_recv_queue_size (" + std::to_string(caps.default_recv_queue_size) +
                           ") is larger than max_recv_queue_size (" +
                           std::to_string(caps.max_recv_queue_size) + ")");
        return caps;
    }

    dma_caps parse_dma_caps(const json::value &v, const std::string &path)
    {
        require_object(v, path);
        dma_caps caps;
        for (const auto &[key, val] : v.items()) {
            const dma_cap_field *field = nullptr;
            for (const dma_cap_field &f : dma_cap_fields)
                if (key == f.name)
                    field = &f;
            if (!field) {
                std::string list;
                for (const dma_cap_field &f : dma_cap_fields)
                    list += (list.empty() ? "" : ", ") + std::string(f.name);
                fail(member_path(path, key),
                     "unknown capability \"" + key + "\" (known: " + list + ")");
            }
            caps.*(field->member) = as_uint(val, member_path(path, key), 1, field->max);
        }
        return caps;
    }

    std::vector<pending_function> read_functions(const json::value &bf, const std::string &bf_path,
                                                 const char *key, side s, const bluefield &board)
    {
        const std::string lpath = member_path(bf_path, key);
        const json::value &list =
            as_array(required_member(bf, bf_path, key), lpath, 1, max_functions_per_side);
        std::vector<pending_function> out;
        out.reserve(list.size());

        // Pass 1: explicit fields of every function.
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string path = index_path(lpath, i);
            const json::value &f = require_object(list[i], path);
            if (s == side::dpu)
                check_keys(f, path,
                           {"pci", "type", "pf", "sf", "sf_index", "ibdev", "iface", "vuid", "mac",
                            "ipv4", "representors"});
            else
                check_keys(f, path,
                           {"pci", "type", "pf", "vf", "sf", "sf_index", "ibdev", "iface", "vuid",
                            "mac", "ipv4"});
            pending_function p;
            p.path = path;
            p.d.side_ = s;
            std::string type = "pf";
            if (const json::value *t = optional_member(f, "type")) {
                type = as_string(*t, member_path(path, "type"));
                if (type == "pf")
                    p.d.type_ = DOCA_PCI_FUNC_TYPE_PF;
                else if (type == "vf" && s == side::host)
                    p.d.type_ = DOCA_PCI_FUNC_TYPE_VF;
                else if (type == "sf")
                    p.d.type_ = DOCA_PCI_FUNC_TYPE_SF;
                else
                    fail(member_path(path, "type"),
                         "unknown function type \"" + type + "\" (expected " +
                             (s == side::host ? "\"pf\", \"vf\" or \"sf\""
                                              : "\"pf\" or \"sf\" on the DPU side") +
                             ")");
            }
            const bool is_pf = p.d.type_ == DOCA_PCI_FUNC_TYPE_PF;
            const bool is_vf = p.d.type_ == DOCA_PCI_FUNC_TYPE_VF;
            const bool is_sf = p.d.type_ == DOCA_PCI_FUNC_TYPE_SF;

            const json::value *pci = optional_member(f, "pci");
            if (pci)
                p.d.pci_ = checked_pci(*pci, member_path(path, "pci"));
            else if (!is_sf)
                fail(path, "missing required member \"pci\"");

            if (const json::value *pf = optional_member(f, "pf"))
                p.d.pf_ = static_cast<uint32_t>(as_uint(*pf, member_path(path, "pf"), 0, 255));
            else if (is_pf)
                p.d.pf_ = static_cast<uint32_t>(p.d.pci_.back() - '0'); // the PCI function number
            else
                fail(path, "a " + type + " needs a \"pf\" member naming its parent PF");

            // "vf" and "sf": the number a function of that type must have and no other may.
            auto own_number = [&](const char *member, bool own_type, const char *missing,
                                  uint64_t max, uint32_t &into) {
                const json::value *v = optional_member(f, member);
                if (!v) {
                    if (own_type)
                        fail(path, missing);
                    return;
                }
                if (!own_type)
                    fail(member_path(path, member), std::string("\"") + member +
                                                        "\" is only meaningful for type \"" +
                                                        member + "\"");
                into = static_cast<uint32_t>(as_uint(*v, member_path(path, member), 0, max));
            };
            own_number("vf", is_vf, "a vf needs a \"vf\" member (its VF number)", 65535, p.d.vf_);
            own_number("sf", is_sf, "an sf needs an \"sf\" member (its SF number)",
                       std::numeric_limits<uint32_t>::max(), p.d.sf_num_);
            if (const json::value *si = optional_member(f, "sf_index")) {
                if (!is_sf)
                    fail(member_path(path, "sf_index"),
                         "\"sf_index\" is only meaningful for type \"sf\"");
                p.d.sf_index_ = static_cast<uint32_t>(as_uint(
                    *si, member_path(path, "sf_index"), 0, std::numeric_limits<uint32_t>::max()));
                p.sf_index_given = true;
            }

            if (const json::value *x = optional_member(f, "ibdev")) {
                p.d.ibdev_ = checked_name(*x, member_path(path, "ibdev"),
                                          DOCA_DEVINFO_IBDEV_NAME_SIZE - 1, "_-.", "ibdev name");
                p.ibdev_given = true;
            }
            if (const json::value *x = optional_member(f, "iface")) {
                p.d.iface_ =
                    checked_name(*x, member_path(path, "iface"), 15, "_-.", "interface name");
                p.iface_given = true;
            }
            if (const json::value *x = optional_member(f, "vuid")) {
                p.d.vuid_ = checked_name(*x, member_path(path, "vuid"), DOCA_DEVINFO_VUID_SIZE - 1,
                                         "_-.:", "VUID");
                p.vuid_given = true;
            }
            if (const json::value *x = optional_member(f, "mac")) {
                p.d.mac_ = checked_mac(*x, member_path(path, "mac"));
                p.mac_given = true;
            }
            if (const json::value *x = optional_member(f, "ipv4"))
                p.d.ipv4_ = checked_ipv4(*x, member_path(path, "ipv4"));
            if (const json::value *r = optional_member(f, "representors")) {
                if (!is_pf)
                    fail(member_path(path, "representors"),
                         "only a DPU-side PF manages representors");
                p.reps = &as_array(*r, member_path(path, "representors"), 0, max_reps_per_device);
            }
            out.push_back(std::move(p));
        }

        // Pass 2: references between functions, uniqueness and defaults.
        std::map<uint32_t, pending_function *> pfs;
        for (pending_function &p : out) {
            if (p.d.type_ != DOCA_PCI_FUNC_TYPE_PF)
                continue;
            auto [it, inserted] = pfs.emplace(p.d.pf_, &p);
            if (!inserted)
                fail(member_path(p.path, "pf"),
                     "duplicate PF index " + std::to_string(p.d.pf_) + " on the " + side_name(s) +
                         " side (also used by " + it->second->path + ")");
        }
        std::map<std::string, std::string> vfs, sfs;
        const uint32_t bfno = board.index_ + 1;
        uint32_t &sf_counter = s == side::host ? host_sf_index_ : dpu_sf_index_;
        if (s == side::dpu) { // SF indexes are per computer: each BlueField's Arm has its own
            dpu_sf_index_ = 0;
            dpu_sf_indexes_.clear();
        }
        uint32_t ordinal = 0;
        for (pending_function &p : out) {
            const bool is_pf = p.d.type_ == DOCA_PCI_FUNC_TYPE_PF;
            const bool is_vf = p.d.type_ == DOCA_PCI_FUNC_TYPE_VF;
            const std::string pf_s = std::to_string(p.d.pf_);
            if (!is_pf) {
                auto parent = pfs.find(p.d.pf_);
                if (parent == pfs.end())
                    fail(member_path(p.path, "pf"), "no PF with index " + pf_s + " on the " +
                                                        side_name(s) + " side of BlueField " +
                                                        board.id_);
                if (is_vf) {
                    claim(vfs, pf_s + "/" + std::to_string(p.d.vf_), member_path(p.path, "vf"),
                          "VF " + std::to_string(p.d.vf_) + " of PF " + pf_s);
                } else {
                    claim(sfs, pf_s + "/" + std::to_string(p.d.sf_num_), member_path(p.path, "sf"),
                          "SF " + std::to_string(p.d.sf_num_) + " of PF " + pf_s);
                    // A sub-function has no PCI function of its own: it shows its parent's address.
                    if (p.d.pci_.empty())
                        p.d.pci_ = parent->second->d.pci_;
                    else if (p.d.pci_ != parent->second->d.pci_)
                        fail(member_path(p.path, "pci"),
                             "an SF has the PCI address of its parent PF (" +
                                 parent->second->d.pci_ + "), not " + p.d.pci_);
                    if (!p.sf_index_given)
                        p.d.sf_index_ = sf_counter;
                    sf_counter = std::max(sf_counter, p.d.sf_index_ + 1);
                    std::map<std::string, std::string> &sf_index_used =
                        s == side::host ? host_sf_indexes_ : dpu_sf_indexes_;
                    claim(sf_index_used, std::to_string(p.d.sf_index_),
                          member_path(p.path, "sf_index"),
                          "SF index " + std::to_string(p.d.sf_index_));
                }
            }
            if (p.d.type_ != DOCA_PCI_FUNC_TYPE_SF)
                claim(pci_used_, p.d.pci_, member_path(p.path, "pci"), "PCI address " + p.d.pci_);

            // Names and identities not given in the file.
            if (!p.ibdev_given)
                p.d.ibdev_ =
                    "mlx5_" + std::to_string(s == side::host ? host_ibdev_counter_ : ordinal);
            if (s == side::host)
                ++host_ibdev_counter_;
            if (!p.iface_given) {
                const std::string slot = std::to_string(bfno);
                switch (p.d.type_) {
                case DOCA_PCI_FUNC_TYPE_PF:
                    p.d.iface_ =
                        s == side::host ? "ens" + slot + "f" + pf_s + "np" + pf_s : "p" + pf_s;
                    break;
                case DOCA_PCI_FUNC_TYPE_VF:
                    p.d.iface_ = "ens" + slot + "f" + pf_s + "v" + std::to_string(p.d.vf_);
                    break;
                case DOCA_PCI_FUNC_TYPE_SF:
                    p.d.iface_ =
                        s == side::host
                            ? "ens" + slot + "f" + pf_s + "s" + std::to_string(p.d.sf_num_)
                            : "en3f" + pf_s + "pf" + pf_s + "sf" + std::to_string(p.d.sf_num_);
                    break;
                }
            }
            if (!p.vuid_given)
                p.d.vuid_ = board.serial_ + (s == side::host ? "H" : "D") + function_label(p.d);
            if (!p.mac_given)
                p.d.mac_ = {0x02,
                            0x5c,
                            static_cast<uint8_t>(board.index_),
                            static_cast<uint8_t>(s == side::host ? 0 : 1),
                            static_cast<uint8_t>(ordinal >> 8),
                            static_cast<uint8_t>(ordinal)};
            ++ordinal;

            // Machine-wide (host side) or per-BlueField (DPU side: each Arm is its own computer).
            std::string scope = s == side::host ? "host/" : "dpu/" + board.id_ + "/";
            claim(ibdev_used_, scope + p.d.ibdev_, member_path(p.path, "ibdev"),
                  "ibdev name " + p.d.ibdev_);
            claim(iface_used_, scope + p.d.iface_, member_path(p.path, "iface"),
                  "interface name " + p.d.iface_);
            claim(mac_used_, mac_text(p.d.mac_), member_path(p.path, "mac"),
                  "MAC address " + mac_text(p.d.mac_));
            claim(vuid_used_, p.d.vuid_, member_path(p.path, "vuid"), "VUID " + p.d.vuid_);
        }
        return out;
    }

    static std::string function_label(const function_desc &d)
    {
        std::string pf = "pf" + std::to_string(d.pf_);
        switch (d.type_) {
        case DOCA_PCI_FUNC_TYPE_PF:
            return pf;
        case DOCA_PCI_FUNC_TYPE_VF:
            return pf + "vf" + std::to_string(d.vf_);
        case DOCA_PCI_FUNC_TYPE_SF:
            return pf + "sf" + std::to_string(d.sf_num_);
        }
        return pf;
    }

    void build_representors(std::vector<pending_function> &dpu, std::vector<pending_function> &host,
                            const bluefield &board)
    {
        std::map<std::string, std::string> names, represented;
        for (pending_function &mgr : dpu) {
            if (!mgr.reps)
                continue;
            const std::string lpath = member_path(mgr.path, "representors");
            for (size_t i = 0; i < mgr.reps->size(); ++i) {
                const std::string path = index_path(lpath, i);
                const json::value &r = require_object((*mgr.reps)[i], path);
                check_keys(r, path, {"host_function", "sf", "name", "iface"});
                const std::string hpath = member_path(path, "host_function");
                std::string pci = checked_pci(required_member(r, path, "host_function"), hpath);
                std::optional<uint32_t> sf;
                if (const json::value *x = optional_member(r, "sf"))
                    sf = static_cast<uint32_t>(as_uint(*x, member_path(path, "sf"), 0,
                                                       std::numeric_limits<uint32_t>::max()));

                pending_function *target = nullptr;
                for (pending_function &h : host) {
                    bool is_sf = h.d.type_ == DOCA_PCI_FUNC_TYPE_SF;
                    if (h.d.pci_ == pci && is_sf == sf.has_value() && (!sf || h.d.sf_num_ == *sf))
                        target = &h;
                }
                if (!target) {
                    std::string what = sf ? "SF " + std::to_string(*sf) + " at " + pci : pci;
                    std::string elsewhere;
                    for (doca_devinfo *d : topo_->device_view_)
                        if (d->side() == side::host && d->pci_addr() == pci &&
                            d->bluefield_id() != board.id_)
                            elsewhere = d->bluefield_id();
                    if (!elsewhere.empty())
                        fail(hpath, "host function " + what + " belongs to BlueField " + elsewhere +
                                        "; a representor can only stand for a host function of its "
                                        "own BlueField (" +
                                        board.id_ + ")");
                    fail(hpath,
                         "no host function " + what + " in BlueField " + board.id_ +
                             " (a representor must point to a function listed under \"host\")");
                }
                claim(represented,
                      target->d.pci_ + "/" + (sf ? std::to_string(*sf) : std::string("-")), hpath,
                      "representor of host function " + target->d.pci_ +
                          (sf ? " SF " + std::to_string(*sf) : ""));

                representor_desc rd;
                const std::string pf_s = "pf" + std::to_string(target->d.pf_);
                switch (target->d.type_) {
                case DOCA_PCI_FUNC_TYPE_PF:
                    rd.name_ = pf_s + "hpf";
                    break;
                case DOCA_PCI_FUNC_TYPE_VF:
                    rd.name_ = pf_s + "vf" + std::to_string(target->d.vf_);
                    break;
                case DOCA_PCI_FUNC_TYPE_SF:
                    rd.name_ = pf_s + "sf" + std::to_string(target->d.sf_num_);
                    break;
                }
                if (const json::value *x = optional_member(r, "name"))
                    rd.name_ =
                        checked_name(*x, member_path(path, "name"), 15, "_-.", "representor name");
                rd.iface_ = rd.name_;
                if (const json::value *x = optional_member(r, "iface"))
                    rd.iface_ =
                        checked_name(*x, member_path(path, "iface"), 15, "_-.", "interface name");
                claim(names, rd.name_, path, "representor name " + rd.name_);
                claim(iface_used_, "dpu/" + board.id_ + "/" + rd.iface_, path,
                      "interface name " + rd.iface_);

                auto rep = std::make_unique<doca_devinfo_rep>(&board, std::move(rd), mgr.info,
                                                              target->info);
                mgr.info->add_representor(rep.get());
                topo_->rep_view_.push_back(rep.get());
                topo_->reps_.push_back(std::move(rep));
            }
        }
    }

    std::string origin_;
    std::unique_ptr<topology> topo_;
    std::map<std::string, std::string> bf_ids_, pci_used_, ibdev_used_, iface_used_, mac_used_,
        vuid_used_;
    std::map<std::string, std::string> host_sf_indexes_, dpu_sf_indexes_;
    uint32_t host_ibdev_counter_ = 0;
    uint32_t host_sf_index_ = 0;
    uint32_t dpu_sf_index_ = 0;
};

std::unique_ptr<topology> build_topology(const json::value &doc, const std::string &origin)
{
    topology_builder b(origin);
    return b.build(doc);
}

} // namespace softcomch::core
