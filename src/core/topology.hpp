// SPDX-License-Identifier: Apache-2.0
//
// The emulated machine: which BlueFields exist, their host-side and DPU-side PCI functions, their
// representors, capability values and privilege policy (docs/topology.md section 1,
// docs/topology.md for the file format).
//
// Files: topology.cpp (the model), topology_builder.cpp (a document -> a topology, with the schema
// checks of topology_schema.cpp), topology_machine.cpp (the process-wide view).
//
// A `topology` is immutable once built. The process-wide one, machine(), is built on first use
// from SOFTCOMCH_TOPOLOGY (a JSON file; unset or empty: the built-in default) and SOFTCOMCH_SIDE
// (host | dpu; unset or empty: both sides visible). It lives until the process exits, so the
// devinfo pointers handed out by doca_devinfo_create_list() never dangle.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "common/visibility.hpp"
#include "core/device.hpp"

namespace softcomch::core {

// The Comch capability values by name, in the order of struct comch_caps and of the topology
// file's "comch_caps" member (docs/topology.md).
struct comch_cap_field {
    const char *name;
    uint32_t comch_caps::*member;
};
inline constexpr comch_cap_field comch_cap_fields[] = {
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

// The DMA capability values by name, with the largest value a topology file may set, in the
// order of struct dma_caps and of the topology file's "dma_caps" member (docs/topology.md).
struct dma_cap_field {
    const char *name;
    uint64_t dma_caps::*member;
    uint64_t max;
};
inline constexpr dma_cap_field dma_cap_fields[] = {
    {"max_buf_size", &dma_caps::max_buf_size, uint64_t(1) << 40},
    {"max_buf_list_len", &dma_caps::max_buf_list_len, 4096},
    {"max_num_tasks", &dma_caps::max_num_tasks, 65536},
};

class topology {
public:
    // The built-in machine: one BlueField-3 "bf0" (docs/topology.md section 1).
    static std::unique_ptr<topology> builtin();
    // Parses and validates a topology document. `origin` names it in messages (a file path).
    // On failure returns nullptr and sets *error to "<origin>: <where>: <problem>", where
    // <where> is "line:column" for syntax errors and a JSON path such as
    // "$.bluefields[0].host[2].pci" for schema errors.
    static std::unique_ptr<topology> from_json_text(std::string_view text,
                                                    const std::string &origin, std::string *error);
    // Reads `path` (at most 1 MiB) and parses it as above. The names "bluefield-2" and
    // "bluefield-3" (no file of that name is read) give the built-in machine as that model.
    SOFTCOMCH_API static std::unique_ptr<topology> from_file(const std::string &path,
                                                             std::string *error);

    SOFTCOMCH_API ~topology();
    topology(const topology &) = delete;
    topology &operator=(const topology &) = delete;

    // "built-in default" or the file path.
    const std::string &origin() const noexcept { return origin_; }
    const std::vector<std::unique_ptr<bluefield>> &bluefields() const noexcept { return boards_; }
    // Every device, per BlueField in file order: its host functions, then its DPU-side devices.
    const std::vector<doca_devinfo *> &devices() const noexcept { return device_view_; }
    // Every representor, in file order.
    const std::vector<doca_devinfo_rep *> &representors() const noexcept { return rep_view_; }
    // The device with this function_id(), or nullptr.
    doca_devinfo *find_function(std::string_view function_id) const noexcept;
    // The first device of side `s` whose PCI address equals the canonical `pci`, or nullptr.
    doca_devinfo *find_device(side s, std::string_view pci) const noexcept;

    // The effective topology as a document of the file format, every default filled in
    // (from_json_text(dump(to_json())) rebuilds an identical machine).
    json::value to_json() const;

private:
    topology() = default;
    friend class topology_builder;

    std::string origin_;
    std::vector<std::unique_ptr<bluefield>> boards_;
    std::vector<std::unique_ptr<doca_devinfo>> devices_;
    std::vector<std::unique_ptr<doca_devinfo_rep>> reps_;
    std::vector<doca_devinfo *> device_view_;
    std::vector<doca_devinfo_rep *> rep_view_;
};

// What this process sees: the topology plus the SOFTCOMCH_SIDE filter.
struct machine_view {
    // nullptr when the topology could not be loaded (then status/error say why).
    const topology *topo = nullptr;
    // DOCA_SUCCESS, or DOCA_ERROR_INITIALIZATION for an invalid SOFTCOMCH_TOPOLOGY file or
    // SOFTCOMCH_SIDE value.
    doca_error_t status = DOCA_SUCCESS;
    std::string error;
    // SOFTCOMCH_SIDE; empty: both sides are visible.
    std::optional<side> side_filter;

    bool visible(side s) const noexcept { return !side_filter || *side_filter == s; }
    // The devices of the visible sides, in topology order (empty if loading failed).
    SOFTCOMCH_API std::vector<doca_devinfo *> visible_devices() const;
};

// The process-wide view, built on first call (thread-safe). It does not log: callers that fail
// because of a loading error (doca_devinfo_create_list) log `error` themselves.
SOFTCOMCH_API const machine_view &machine();

// Tests only: forget the process-wide view so the next machine() call reads the environment
// again. Every device and representor must be closed, and no devinfo pointer may be used
// afterwards.
void reset_machine_for_testing();

} // namespace softcomch::core
