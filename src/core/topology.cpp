// SPDX-License-Identifier: Apache-2.0
#include "core/topology.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>

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

// Capability fields, in the order of struct comch_caps (and of the file format).
struct cap_field {
    const char *name;
    uint32_t comch_caps::*member;
};
constexpr cap_field cap_fields[] = {
    {"max_msg_size", &comch_caps::max_msg_size},
    {"max_name_len", &comch_caps::max_name_len},
    {"max_recv_queue_size", &comch_caps::max_recv_queue_size},
    {"default_recv_queue_size", &comch_caps::default_recv_queue_size},
    {"max_clients", &comch_caps::max_clients},
    {"max_send_tasks", &comch_caps::max_send_tasks},
    {"consumer_max_num_tasks", &comch_caps::consumer_max_num_tasks},
    {"consumer_max_buf_size", &comch_caps::consumer_max_buf_size},
    {"consumer_max_buf_list_len", &comch_caps::consumer_max_buf_list_len},
    {"max_consumers", &comch_caps::max_consumers},
    {"max_imm_data_len", &comch_caps::max_imm_data_len},
    {"producer_max_num_tasks", &comch_caps::producer_max_num_tasks},
    {"producer_max_buf_size", &comch_caps::producer_max_buf_size},
    {"producer_max_buf_list_len", &comch_caps::producer_max_buf_list_len},
    {"max_producers", &comch_caps::max_producers},
};

struct schema_error {
    std::string path;
    std::string what;
};

[[noreturn]] void fail(const std::string &path, std::string what)
{
    throw schema_error{path, std::move(what)};
}

std::string member_path(const std::string &base, std::string_view key)
{
    return base + "." + std::string(key);
}

std::string index_path(const std::string &base, size_t i)
{
    return base + "[" + std::to_string(i) + "]";
}

// Refuses members other than `allowed` (a typo must not be silently ignored).
void check_keys(const json::value &obj, const std::string &path,
                std::initializer_list<std::string_view> allowed)
{
    for (const auto &[key, v] : obj.items()) {
        (void)v;
        bool ok = false;
        for (std::string_view a : allowed)
            ok = ok || key == a;
        if (!ok) {
            std::string list;
            for (std::string_view a : allowed)
                list += (list.empty() ? "" : ", ") + std::string(a);
            fail(member_path(path, key),
                 "unknown member \"" + key + "\" (allowed here: " + list + ")");
        }
    }
}

const json::value &require_object(const json::value &v, const std::string &path)
{
    if (!v.is_object())
        fail(path, std::string("expected an object, found ") + v.type_name());
    return v;
}

const json::value *optional_member(const json::value &obj, std::string_view key)
{
    return obj.find(key);
}

const json::value &required_member(const json::value &obj, const std::string &path,
                                   std::string_view key)
{
    const json::value *v = obj.find(key);
    if (!v)
        fail(path, "missing required member \"" + std::string(key) + "\"");
    return *v;
}

const std::string &as_string(const json::value &v, const std::string &path)
{
    if (!v.is_string())
        fail(path, std::string("expected a string, found ") + v.type_name());
    return v.as_string();
}

uint64_t as_uint(const json::value &v, const std::string &path, uint64_t min, uint64_t max)
{
    if (!v.is_int())
        fail(path, std::string("expected an integer, found ") + v.type_name());
    int64_t i = v.as_int();
    if (i < 0 || static_cast<uint64_t>(i) < min || static_cast<uint64_t>(i) > max)
        fail(path, "value " + std::to_string(i) + " out of range [" + std::to_string(min) + ", " +
                       std::to_string(max) + "]");
    return static_cast<uint64_t>(i);
}

const json::value &as_array(const json::value &v, const std::string &path, size_t min_size,
                            size_t max_size)
{
    if (!v.is_array())
        fail(path, std::string("expected an array, found ") + v.type_name());
    if (v.size() < min_size)
        fail(path, "expected at least " + std::to_string(min_size) + " element(s)");
    if (v.size() > max_size)
        fail(path, "more than " + std::to_string(max_size) + " elements");
    return v;
}

bool is_name_char(char c, std::string_view extra)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra.find(c) != std::string_view::npos;
}

// A name made of [A-Za-z0-9] and the characters of `extra`, 1..max_len long.
std::string checked_name(const json::value &v, const std::string &path, size_t max_len,
                         std::string_view extra, const char *what)
{
    const std::string &s = as_string(v, path);
    if (s.empty() || s.size() > max_len)
        fail(path,
             std::string(what) + " must be 1 to " + std::to_string(max_len) + " characters long");
    for (char c : s)
        if (!is_name_char(c, extra))
            fail(path,
                 std::string(what) + " \"" + s +
                     "\" contains an invalid character (allowed: letters, digits" +
                     (extra.empty() ? std::string() : std::string(" and ") + std::string(extra)) +
                     ")");
    return s;
}

std::string checked_pci(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::string canon;
    if (s.find('\0') != std::string::npos || !canonical_pci_addr(s.c_str(), canon))
        fail(path, "malformed PCI address \"" + s +
                       "\" (expected \"BB:DD.F\" or \"DDDD:BB:DD.F\", hexadecimal)");
    return canon;
}

int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

