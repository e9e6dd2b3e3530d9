// SPDX-License-Identifier: Apache-2.0
//
// Version-matrix rows of the doca_comch_* functions (DOCA 2.7 and later) and of the 2.7 names
// renamed since. Every function of the 3.0 headers (include/doca_comch*.h) has a row; a test
// (tests/integration/test_cli_version_matrix.cpp) checks the list against include/.
#include <array>
#include <string_view>

#include "matrix.hpp"

namespace softcomch::tools::version_matrix {

namespace {

// How a 3.0 function came to be.
enum class origin {
    twin,        // the 2.6 doca_cc_* call of the same name (comch -> cc)
    new_2_7,     // new in 2.7 (no 2.6 counterpart); `note` says what it belongs to
    renamed_2_8, // renamed in 2.8 from a 2.7 name (given)
    seen_3_0,    // first seen in the 3.0 headers; `note` says what changed
    samples_3_2, // first called by NVIDIA's samples at 3.2.0 (no 3.x header set is public)
};

struct function_row {
    std::string_view name;
    origin how;
    std::string_view note; // renamed_2_8: the 2.7 name; new_2_7: its feature; seen_3_0: the change
};

constexpr std::string_view imm = "immediate data";
constexpr std::string_view buf_list = "buffer lists (chained doca_bufs)";
constexpr std::string_view dpa = "DPA data paths (consumer and producer completions on DPA)";
constexpr std::string_view msgq = "the DPA message queue (doca_comch_msgq.h)";

constexpr std::array functions{
    // doca_comch.h
    function_row{"doca_comch_connection_set_user_data", origin::twin, ""},
    function_row{"doca_comch_connection_get_user_data", origin::twin, ""},
    function_row{"doca_comch_server_get_server_ctx", origin::twin, ""},
    function_row{"doca_comch_client_get_client_ctx", origin::twin, ""},
    function_row{"doca_comch_connection_update_info", origin::twin, ""},
    function_row{"doca_comch_connection_get_counter", origin::twin, ""},
    function_row{"doca_comch_cap_get_max_name_len", origin::twin, ""},
    function_row{"doca_comch_cap_get_max_msg_size", origin::twin, ""},
    function_row{"doca_comch_cap_get_max_recv_queue_size", origin::twin, ""},
    function_row{"doca_comch_cap_get_max_clients", origin::twin, ""},
    function_row{"doca_comch_cap_get_max_send_tasks", origin::twin, ""},
    function_row{"doca_comch_cap_server_is_supported", origin::twin, ""},
    function_row{"doca_comch_cap_client_is_supported", origin::twin, ""},
    function_row{"doca_comch_server_create", origin::twin, ""},
    function_row{"doca_comch_server_destroy", origin::twin, ""},
    function_row{"doca_comch_server_set_max_msg_size", origin::twin, ""},
    function_row{"doca_comch_server_get_max_msg_size", origin::twin, ""},
    function_row{"doca_comch_server_set_recv_queue_size", origin::twin, ""},
    function_row{"doca_comch_server_get_recv_queue_size", origin::twin, ""},
    function_row{"doca_comch_server_get_device", origin::twin, ""},
    function_row{"doca_comch_server_get_device_rep", origin::renamed_2_8,
                 "doca_comch_server_get_device_repr"},
    function_row{"doca_comch_server_as_ctx", origin::twin, ""},
    function_row{"doca_comch_server_disconnect", origin::new_2_7,
                 "a server disconnecting one client"},
    function_row{"doca_comch_server_task_send_set_conf", origin::twin, ""},
    function_row{"doca_comch_server_task_send_alloc_init", origin::twin, ""},
    function_row{"doca_comch_server_event_msg_recv_register", origin::twin, ""},
    function_row{"doca_comch_server_event_connection_status_changed_register", origin::renamed_2_8,
                 "doca_comch_server_event_connection_register"},
    function_row{"doca_comch_server_event_consumer_register", origin::twin, ""},
    function_row{"doca_comch_client_create", origin::twin, ""},
    function_row{"doca_comch_client_destroy", origin::twin, ""},
    function_row{"doca_comch_client_set_max_msg_size", origin::twin, ""},
    function_row{"doca_comch_client_get_max_msg_size", origin::twin, ""},
    function_row{"doca_comch_client_set_recv_queue_size", origin::twin, ""},
    function_row{"doca_comch_client_get_recv_queue_size", origin::twin, ""},
    function_row{"doca_comch_client_get_device", origin::twin, ""},
    function_row{"doca_comch_client_as_ctx", origin::twin, ""},
    function_row{"doca_comch_client_get_connection", origin::twin, ""},
    function_row{"doca_comch_client_task_send_set_conf", origin::twin, ""},
    function_row{"doca_comch_client_task_send_alloc_init", origin::twin, ""},
    function_row{"doca_comch_client_event_msg_recv_register", origin::twin, ""},
    function_row{"doca_comch_client_event_consumer_register", origin::twin, ""},
    function_row{"doca_comch_task_send_as_task", origin::twin, ""},
    // doca_comch_consumer.h
    function_row{"doca_comch_consumer_create", origin::twin, ""},
    function_row{"doca_comch_consumer_destroy", origin::twin, ""},
    function_row{"doca_comch_consumer_cap_is_supported", origin::twin, ""},
    function_row{"doca_comch_consumer_get_id", origin::twin, ""},
    function_row{"doca_comch_consumer_cap_get_max_num_tasks", origin::twin, ""},
    function_row{"doca_comch_consumer_cap_get_max_buf_size", origin::twin, ""},
    function_row{"doca_comch_consumer_cap_get_max_buf_list_len", origin::new_2_7, buf_list},
    function_row{"doca_comch_consumer_cap_get_max_consumers", origin::twin, ""},
    function_row{"doca_comch_consumer_cap_get_max_imm_data_len", origin::new_2_7, imm},
    function_row{"doca_comch_consumer_set_imm_data_len", origin::new_2_7, imm},
    function_row{"doca_comch_consumer_get_imm_data_len", origin::new_2_7, imm},
    function_row{"doca_comch_consumer_as_ctx", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_set_conf", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_alloc_init", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_get_buf", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_set_buf", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_get_producer_id", origin::twin, ""},
    function_row{"doca_comch_consumer_task_post_recv_get_imm_data", origin::new_2_7, imm},
    function_row{"doca_comch_consumer_task_post_recv_get_imm_data_len", origin::new_2_7, imm},
    function_row{"doca_comch_consumer_task_post_recv_as_task", origin::twin, ""},
    function_row{"doca_comch_consumer_set_dev_max_num_recv", origin::seen_3_0,
                 "renamed from doca_comch_consumer_set_dev_num_recv (2.7) in a release between "
                 "2.7 and 3.0 that the sources do not name"},
    function_row{"doca_comch_consumer_get_dpa_handle", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_get_gpu_handle", origin::samples_3_2,
                 "the GPU data path of consumers"},
    function_row{"doca_comch_consumer_set_completion", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_create", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_destroy", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_set_max_num_consumers", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_get_max_num_consumers", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_set_max_num_recv", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_get_max_num_recv", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_set_dpa_thread", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_get_dpa_handle", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_start", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_stop", origin::new_2_7, dpa},
    function_row{"doca_comch_consumer_completion_set_imm_data_len", origin::seen_3_0,
                 "added to the consumer completion between 2.7 and 3.0"},
    function_row{"doca_comch_consumer_completion_get_imm_data_len", origin::seen_3_0,
                 "added to the consumer completion between 2.7 and 3.0"},
    // doca_comch_producer.h
    function_row{"doca_comch_producer_create", origin::twin, ""},
    function_row{"doca_comch_producer_destroy", origin::twin, ""},
    function_row{"doca_comch_producer_cap_is_supported", origin::twin, ""},
    function_row{"doca_comch_producer_get_id", origin::twin, ""},
    function_row{"doca_comch_producer_cap_get_max_num_tasks", origin::twin, ""},
    function_row{"doca_comch_producer_cap_get_max_buf_size", origin::twin, ""},
    function_row{"doca_comch_producer_cap_get_max_buf_list_len", origin::new_2_7, buf_list},
    function_row{"doca_comch_producer_cap_get_max_producers", origin::twin, ""},
    function_row{"doca_comch_producer_as_ctx", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_set_conf", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_alloc_init", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_get_buf", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_set_buf", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_get_imm_data", origin::new_2_7, imm},
    function_row{"doca_comch_producer_task_send_get_imm_data_len", origin::new_2_7, imm},
    function_row{"doca_comch_producer_task_send_set_imm_data", origin::new_2_7, imm},
    function_row{"doca_comch_producer_task_send_get_consumer_id", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_set_consumer_id", origin::twin, ""},
    function_row{"doca_comch_producer_task_send_as_task", origin::twin, ""},
    function_row{"doca_comch_producer_set_dev_max_num_send", origin::seen_3_0,
                 "renamed from doca_comch_producer_set_dev_num_send (2.7) in a release between "
                 "2.7 and 3.0 that the sources do not name"},
    function_row{"doca_comch_producer_get_dpa_handle", origin::new_2_7, dpa},
    function_row{"doca_comch_producer_get_gpu_handle", origin::samples_3_2,
                 "the GPU data path of producers"},
    function_row{"doca_comch_producer_dpa_completion_attach", origin::new_2_7, dpa},
    // doca_comch_msgq.h
    function_row{"doca_comch_msgq_create", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_destroy", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_set_max_num_producers", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_set_max_num_consumers", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_set_dpa_producer", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_set_dpa_consumer", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_start", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_stop", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_consumer_create", origin::new_2_7, msgq},
    function_row{"doca_comch_msgq_producer_create", origin::new_2_7, msgq},
};

// The 2.7 names that no longer exist in 3.0.
struct retired_row {
    std::string_view name;
    std::string_view successor;
    std::string_view last; // last release the sources show it in
    std::string_view source;
    std::string_view evidence;
};

constexpr std::array retired{
    retired_row{"doca_comch_server_get_device_repr", "doca_comch_server_get_device_rep", "2.7.0",
                sources::guide_2_8,
                "declared in the 2.7.0085 doca_comch.h (out-parameter `repr`); the DOCA 2.8.0 "
                "guide lists its rename to doca_comch_server_get_device_rep among the function "
                "name changes from 2.7"},
    retired_row{"doca_comch_server_event_connection_register",
                "doca_comch_server_event_connection_status_changed_register", "2.7.0",
                sources::guide_2_8,
                "declared in the 2.7.0085 doca_comch.h; the DOCA 2.8.0 guide lists its rename to "
                "doca_comch_server_event_connection_status_changed_register; the samples from "
                "2.9 to 3.3 call the new name"},
    retired_row{"doca_comch_consumer_set_dev_num_recv", "doca_comch_consumer_set_dev_max_num_recv",
                "2.7.0", sources::headers_3_0,
                "declared in the 2.7.0085 doca_comch_consumer.h; the 3.0.0058 header has "
                "doca_comch_consumer_set_dev_max_num_recv instead. The release of the rename "
                "(2.8 or 2.9) is not established: 2.7 is only the last release shown"},
    retired_row{"doca_comch_producer_set_dev_num_send", "doca_comch_producer_set_dev_max_num_send",
                "2.7.0", sources::headers_3_0,
                "declared in the 2.7.0085 doca_comch_producer.h; the 3.0.0058 header has "
                "doca_comch_producer_set_dev_max_num_send instead. The release of the rename "
                "(2.8 or 2.9) is not established: 2.7 is only the last release shown"},
};

std::string cc_name(std::string_view comch)
{
    return "doca_cc_" + std::string(comch.substr(std::string_view("doca_comch_").size()));
}

entry row_of(const function_row &f)
{
    entry e;
    e.library = "doca-comch";
    e.capability = std::string(f.name);
    e.display_name = std::string(f.name) + "()";
    e.min_doca_version = "2.7.0";
    e.source_url = sources::guide_2_7;
    const std::string seen = "Declared in the DOCA 2.7.0085 Comch headers and in the 3.0.0058 "
                             "headers (DOCA_STABLE from 3.0 on host-side calls). ";
    switch (f.how) {
    case origin::twin: {
        const std::string cc = cc_name(f.name);
        const auto older = name_2_5(cc);
        e.source_quote = seen + "In DOCA 2.6 the same call was " + cc +
                         (older ? " (2.5: " + *older + ")" : std::string()) + ". " +
                         rename_disagreement;
        break;
    }
    case origin::new_2_7:
        e.source_quote = seen + "New in 2.7 with " + std::string(f.note) +
                         ": the 2.6 doca_cc headers have no counterpart.";
        if (f.note == msgq)
            e.source_quote += " The MsgQ header copies share the 2.7 Doxygen style, but whether "
                              "MsgQ shipped in 2.7 or in 2.8 is not proven.";
        break;
    case origin::renamed_2_8:
        e.min_doca_version = "2.8.0";
        e.source_url = sources::guide_2_8;
        e.source_quote = "The DOCA 2.8.0 guide lists " + std::string(f.note) + " -> " +
                         std::string(f.name) +
                         " among the function name changes from 2.7; the 3.0.0058 header "
                         "declares it (DOCA_STABLE). DOCA 2.6 called it " +
                         cc_name(f.note) + ".";
        break;
    case origin::seen_3_0:
        e.min_doca_version = "3.0.0";
        e.source_url = sources::headers_3_0;
        e.source_quote = "Declared in the DOCA 3.0.0058 headers; " + std::string(f.note) +
                         ". 3.0 is the first release the sources show it in.";
        break;
    case origin::samples_3_2:
        e.min_doca_version = "3.2.0";
        e.source_url = sources::samples;
        e.source_quote = "Called by applications/dpu_gpu_remote_offload in NVIDIA's samples from "
                         "tag 3.2.0 on, for " +
                         std::string(f.note) +
                         "; absent from the 3.0.0058 headers. DOCA 3.2.0's changes page: "
                         "\"Enables GPU data path for the DOCA Comm Channel\".";
        break;
    }
    return e;
}

} // namespace

std::vector<twin> twins_2_6()
{
    std::vector<twin> out;
    for (const auto &f : functions) {
        if (f.how == origin::twin)
            out.push_back({std::string(f.name), cc_name(f.name)});
        else if (f.how == origin::renamed_2_8)
            out.push_back({std::string(f.name), cc_name(f.note)});
    }
    return out;
}

void add_comch_rows(std::vector<entry> &rows)
{
    for (const auto &f : functions)
        rows.push_back(row_of(f));
    for (const auto &r : retired) {
        entry e;
        e.library = "doca-comch";
        e.capability = std::string(r.name);
        e.display_name = std::string(r.name) + "() (renamed " + std::string(r.successor) + ")";
        e.min_doca_version = "2.7.0";
        e.max_doca_version = std::string(r.last);
        e.source_url = std::string(r.source);
        e.source_quote = "Renamed: " + std::string(r.evidence) + ".";
        rows.push_back(std::move(e));
    }
}

} // namespace softcomch::tools::version_matrix
