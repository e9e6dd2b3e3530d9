// SPDX-License-Identifier: Apache-2.0
//
// The emulated devices as a DOCA program sees them, for `caps`, `env` and `collect-state`. Every
// attribute and capability value comes from the public DOCA API (doca_devinfo_create_list, the
// doca_devinfo_* getters, doca_devinfo_rep_create_list and the doca_comch_cap_*,
// doca_comch_consumer_cap_* and doca_comch_producer_cap_* queries), so what the tools print is
// what a program started in the same environment reads. What the API does not say (the side of a
// device, its BlueField, that BlueField's mode) is joined in from the introspection API
// (src/introspect/topology.hpp).
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "introspect/topology.hpp"

namespace softcomch::tools::inventory {

// One capability query and its answer.
struct cap_value {
    std::string name;        // row name within its block: "max_msg_size", "is_supported"
    bool is_boolean = false; // an *_is_supported query (answered by its status)
    doca_error_t status = DOCA_SUCCESS;
    uint64_t value = 0; // numeric queries answered with DOCA_SUCCESS
    std::string query;  // the public function asked: "doca_comch_cap_get_max_msg_size"

    // "supported" / "unsupported" for booleans; the decimal value, "unsupported" (NOT_SUPPORTED)
    // or the error's name for numeric queries.
    std::string text() const;
};

// The values of one library as doca_caps groups them: "common", "comch", "comch_consumer",
// "comch_producer".
struct cap_block {
    std::string library;    // the block name
    std::string pkg_config; // the pkg-config module whose header declares the queries
    std::vector<cap_value> values;
};

// One attribute of --list-devs / --list-rep-devs: name and printed value.
struct attribute {
    std::string name;
    std::string value;
};

struct representor_record {
    std::string pci;  // the host function it stands for (doca_devinfo_rep_get_pci_addr_str)
    std::string name; // its interface name ("pf0hpf")
    std::string kind; // "PF", "VF" or "SF"
    std::vector<attribute> attributes;
};

struct device_record {
    std::string pci;                   // doca_devinfo_get_pci_addr_str
    std::string ibdev;                 // doca_devinfo_get_ibdev_name
    std::string iface;                 // doca_devinfo_get_iface_name
    std::string kind;                  // "PF", "VF" or "SF" (doca_devinfo_get_pci_func_type)
    std::vector<attribute> attributes; // --list-devs, in doca_caps' order
    std::vector<cap_block> caps;
    // Representors (DPU-side devices that manage some): the answer of doca_devinfo_rep_create_list
    // on the opened device; not asked (nullopt) for devices that have none.
    std::optional<doca_error_t> rep_status;
    std::vector<representor_record> representors;
    // From the introspection API (empty when the device could not be matched).
    std::string side;                 // "host" or "dpu"
    std::string bluefield;            // "bf0"
    std::string function;             // "VF0 of PF0"
    std::string bf_mode;              // "dpu" or "nic"
    bool representors_allowed = true; // the topology's privilege policy, for this user
    std::string representors_refusal;
};

struct device_inventory {
    doca_error_t status = DOCA_SUCCESS; // of doca_devinfo_create_list
    introspect::machine_info machine;
    std::vector<device_record> devices; // in doca_devinfo_create_list's order
};

// Enumerates every visible device with its attributes and capabilities, and the representors of
// those that manage some.
device_inventory take_inventory();

// The contract's host_kind: "bluefield" for a process that sees the DPU side only
// (SOFTCOMCH_SIDE=dpu), "host" otherwise (the host side, or both sides of the emulated machine).
std::string host_kind(const introspect::machine_info &m);
// The contract's bf_mode for a BlueField mode of the topology: "dpu", or "smartnic" for NIC mode.
std::string contract_bf_mode(const std::string &mode);

// "0000:03:00.0" for "03:00.0" or "0000:03:00.0" (any case); nullopt for anything else.
std::optional<std::string> canonical_pci(const std::string &text);

// "PF", "VF", "SF" of a doca_pci_func_type value.
const char *kind_name(int func_type) noexcept;

} // namespace softcomch::tools::inventory
