// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the calls of older API generations (docs/generations.md). Each is its
// current twin under another name, with the twin's rows: DOCA 2.6's doca_cc_* (libdoca_cc) and
// the two DOCA 2.7 names of libdoca_comch.
#include <array>
#include <string_view>
#include <utility>

#include "explain.hpp"

namespace softcomch::tools::explain {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 70> k_cc_2_6{{
    {"doca_cc_connection_set_user_data", "doca_comch_connection_set_user_data"},
    {"doca_cc_connection_get_user_data", "doca_comch_connection_get_user_data"},
    {"doca_cc_server_get_server_ctx", "doca_comch_server_get_server_ctx"},
    {"doca_cc_client_get_client_ctx", "doca_comch_client_get_client_ctx"},
    {"doca_cc_cap_get_max_name_len", "doca_comch_cap_get_max_name_len"},
    {"doca_cc_cap_get_max_msg_size", "doca_comch_cap_get_max_msg_size"},
    {"doca_cc_cap_get_max_recv_queue_size", "doca_comch_cap_get_max_recv_queue_size"},
    {"doca_cc_cap_get_max_clients", "doca_comch_cap_get_max_clients"},
    {"doca_cc_server_create", "doca_comch_server_create"},
    {"doca_cc_server_destroy", "doca_comch_server_destroy"},
    {"doca_cc_cap_server_is_supported", "doca_comch_cap_server_is_supported"},
    {"doca_cc_server_set_max_msg_size", "doca_comch_server_set_max_msg_size"},
    {"doca_cc_server_get_max_msg_size", "doca_comch_server_get_max_msg_size"},
    {"doca_cc_server_set_recv_queue_size", "doca_comch_server_set_recv_queue_size"},
    {"doca_cc_server_get_recv_queue_size", "doca_comch_server_get_recv_queue_size"},
    {"doca_cc_server_get_device", "doca_comch_server_get_device"},
    {"doca_cc_server_get_device_repr", "doca_comch_server_get_device_rep"},
    {"doca_cc_server_as_ctx", "doca_comch_server_as_ctx"},
    {"doca_cc_client_create", "doca_comch_client_create"},
    {"doca_cc_client_destroy", "doca_comch_client_destroy"},
    {"doca_cc_cap_client_is_supported", "doca_comch_cap_client_is_supported"},
    {"doca_cc_client_set_max_msg_size", "doca_comch_client_set_max_msg_size"},
    {"doca_cc_client_get_max_msg_size", "doca_comch_client_get_max_msg_size"},
    {"doca_cc_client_set_recv_queue_size", "doca_comch_client_set_recv_queue_size"},
    {"doca_cc_client_get_recv_queue_size", "doca_comch_client_get_recv_queue_size"},
    {"doca_cc_client_get_device", "doca_comch_client_get_device"},
    {"doca_cc_client_as_ctx", "doca_comch_client_as_ctx"},
    {"doca_cc_client_get_connection", "doca_comch_client_get_connection"},
    {"doca_cc_cap_get_max_send_tasks", "doca_comch_cap_get_max_send_tasks"},
    {"doca_cc_server_task_send_set_conf", "doca_comch_server_task_send_set_conf"},
    {"doca_cc_client_task_send_set_conf", "doca_comch_client_task_send_set_conf"},
    {"doca_cc_server_task_send_alloc_init", "doca_comch_server_task_send_alloc_init"},
    {"doca_cc_client_task_send_alloc_init", "doca_comch_client_task_send_alloc_init"},
    {"doca_cc_task_send_as_task", "doca_comch_task_send_as_task"},
    {"doca_cc_server_event_msg_recv_register", "doca_comch_server_event_msg_recv_register"},
    {"doca_cc_client_event_msg_recv_register", "doca_comch_client_event_msg_recv_register"},
    {"doca_cc_server_event_connection_register",
     "doca_comch_server_event_connection_status_changed_register"},
    {"doca_cc_connection_update_info", "doca_comch_connection_update_info"},
    {"doca_cc_connection_get_counter", "doca_comch_connection_get_counter"},
    {"doca_cc_server_event_consumer_register", "doca_comch_server_event_consumer_register"},
    {"doca_cc_client_event_consumer_register", "doca_comch_client_event_consumer_register"},
    {"doca_cc_consumer_create", "doca_comch_consumer_create"},
    {"doca_cc_consumer_destroy", "doca_comch_consumer_destroy"},
    {"doca_cc_consumer_cap_is_supported", "doca_comch_consumer_cap_is_supported"},
    {"doca_cc_consumer_get_id", "doca_comch_consumer_get_id"},
    {"doca_cc_consumer_cap_get_max_num_tasks", "doca_comch_consumer_cap_get_max_num_tasks"},
    {"doca_cc_consumer_cap_get_max_buf_size", "doca_comch_consumer_cap_get_max_buf_size"},
    {"doca_cc_consumer_cap_get_max_consumers", "doca_comch_consumer_cap_get_max_consumers"},
    {"doca_cc_consumer_as_ctx", "doca_comch_consumer_as_ctx"},
    {"doca_cc_consumer_task_post_recv_set_conf", "doca_comch_consumer_task_post_recv_set_conf"},
    {"doca_cc_consumer_task_post_recv_alloc_init", "doca_comch_consumer_task_post_recv_alloc_init"},
    {"doca_cc_consumer_task_post_recv_get_buf", "doca_comch_consumer_task_post_recv_get_buf"},
    {"doca_cc_consumer_task_post_recv_set_buf", "doca_comch_consumer_task_post_recv_set_buf"},
    {"doca_cc_consumer_task_post_recv_get_producer_id",
     "doca_comch_consumer_task_post_recv_get_producer_id"},
    {"doca_cc_consumer_task_post_recv_as_task", "doca_comch_consumer_task_post_recv_as_task"},
    {"doca_cc_producer_create", "doca_comch_producer_create"},
    {"doca_cc_producer_destroy", "doca_comch_producer_destroy"},
    {"doca_cc_producer_cap_is_supported", "doca_comch_producer_cap_is_supported"},
    {"doca_cc_producer_get_id", "doca_comch_producer_get_id"},
    {"doca_cc_producer_cap_get_max_num_tasks", "doca_comch_producer_cap_get_max_num_tasks"},
    {"doca_cc_producer_cap_get_max_buf_size", "doca_comch_producer_cap_get_max_buf_size"},
    {"doca_cc_producer_cap_get_max_producers", "doca_comch_producer_cap_get_max_producers"},
    {"doca_cc_producer_as_ctx", "doca_comch_producer_as_ctx"},
    {"doca_cc_producer_task_send_set_conf", "doca_comch_producer_task_send_set_conf"},
    {"doca_cc_producer_task_send_alloc_init", "doca_comch_producer_task_send_alloc_init"},
    {"doca_cc_producer_task_send_get_buf", "doca_comch_producer_task_send_get_buf"},
    {"doca_cc_producer_task_send_set_buf", "doca_comch_producer_task_send_set_buf"},
    {"doca_cc_producer_task_send_get_consumer_id", "doca_comch_producer_task_send_get_consumer_id"},
    {"doca_cc_producer_task_send_set_consumer_id", "doca_comch_producer_task_send_set_consumer_id"},
    {"doca_cc_producer_task_send_as_task", "doca_comch_producer_task_send_as_task"},
}};

constexpr std::array<std::pair<std::string_view, std::string_view>, 2> k_comch_2_7{{
    {"doca_comch_server_get_device_repr", "doca_comch_server_get_device_rep"},
    {"doca_comch_server_event_connection_register",
     "doca_comch_server_event_connection_status_changed_register"},
}};

void add(std::vector<call_entry> &out, std::string_view name, std::string_view current,
         const char *generation)
{
    for (const call_entry &c : out)
        if (c.name == current) {
            call_entry e = c;
            e.name = std::string(name);
            e.summary =
                std::string(generation) + " name of " + std::string(current) + ": " + c.summary;
            if (name == "doca_cc_producer_task_send_alloc_init")
                e.summary += " (without immediate data: 2.6 had none)";
            out.push_back(std::move(e));
            return;
        }
}

} // namespace

void add_generation_calls(std::vector<call_entry> &out)
{
    for (const auto &[name, current] : k_comch_2_7)
        add(out, name, current, "DOCA 2.7's");
    for (const auto &[name, current] : k_cc_2_6)
        add(out, name, current, "DOCA 2.6's");
}

} // namespace softcomch::tools::explain
