// SPDX-License-Identifier: Apache-2.0
//
// Pieces the structured-tools schemas share (docs/cli.md, "The DOCA structured-tools contract"):
// the per-PCIe-function device records of doca-env and collect-host-state / collect-dpu-state,
// bf_mode, and the version comparison behind doca-env's `consistent`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "devices.hpp"

namespace softcomch::tools::inventory {

// The MTU the records report: the emulated functions have no link layer; 1500 is what an
// Ethernet function has by default.
inline constexpr int emulated_mtu = 1500;

// One record per visible PCIe function, then one per representor (on the DPU side): pcie_address
// (a representor's is the DPU device it lives on), kind, name (doca-env only: the interface or
// representor name), representor_of (the host function a representor stands for; null
// otherwise), state ("active": every emulated function is usable), mtu.
softcomch::json::value contract_devices(const device_inventory &inv, bool with_name);

// The contract's bf_mode of the BlueField the visible devices belong to ("dpu", "smartnic"), or
// nullopt when there is none.
std::optional<std::string> machine_bf_mode(const device_inventory &inv);

// Whether DOCA version strings name the same release: major and minor equal, and the build
// number too when both strings carry one ("3.0.0058" matches "3.0.0", not "3.0.0059" nor "2.9.0").
bool same_release(const std::string &a, const std::string &b);
// All of `versions` agree pairwise (true for fewer than two).
bool all_same_release(const std::vector<std::string> &versions);

} // namespace softcomch::tools::inventory
