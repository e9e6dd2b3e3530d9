// SPDX-License-Identifier: Apache-2.0
//
// Version-matrix rows of Comch's predecessors: the context-based "DOCA Comm Channel – New" API
// (doca_cc_*) of DOCA 2.5 and 2.6, and the legacy endpoint API (doca_comm_channel_*).
#include <array>
#include <string_view>

#include "matrix.hpp"

namespace softcomch::tools::version_matrix {

namespace {

// DOCA 2.5 named tasks object_verb_task; 2.6 renamed them object_task_verb.
struct rename_2_5 {
    std::string_view name_2_6;
    std::string_view name_2_5;
    std::string_view evidence; // where the 2.5 name is seen
};

constexpr std::string_view in_guide = "named in the DOCA 2.5 'Comm Channel – New' guide";
constexpr std::string_view in_code = "used by 2.5-era doca_cc code published by NVIDIA/Mellanox";
constexpr std::string_view inferred =
    "not seen itself: inferred from its server twin, which 2.5-era code uses";

constexpr std::array renames_2_5{
    rename_2_5{"doca_cc_server_task_send_set_conf", "doca_cc_server_send_task_set_conf", in_code},
    rename_2_5{"doca_cc_client_task_send_set_conf", "doca_cc_client_send_task_set_conf", inferred},
    rename_2_5{"doca_cc_server_task_send_alloc_init", "doca_cc_server_send_task_alloc_init",
               in_guide},
    rename_2_5{"doca_cc_client_task_send_alloc_init", "doca_cc_client_send_task_alloc_init",
               in_guide},
    rename_2_5{"doca_cc_task_send_as_task", "doca_cc_send_task_as_task", in_code},
    rename_2_5{"doca_cc_producer_task_send_alloc_init", "doca_cc_producer_send_task_alloc_init",
               in_guide},
    rename_2_5{"doca_cc_consumer_task_post_recv_alloc_init",
               "doca_cc_consumer_post_recv_task_alloc_init", in_guide},
    rename_2_5{"doca_cc_consumer_task_post_recv_as_task", "doca_cc_consumer_post_recv_task_as_task",
               in_guide},
    rename_2_5{"doca_cc_consumer_cap_get_max_num_tasks",
               "doca_cc_consumer_cap_get_max_log_num_tasks", in_guide},
    rename_2_5{"doca_cc_consumer_cap_is_supported", "doca_cc_cap_is_consumer_supported", in_guide},
};

// 2.6 calls whose 2.5 name the sources do not record: the other task calls (2.5 named tasks
// differently) and the producer's twins of renamed consumer calls.
bool unknown_in_2_5(const std::string &cc)
{
    return cc.find("task_send") != std::string::npos ||
           cc.find("task_post_recv") != std::string::npos ||
           cc == "doca_cc_producer_cap_is_supported" ||
           cc == "doca_cc_producer_cap_get_max_num_tasks";
}

std::string header_of(const std::string &cc)
{
    if (cc.starts_with("doca_cc_consumer_"))
        return "doca_cc_consumer.h";
    if (cc.starts_with("doca_cc_producer_"))
        return "doca_cc_producer.h";
    return "doca_cc.h";
}

constexpr std::array legacy{
    "doca_comm_channel_get_max_service_name_len",
    "doca_comm_channel_get_max_message_size",
    "doca_comm_channel_get_max_send_queue_size",
    "doca_comm_channel_get_max_recv_queue_size",
    "doca_comm_channel_get_service_max_num_connections",
    "doca_comm_channel_ep_create",
    "doca_comm_channel_ep_get_device",
    "doca_comm_channel_ep_get_device_rep",
    "doca_comm_channel_ep_get_max_msg_size",
    "doca_comm_channel_ep_get_send_queue_size",
    "doca_comm_channel_ep_get_recv_queue_size",
    "doca_comm_channel_ep_set_device",
    "doca_comm_channel_ep_set_device_rep",
    "doca_comm_channel_ep_set_max_msg_size",
    "doca_comm_channel_ep_set_send_queue_size",
    "doca_comm_channel_ep_set_recv_queue_size",
    "doca_comm_channel_ep_get_event_channel",
    "doca_comm_channel_ep_get_service_event_channel",
    "doca_comm_channel_ep_event_handle_arm_send",
    "doca_comm_channel_ep_event_handle_arm_recv",
    "doca_comm_channel_ep_listen",
    "doca_comm_channel_ep_connect",
    "doca_comm_channel_ep_sendto",
    "doca_comm_channel_ep_recvfrom",
    "doca_comm_channel_ep_disconnect",
    "doca_comm_channel_ep_destroy",
    "doca_comm_channel_peer_addr_get_user_data",
    "doca_comm_channel_peer_addr_set_user_data",
    "doca_comm_channel_peer_addr_update_info",
    "doca_comm_channel_peer_addr_get_send_messages",
    "doca_comm_channel_peer_addr_get_send_bytes",
    "doca_comm_channel_peer_addr_get_recv_messages",
    "doca_comm_channel_peer_addr_get_recv_bytes",
    "doca_comm_channel_peer_addr_get_send_in_flight_messages",
    "doca_comm_channel_ep_update_service_state_info",
    "doca_comm_channel_ep_get_peer_addr_list",
    "doca_comm_channel_ep_get_pending_connections",
};

} // namespace

const char *const legacy_end =
    "The DOCA 2.8 guide says the Comm Channel API \"will be deprecated in the next DOCA release "
    "(2.9.0)\"; the 2.8.0081 packages still ship its development files; the 3.0 header set has no "
    "doca_comm_channel.h. 2.8 is the last release the sources show it in (2.9 was not checked).";

std::optional<std::string> name_2_5(const std::string &cc_2_6)
{
    for (const auto &r : renames_2_5)
        if (r.name_2_6 == cc_2_6)
            return std::string(r.name_2_5);
    return std::nullopt;
}

void add_predecessor_rows(std::vector<entry> &rows)
{
    for (const twin &t : twins_2_6()) {
        entry e;
        e.library = "doca";
        e.capability = t.cc;
        e.display_name = t.cc + "() (DOCA Comm Channel – New; now " + t.comch + ")";
        e.max_doca_version = "2.6.0";
        e.source_url = sources::packages_2_6;
        std::string history;
        if (auto older = name_2_5(t.cc)) {
            e.min_doca_version = "2.6.0";
            history = "DOCA 2.5 named it " + *older + "; 2.6 renamed its tasks object_task_verb.";
        } else if (unknown_in_2_5(t.cc)) {
            e.min_doca_version = "2.6.0";
            history = "DOCA 2.5 named its tasks object_verb_task; its name for this call is not "
                      "recorded, so 2.6 is the first release shown.";
        } else {
            e.min_doca_version = "2.5.0";
            history = "DOCA 2.5.0 introduced the doca_cc_ API ('DOCA Comm Channel – New'); no "
                      "rename of this call between 2.5 and 2.6 is recorded (its 2.5 spelling "
                      "itself was not checked).";
        }
        e.source_quote = "Declared (DOCA_EXPERIMENTAL) in " + header_of(t.cc) +
                         " of DOCA 2.6.0058, extracted from the BlueField packages. " + history +
                         " Renamed " + t.comch + " in DOCA 2.7. " + rename_disagreement;
        rows.push_back(std::move(e));
    }
    for (const auto &r : renames_2_5) {
        entry e;
        e.library = "doca";
        e.capability = std::string(r.name_2_5);
        e.display_name =
            std::string(r.name_2_5) + "() (DOCA 2.5; 2.6: " + std::string(r.name_2_6) + ")";
        e.min_doca_version = "2.5.0";
        e.max_doca_version = "2.5.0";
        e.source_url = sources::guide_2_5;
        e.source_quote = "DOCA 2.5 name, " + std::string(r.evidence) +
                         " (tasks named object_verb_task); the 2.6.0058 headers call it " +
                         std::string(r.name_2_6) + ".";
        rows.push_back(std::move(e));
    }
    for (const char *name : legacy) {
        entry e;
        e.library = "doca-comm-channel";
        e.capability = name;
        e.display_name = std::string(name) + "() (legacy DOCA Comm Channel endpoint API)";
        e.min_doca_version = "1.5.0";
        e.max_doca_version = "2.8.0";
        e.source_url = sources::packages_2_6;
        e.source_quote = std::string("Declared (DOCA_EXPERIMENTAL) in doca_comm_channel.h of DOCA "
                                     "2.6.0058. The endpoint API is documented from the DOCA 1.5 "
                                     "Comm Channel guide on (the first release of this particular "
                                     "call was not checked). ") +
                         legacy_end;
        rows.push_back(std::move(e));
    }
}

} // namespace softcomch::tools::version_matrix