std::array<uint8_t, 6> checked_mac(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::array<uint8_t, 6> mac{};
    bool ok = s.size() == 17;
    for (size_t i = 0; ok && i < 6; ++i) {
        int hi = hexval(s[i * 3]), lo = hexval(s[i * 3 + 1]);
        ok = hi >= 0 && lo >= 0 && (i == 5 || s[i * 3 + 2] == ':');
        if (ok)
            mac[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    if (!ok)
        fail(path, "malformed MAC address \"" + s + "\" (expected \"xx:xx:xx:xx:xx:xx\")");
    if (mac[0] & 1)
        fail(path, "MAC address \"" + s + "\" is a multicast address");
    return mac;
}

std::array<uint8_t, 4> checked_ipv4(const json::value &v, const std::string &path)
{
    const std::string &s = as_string(v, path);
    std::array<uint8_t, 4> ip{};
    size_t pos = 0;
    for (size_t part = 0; part < 4; ++part) {
        size_t start = pos;
        unsigned val = 0;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 3)
            val = val * 10 + static_cast<unsigned>(s[pos++] - '0');
        bool leading_zero = pos - start > 1 && s[start] == '0';
        if (pos == start || val > 255 || leading_zero ||
            (part < 3 && (pos >= s.size() || s[pos] != '.')))
            fail(path, "malformed IPv4 address \"" + s +
                           "\" (expected dotted decimal such as \"192.168.100.2\")");
        ip[part] = static_cast<uint8_t>(val);
        if (part < 3)
            ++pos;
    }
    if (pos != s.size())
        fail(path, "malformed IPv4 address \"" + s +
                       "\" (expected dotted decimal such as \"192.168.100.2\")");
    return ip;
}

std::string mac_text(const std::array<uint8_t, 6> &m)
{
    char buf[18];
    std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
                  m[5]);
    return buf;
}

std::string ipv4_text(const std::array<uint8_t, 4> &a)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
    return buf;
}

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
                   {"id", "model", "mode", "serial", "comch_caps", "privilege", "host", "dpu"});
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
            const cap_field *field = nullptr;
            for (const cap_field &f : cap_fields)
                if (key == f.name)
                    field = &f;
            if (!field) {
                std::string list;
                for (const cap_field &f : cap_fields)
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

            const json::value *vf = optional_member(f, "vf");
            if (is_vf && !vf)
                fail(path, "a vf needs a \"vf\" member (its VF number)");
            if (!is_vf && vf)
                fail(member_path(path, "vf"), "\"vf\" is only meaningful for type \"vf\"");
            if (vf)
                p.d.vf_ = static_cast<uint32_t>(as_uint(*vf, member_path(path, "vf"), 0, 65535));

            const json::value *sf = optional_member(f, "sf");
            if (is_sf && !sf)
                fail(path, "an sf needs an \"sf\" member (its SF number)");
            if (!is_sf && sf)
                fail(member_path(path, "sf"), "\"sf\" is only meaningful for type \"sf\"");
            if (sf)
                p.d.sf_num_ = static_cast<uint32_t>(
                    as_uint(*sf, member_path(path, "sf"), 0, std::numeric_limits<uint32_t>::max()));
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
        topology_builder b(origin);
        std::unique_ptr<topology> t = b.build(doc);
        if (error)
            error->clear();
        return t;
    } catch (const schema_error &e) {
        if (error)
            *error = origin + ": " + e.path + ": " + e.what;
        return nullptr;
    }
}

std::unique_ptr<topology> topology::from_file(const std::string &path, std::string *error)
{
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
        for (const cap_field &f : cap_fields)
            caps.set(f.name, bf->caps_.*(f.member));
        b.set("comch_caps", std::move(caps));
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
            f.set("mac", mac_text(fd.mac_)).set("ipv4", ipv4_text(fd.ipv4_));
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

// ------------------------------------------------------------------------------------------------
// machine(): the process-wide view
// ------------------------------------------------------------------------------------------------

std::vector<doca_devinfo *> machine_view::visible_devices() const
{
    std::vector<doca_devinfo *> out;
    if (!topo)
        return out;
    for (doca_devinfo *d : topo->devices())
        if (visible(d->side()))
            out.push_back(d);
    return out;
}

namespace {

std::mutex g_machine_mu;
std::unique_ptr<topology> g_topology;
std::unique_ptr<machine_view> g_machine;

std::unique_ptr<machine_view> load_machine()
{
    auto view = std::make_unique<machine_view>();
    const char *side_env = std::getenv("SOFTCOMCH_SIDE");
    if (side_env && *side_env) {
        if (std::strcmp(side_env, "host") == 0) {
            view->side_filter = side::host;
        } else if (std::strcmp(side_env, "dpu") == 0) {
            view->side_filter = side::dpu;
        } else {
            view->status = DOCA_ERROR_INITIALIZATION;
            view->error =
                std::string("SOFTCOMCH_SIDE=\"") + side_env +
                "\" is invalid: use \"host\" or \"dpu\", or leave it unset to see both sides";
            return view;
        }
    }
    const char *file = std::getenv("SOFTCOMCH_TOPOLOGY");
    std::string error;
    if (file && *file)
        g_topology = topology::from_file(file, &error);
    else
        g_topology = topology::builtin();
    if (!g_topology) {
        view->status = DOCA_ERROR_INITIALIZATION;
        view->error = "invalid topology (SOFTCOMCH_TOPOLOGY): " + error;
        return view;
    }
    view->topo = g_topology.get();
    return view;
}

} // namespace

const machine_view &machine()
{
    std::lock_guard<std::mutex> lock(g_machine_mu);
    if (!g_machine)
        g_machine = load_machine();
    return *g_machine;
}

void reset_machine_for_testing()
{
    std::lock_guard<std::mutex> lock(g_machine_mu);
    g_machine.reset();
    g_topology.reset();
}

} // namespace softcomch::core
