// SPDX-License-Identifier: Apache-2.0
//
// Version-matrix rows of capabilities (named as `softcomch caps` and the capability snapshot name
// them), API generations and features, headers, pkg-config modules, libraries and error codes.
#include <array>
#include <string_view>

#include "matrix.hpp"

namespace softcomch::tools::version_matrix {

const char *const rename_disagreement =
    "Sources disagree on when Comch got its name: NVIDIA's doca-skills guide "
    "(skills/libs/doca-comch/CAPABILITIES.md) dates the rename from Comm Channel to Comch, and "
    "the doca-comch pkg-config module, to DOCA 2.5, but the 2.5 guide and the 2.6.0058 headers "
    "still say doca_cc_*; doca_comch_* first appears in the 2.7.0085 headers.";

namespace {

struct feature_row {
    std::string_view library;
    std::string_view capability;
    std::string_view display_name;
    std::string_view min;
    std::string_view max; // empty: still available
    std::string_view url;
    std::string_view quote;
    bool disputed = false; // append rename_disagreement
};

constexpr std::string_view comch = "doca-comch";

// A capability query across the generations.
struct cap_row {
    std::string_view capability; // as `softcomch caps --json` names it
    std::string_view query;      // the 3.0 function
    std::string_view min;
    std::string_view history; // the older names
};

constexpr std::array caps{
    cap_row{"server_is_supported", "doca_comch_cap_server_is_supported", "2.5.0",
            "2.5/2.6: doca_cc_cap_server_is_supported"},
    cap_row{"client_is_supported", "doca_comch_cap_client_is_supported", "2.5.0",
            "2.5/2.6: doca_cc_cap_client_is_supported"},
    cap_row{"max_name_len", "doca_comch_cap_get_max_name_len", "2.5.0",
            "2.5/2.6: doca_cc_cap_get_max_name_len; the legacy endpoint API had a "
            "device-independent doca_comm_channel_get_max_service_name_len"},
    cap_row{
        "max_msg_size", "doca_comch_cap_get_max_msg_size", "2.5.0",
        "2.5/2.6: doca_cc_cap_get_max_msg_size; legacy: doca_comm_channel_get_max_message_size. "
        "NVIDIA's samples size their messages to 4080 bytes, the value BlueField-2 and -3 "
        "report"},
    cap_row{"max_recv_queue_size", "doca_comch_cap_get_max_recv_queue_size", "2.5.0",
            "2.5/2.6: doca_cc_cap_get_max_recv_queue_size; legacy: "
            "doca_comm_channel_get_max_recv_queue_size"},
    cap_row{"max_clients", "doca_comch_cap_get_max_clients", "2.5.0",
            "2.5/2.6: doca_cc_cap_get_max_clients; legacy: "
            "doca_comm_channel_get_service_max_num_connections"},
    cap_row{"max_send_tasks", "doca_comch_cap_get_max_send_tasks", "2.5.0",
            "2.5/2.6: doca_cc_cap_get_max_send_tasks; the legacy API had a send queue instead "
            "(doca_comm_channel_get_max_send_queue_size)"},
    cap_row{"consumer_is_supported", "doca_comch_consumer_cap_is_supported", "2.5.0",
            "2.5: doca_cc_cap_is_consumer_supported; 2.6: doca_cc_consumer_cap_is_supported"},
    cap_row{"consumer_max_num_tasks", "doca_comch_consumer_cap_get_max_num_tasks", "2.5.0",
            "2.5: doca_cc_consumer_cap_get_max_log_num_tasks (the guide's name suggests a log2 "
            "count); 2.6: doca_cc_consumer_cap_get_max_num_tasks"},
    cap_row{"consumer_max_buf_size", "doca_comch_consumer_cap_get_max_buf_size", "2.5.0",
            "2.5/2.6: doca_cc_consumer_cap_get_max_buf_size; the guide says 1 GB or more, "
            "hardware dependent"},
    cap_row{"consumer_max_buf_list_len", "doca_comch_consumer_cap_get_max_buf_list_len", "2.7.0",
            "new in 2.7 (no doca_cc counterpart)"},
    cap_row{"consumer_max_consumers", "doca_comch_consumer_cap_get_max_consumers", "2.5.0",
            "2.5/2.6: doca_cc_consumer_cap_get_max_consumers"},
    cap_row{"consumer_max_imm_data_len", "doca_comch_consumer_cap_get_max_imm_data_len", "2.7.0",
            "new in 2.7 with immediate data (no doca_cc counterpart)"},
    cap_row{"producer_is_supported", "doca_comch_producer_cap_is_supported", "2.6.0",
            "2.6: doca_cc_producer_cap_is_supported; the 2.5 name is not recorded (the consumer's "
            "was doca_cc_cap_is_consumer_supported), so 2.6 is the first release shown"},
    cap_row{"producer_max_num_tasks", "doca_comch_producer_cap_get_max_num_tasks", "2.6.0",
            "2.6: doca_cc_producer_cap_get_max_num_tasks; the 2.5 name is not recorded (the "
            "consumer's was doca_cc_consumer_cap_get_max_log_num_tasks)"},
    cap_row{"producer_max_buf_size", "doca_comch_producer_cap_get_max_buf_size", "2.5.0",
            "2.5/2.6: doca_cc_producer_cap_get_max_buf_size"},
    cap_row{"producer_max_buf_list_len", "doca_comch_producer_cap_get_max_buf_list_len", "2.7.0",
            "new in 2.7 (no doca_cc counterpart)"},
    cap_row{"producer_max_producers", "doca_comch_producer_cap_get_max_producers", "2.5.0",
            "2.5/2.6: doca_cc_producer_cap_get_max_producers"},
};

constexpr std::array features{
    // ---- API generations and features ----
    feature_row{comch, "comch_api", "DOCA Comch API (doca_comch_*)", "2.7.0", "",
                sources::guide_2_7,
                "The 2.7.0 guide 'DOCA Comch – New' and the 2.7.0085 headers doca_comch.h, "
                "doca_comch_consumer.h and doca_comch_producer.h introduce the doca_comch_ prefix "
                "(every call DOCA_EXPERIMENTAL in 2.7).",
                true},
    feature_row{"doca", "comm_channel_new_api", "DOCA Comm Channel – New API (doca_cc_*)", "2.5.0",
                "2.6.0", sources::guide_2_5,
                "Introduced by the DOCA 2.5.0 guide 'DOCA Comm Channel – New' (server, client, "
                "connection and the producer/consumer fast path on DOCA Core contexts); declared "
                "in doca_cc.h, doca_cc_consumer.h and doca_cc_producer.h of 2.6.0058; renamed "
                "doca_comch_* in 2.7.",
                true},
    feature_row{"doca-comm-channel", "comm_channel_legacy_api",
                "legacy DOCA Comm Channel endpoint API (doca_comm_channel_*)", "1.5.0", "2.8.0",
                sources::guide_1_5,
                "The DOCA 1.5 Comm Channel programming guide documents the endpoint API "
                "(doca_comm_channel_ep_create, _listen, _connect, _sendto, _recvfrom); "
                "doca_comm_channel.h of 2.6.0058 still declares it, marked DOCA_EXPERIMENTAL. The "
                "DOCA 2.8 guide says it \"will be deprecated in the next DOCA release (2.9.0)\"; "
                "the 3.0 header set has no doca_comm_channel.h."},
    feature_row{comch, "slow_path", "control-path messages (server, client, connection, send task)",
                "2.5.0", "", sources::guide_2_5,
                "The 2.5.0 guide 'DOCA Comm Channel – New' introduces the server/client contexts "
                "with send tasks and a receive event (as doca_cc_*; doca_comch_* since 2.7)."},
    feature_row{comch, "fast_path", "fast path (producer and consumer contexts)", "2.5.0", "",
                sources::guide_2_5,
                "doca_cc_consumer.h and doca_cc_producer.h come with the 2.5 API (the 2.5 guide "
                "names doca_cc_producer_send_task_alloc_init and "
                "doca_cc_consumer_post_recv_task_alloc_init); doca_comch_consumer.h and "
                "doca_comch_producer.h since 2.7."},
    feature_row{comch, "server_disconnect",
                "a server disconnecting a client "
                "(doca_comch_server_disconnect)",
                "2.7.0", "", sources::guide_2_7,
                "New in 2.7: doca_comch_server_disconnect is declared in the 2.7.0085 "
                "doca_comch.h; the 2.6 doca_cc.h has no such call."},
    feature_row{comch, "immediate_data", "immediate data on fast-path messages", "2.7.0", "",
                sources::guide_2_7,
                "New in 2.7: doca_comch_producer_task_send_alloc_init gains imm_data and "
                "imm_data_len (2.6: doca_cc_producer_task_send_alloc_init(producer, buf, "
                "consumer_id, task)); consumers get set/get_imm_data_len and "
                "doca_comch_consumer_cap_get_max_imm_data_len."},
    feature_row{comch, "buf_list", "buffer lists (chained doca_bufs) on the fast path", "2.7.0", "",
                sources::guide_2_7,
                "New in 2.7: doca_comch_consumer_cap_get_max_buf_list_len and "
                "doca_comch_producer_cap_get_max_buf_list_len; the 2.6 headers have neither."},
    feature_row{comch, "dpa_data_path", "DPA data path (consumer/producer completions on DPA)",
                "2.7.0", "", sources::guide_2_7,
                "New in 2.7: the consumer completion and DPA handle calls and the "
                "doca_ctx_set_datapath_on_dpa based data path."},
    feature_row{comch, "dpa_msgq", "DPA message queue (doca_comch_msgq.h)", "2.7.0", "",
                sources::guide_3_2,
                "doca_comch_msgq.h appears in copies that share the 2.7 headers' Doxygen style, "
                "but whether it shipped in 2.7 or in 2.8 is not proven; the 3.2.0 guide expands "
                "MsgQ (DPA consumers and producers, immediate messages of at most 32 bytes)."},
    feature_row{comch, "stable_api", "host-side Comch calls are DOCA_STABLE", "3.0.0", "",
                sources::headers_3_0,
                "In the 3.0.0058 headers every host-side Comch call is DOCA_STABLE (DPA and MsgQ "
                "calls stay DOCA_EXPERIMENTAL); in 2.7 every call was DOCA_EXPERIMENTAL, so "
                "programs needed DOCA_ALLOW_EXPERIMENTAL_API."},
    feature_row{comch, "const_task_getters",
                "const-correct fast-path task getters (get_imm_data returns const uint8_t *)",
                "3.0.0", "", sources::headers_3_0,
                "Between 2.7 and 3.0 (release not named by the sources) the consumer and producer "
                "task getters started taking const tasks, and "
                "doca_comch_consumer_task_post_recv_get_imm_data started returning const uint8_t "
                "* (2.7: uint8_t *); 3.0 is the first release shown."},
    feature_row{comch, "recv_cb_uint32_msg_len",
                "receive callback takes uint32_t msg_len (2.5: size_t)", "2.6.0", "",
                sources::packages_2_6,
                "doca_cc_event_msg_recv_cb_t of 2.6.0058 passes uint32_t msg_len; 2.5-era doca_cc "
                "code receives size_t msg_len."},
    feature_row{comch, "connection_cb_uint8_flag",
                "connection callback takes uint8_t change_successful (2.5: bool change_success)",
                "2.6.0", "", sources::packages_2_6,
                "doca_cc_event_connection_status_changed_cb_t of 2.6.0058 passes uint8_t "
                "change_successful; 2.5-era doca_cc code receives bool change_success."},
    // ---- headers ----
    feature_row{"doca-comm-channel", "doca_comm_channel.h", "header doca_comm_channel.h", "1.5.0",
                "2.8.0", sources::packages_2_6,
                "Shipped in the 2.6.0058 development package; the legacy API it declares is "
                "documented from DOCA 1.5 on; absent from the 3.0 header set."},
    feature_row{"doca", "doca_cc.h", "header doca_cc.h", "2.5.0", "2.6.0", sources::packages_2_6,
                "Shipped in the 2.6.0058 development package (libdoca-libs-dev); the 2.5 guide "
                "introduces it; 2.7 replaces it with doca_comch.h."},
    feature_row{"doca", "doca_cc_consumer.h", "header doca_cc_consumer.h", "2.5.0", "2.6.0",
                sources::packages_2_6,
                "Shipped in the 2.6.0058 development package; 2.7 replaces it with "
                "doca_comch_consumer.h."},
    feature_row{"doca", "doca_cc_producer.h", "header doca_cc_producer.h", "2.5.0", "2.6.0",
                sources::packages_2_6,
                "Shipped in the 2.6.0058 development package; 2.7 replaces it with "
                "doca_comch_producer.h."},
    feature_row{comch, "doca_comch.h", "header doca_comch.h", "2.7.0", "", sources::guide_2_7,
                "Seen in a copy whose doca_version.h says 2.7.0085, and in the 3.0.0058 set.",
                true},
    feature_row{comch, "doca_comch_consumer.h", "header doca_comch_consumer.h", "2.7.0", "",
                sources::guide_2_7, "Seen with the 2.7.0085 headers and in the 3.0.0058 set.",
                true},
    feature_row{comch, "doca_comch_producer.h", "header doca_comch_producer.h", "2.7.0", "",
                sources::guide_2_7, "Seen with the 2.7.0085 headers and in the 3.0.0058 set.",
                true},
    feature_row{comch, "doca_comch_msgq.h", "header doca_comch_msgq.h (DPA message queue)", "2.7.0",
                "", sources::guide_3_2,
                "Seen in copies in the 2.7 Doxygen style (2.7 or 2.8: not proven) and in the "
                "3.0.0058 set."},
    // ---- pkg-config modules ----
    feature_row{"doca", "doca.pc", "pkg-config module doca (umbrella)", "1.5.0", "2.6.0",
                sources::packages_2_6,
                "DOCA 1.x and 2.x samples use dependency('doca'); the 2.6.0058 package list has "
                "the umbrella doca.pc and doca-libs.pc and no per-library module. The per-library "
                "modules are seen from 2.8.0081 on."},
    feature_row{
        comch, "doca-comch.pc", "pkg-config module doca-comch", "2.8.0", "", sources::packages_2_6,
        "The 2.8.0081 package listing ships pkgconfig/doca-comch.pc (and doca-comch-lib.pc); "
        "the 3.0 samples' meson files use dependency('doca-comch'). 2.7 was not checked. "
        "Sources disagree: the doca-skills guide says the module is doca-comch on installs "
        "from 2.5 on, but the 2.6.0058 packages have only the umbrella doca.pc."},
    feature_row{"doca-comm-channel", "doca-comm-channel.pc", "pkg-config module doca-comm-channel",
                "2.8.0", "2.8.0", sources::packages_2_6,
                "The 2.8.0081 package listing still ships doca-comm-channel.pc (package "
                "libdoca-sdk-comm-channel-dev) for the legacy API. Sources disagree: the "
                "doca-skills guide says doca-comm-channel is the module on installs before 2.5, "
                "while the samples of those releases use the umbrella doca module."},
    feature_row{"doca-common", "doca-common.pc", "pkg-config module doca-common", "2.8.0", "",
                sources::packages_2_6,
                "Seen in the 2.8.0081 package listing; the 3.0 samples use "
                "dependency('doca-common')."},
    feature_row{"doca-argp", "doca-argp.pc", "pkg-config module doca-argp", "2.8.0", "",
                sources::packages_2_6,
                "Seen in the 2.8.0081 package listing; the 3.0 Arg Parser guide names doca-argp "
                "as its pkg-config file (2.5: part of the umbrella doca)."},
    // ---- libraries ----
    feature_row{"doca-comm-channel", "libdoca_comm_channel.so", "library libdoca_comm_channel",
                "2.6.0", "2.8.0", sources::packages_2_6,
                "libdoca_comm_channel.so.2 (.so.2.6.0058) is in the 2.6 package list (earlier "
                "releases not checked); 2.8.0081 still ships its development package."},
    feature_row{"doca", "libdoca_cc.so", "library libdoca_cc", "2.5.0", "2.6.0",
                sources::packages_2_6,
                "libdoca_cc.so.2 is in the 2.6.0058 package list; the 2.5 API has the same header "
                "and library names."},
    feature_row{comch, "libdoca_comch.so", "library libdoca_comch", "2.8.0", "",
                sources::packages_2_6,
                "The 2.8.0081 packages ship libdoca_comch.so.2.8.0081 with its soname link "
                "libdoca_comch.so.2; in 2.7 the name is likely (its headers say doca_comch) but "
                "not checked.",
                true},
    // ---- error codes (doca_error.h) ----
    feature_row{
        "doca-common", "DOCA_ERROR_AUTHENTICATION",
        "error code DOCA_ERROR_AUTHENTICATION "
        "(28)",
        "3.0.0", "", sources::headers_3_0,
        "In the 3.0.0058 doca_error.h; the 2.6 doca_error.h ends at DOCA_ERROR_TOO_BIG = 27 "
        "(2.7 to 2.9 not checked)."},
    feature_row{
        "doca-common", "DOCA_ERROR_BAD_CONFIG", "error code DOCA_ERROR_BAD_CONFIG (29)", "3.0.0",
        "", sources::headers_3_0,
        "In the 3.0.0058 doca_error.h; the 2.6 doca_error.h ends at DOCA_ERROR_TOO_BIG = 27 "
        "(2.7 to 2.9 not checked)."},
    feature_row{
        "doca-common", "DOCA_ERROR_SKIPPED", "error code DOCA_ERROR_SKIPPED (30)", "3.0.0", "",
        sources::headers_3_0,
        "In the 3.0.0058 doca_error.h; the 2.6 doca_error.h ends at DOCA_ERROR_TOO_BIG = 27 "
        "(2.7 to 2.9 not checked)."},
};

} // namespace

void add_feature_rows(std::vector<entry> &rows)
{
    for (const auto &c : caps) {
        entry e;
        e.library = std::string(comch);
        e.capability = std::string(c.capability);
        e.display_name = std::string(c.capability) + " (" + std::string(c.query) + ")";
        e.min_doca_version = std::string(c.min);
        e.source_url = c.min == "2.7.0" ? sources::guide_2_7 : sources::packages_2_6;
        e.source_quote = "Queried with " + std::string(c.query) +
                         " since 2.7 (DOCA_STABLE in 3.0); " + std::string(c.history) + ".";
        rows.push_back(std::move(e));
    }
    for (const auto &f : features) {
        entry e;
        e.library = std::string(f.library);
        e.capability = std::string(f.capability);
        e.display_name = std::string(f.display_name);
        e.min_doca_version = std::string(f.min);
        if (!f.max.empty())
            e.max_doca_version = std::string(f.max);
        e.source_url = std::string(f.url);
        e.source_quote = std::string(f.quote);
        if (f.disputed)
            e.source_quote += std::string(" ") + rename_disagreement;
        rows.push_back(std::move(e));
    }
}

} // namespace softcomch::tools::version_matrix
