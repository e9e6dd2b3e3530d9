// SPDX-License-Identifier: Apache-2.0
//
// The introspection API (fabric.hpp says what it is): the emulated machine as a program started
// here would see it (core/topology.hpp: SOFTCOMCH_TOPOLOGY and SOFTCOMCH_SIDE), and topology
// files checked as the loader checks them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace softcomch::introspect {

// Comch capability values by name, in the order of the topology file's "comch_caps"
// (docs/topology.md).
struct capability {
    std::string name; // "max_msg_size", "max_clients", ...
    uint32_t value = 0;
};
struct capability_set {
    std::vector<capability> values;
    // The value of `name`; 0 when there is no such capability.
    uint32_t get(std::string_view name) const noexcept;
};
// A BlueField's values when its topology sets none.
capability_set default_capabilities();

struct representor_info {
    std::string name; // "pf0hpf"
    std::string pci;  // the host function it stands for
};

struct device_info {
    std::string bluefield; // id
    std::string side;      // "host" or "dpu"
    std::string pci;       // canonical PCI address
    std::string ibdev;
    std::string iface;    // network interface name
    std::string kind;     // "PF", "VF" or "SF"
    std::string function; // "PF0", "VF0 of PF0", "SF3 of PF0"
    bool server_capable = false;
    bool client_capable = false;
    std::vector<representor_info> representors; // those this device manages
};

struct bluefield_info {
    std::string id;    // "bf0"
    std::string model; // "BlueField-3"
    std::string mode;  // "dpu" or "nic"
    capability_set caps;
    // Whether this process's user may open its representors (the topology's privilege policy);
    // if not, why.
    bool representors_allowed = true;
    std::string representors_refusal;
};

// What a program started here would see.
struct machine_info {
    bool loaded = false;     // false: `error` says why (bad SOFTCOMCH_TOPOLOGY or SOFTCOMCH_SIDE)
    std::string error;       // the loader's message
    std::string origin;      // "built-in default" or the topology file's path
    std::string side_filter; // SOFTCOMCH_SIDE: "host", "dpu", or empty for both sides
    bool host_visible = false;
    bool dpu_visible = false;
    std::vector<bluefield_info> bluefields;
    std::vector<device_info> devices; // of the visible sides, in topology order
};
// The process-wide view the library builds once (the environment at its first use).
machine_info machine();

// A PCI address as the library reads it ("b1:00.0", "0000:B1:00.0") in its canonical form
// ("0000:b1:00.0"); nullopt when it is not one.
std::optional<std::string> canonical_pci(const std::string &text);

// A topology file loaded and validated as programs load it.
struct topology_file_check {
    bool valid = false;
    std::string error; // !valid: "<file>: <line:column or JSON path>: <problem>"
    size_t bluefields = 0;
    size_t devices = 0;
    size_t representors = 0;
};
topology_file_check check_topology_file(const std::string &path);

} // namespace softcomch::introspect
