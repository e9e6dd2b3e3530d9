// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: topology documents (src/core/topology.hpp, topology_builder.cpp,
// topology_schema.cpp), the file SOFTCOMCH_TOPOLOGY names (docs/topology.md). For any text:
//   - from_json_text() returns, never crashes, and throws nothing (a schema problem is a
//     refusal, never an exception that would leave doca_devinfo_create_list);
//   - a refusal is a topology-less result with a message "<origin>:..." that says something;
//   - an accepted machine has at least one device, every device is found again by its function
//     id, and its effective document (to_json(), every default filled in) is a fixed point:
//     parsing the dump of it again gives a machine with the same document.
#include "fuzz_target.hpp"

#include "core/topology.hpp"

#include <string>

using softcomch::core::topology;
using softcomch::fuzz::invariant_failed;
namespace json = softcomch::json;

namespace {

const std::string k_origin = "fuzz.json";

bool refusal_ok(const std::unique_ptr<topology> &t, const std::string &err)
{
    return t == nullptr && err.size() > k_origin.size() + 2 &&
           err.compare(0, k_origin.size() + 1, k_origin + ":") == 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (size_t(1) << 20))
        return 0; // the loader refuses files above 1 MiB before parsing
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    std::string err = "unset";
    const std::unique_ptr<topology> t = topology::from_json_text(text, k_origin, &err);
    if (t == nullptr) {
        if (!refusal_ok(t, err))
            invariant_failed();
        return 0;
    }
    if (!err.empty() || t->origin() != k_origin || t->devices().empty())
        invariant_failed();
    for (const doca_devinfo *d : t->devices()) {
        if (t->find_function(d->function_id()) == nullptr)
            invariant_failed();
    }
    const json::value doc = t->to_json();
    std::string err2 = "unset";
    const std::unique_ptr<topology> again =
        topology::from_json_text(json::dump(doc, 2), k_origin, &err2);
    if (again == nullptr || !err2.empty() || !(again->to_json() == doc) ||
        again->devices().size() != t->devices().size() ||
        again->representors().size() != t->representors().size())
        invariant_failed();
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const std::string &name, const std::string &text) {
        out.emplace_back(name, std::vector<uint8_t>(text.begin(), text.end()));
    };
    // The built-in machine (topology.cpp writes it in the file format).
    add("builtin.json", R"({"version": 1, "bluefields": [{"id": "bf0", "model": "BlueField-3",
  "mode": "dpu", "host": [{"pci": "0000:b1:00.0", "type": "pf", "pf": 0},
  {"pci": "0000:b1:00.1", "type": "pf", "pf": 1}, {"pci": "0000:b1:00.2", "type": "vf", "pf": 0, "vf": 0}],
  "dpu": [{"pci": "0000:03:00.0", "type": "pf", "pf": 0, "representors": [{"host_function": "0000:b1:00.0"},
  {"host_function": "0000:b1:00.2"}]}, {"pci": "0000:03:00.1", "type": "pf", "pf": 1,
  "representors": [{"host_function": "0000:b1:00.1"}]}]}]})");
    add("minimal.json", R"({"bluefields": [{"id": "a", "host": [{"pci": "01:00.0"}],
  "dpu": [{"pci": "02:00.0"}]}]})");
    add("sf_caps_privilege.json", R"({"privilege": {"representors": "group", "group": "doca"},
  "bluefields": [{"id": "bf0", "serial": "MT2334XZ0K5D",
  "comch_caps": {"max_msg_size": 4080, "max_clients": 64, "default_recv_queue_size": 32,
  "max_name_len": 2, "max_imm_data_len": 32},
  "host": [{"pci": "0000:b1:00.0", "ibdev": "mlx5_0", "iface": "ens1f0np0",
  "mac": "02:00:00:10:00:01", "ipv4": "192.168.100.1", "vuid": "v:1"},
  {"type": "sf", "pf": 0, "sf": 88, "sf_index": 2}],
  "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0", "name": "r0", "iface": "r0"},
  {"host_function": "b1:00.0", "sf": 88}]}, {"type": "sf", "pf": 0, "sf": 0}]}]})");
    add("two_boards_nic.json", R"({"bluefields": [{"id": "bf0", "host": [{"pci": "b1:00.0"}],
  "dpu": [{"pci": "03:00.0"}]}, {"id": "bf1", "model": "BlueField-2", "mode": "nic",
  "privilege": {"representors": "root"}, "host": [{"pci": "ca:00.0"}],
  "dpu": [{"pci": "04:00.0", "representors": [{"host_function": "ca:00.0"}]}]}]})");
    // Broken ones: each breaks one rule of docs/topology.md section 3.2.
    add("duplicate_pci.json", R"({"bluefields": [{"id": "a", "host": [{"pci": "01:00.0"}],
  "dpu": [{"pci": "01:00.0"}]}]})");
    add("unknown_member.json", R"({"bluefields": [{"id": "a", "hots": []}]})");
    add("foreign_representor.json", R"({"bluefields": [{"id": "a", "host": [{"pci": "01:00.0"}],
  "dpu": [{"pci": "02:00.0", "representors": [{"host_function": "01:00.7"}]}]}]})");
    add("vf_without_pf.json", R"({"bluefields": [{"id": "a", "host": [{"pci": "01:00.0"},
  {"pci": "01:00.1", "type": "vf", "pf": 3, "vf": 0}], "dpu": [{"pci": "02:00.0"}]}]})");
    add("queue_caps.json",
        R"({"bluefields": [{"id": "a", "comch_caps": {"default_recv_queue_size": 9,
  "max_recv_queue_size": 8}, "host": [{"pci": "01:00.0"}], "dpu": [{"pci": "02:00.0"}]}]})");
    add("syntax.json", R"({"bluefields": [{"id": "a",}]})");
    return out;
}

} // namespace softcomch::fuzz
