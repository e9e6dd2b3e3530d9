// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the calls of doca_comch_consumer.h, doca_comch_producer.h and
// doca_comch_msgq.h and what each returns (src/capi/comch/{consumer,producer,msgq}.cpp,
// src/comch/{consumer,producer}.cpp; doca-api.md 4.6).
#include "explain.hpp"

namespace softcomch::tools::explain {

namespace {

call_entry plain(std::string name, std::string summary)
{
    return {std::move(name), "doca_error_t", std::move(summary), {bad_handle()}};
}

call_entry fast_cap(std::string name, std::string what, std::string side)
{
    return {std::move(name),
            "doca_error_t",
            "the device's " + what,
            {{DOCA_ERROR_INVALID_VALUE, "devinfo or the output pointer is NULL",
              "pass an entry of doca_devinfo_create_list", origin::both},
             {DOCA_ERROR_NOT_SUPPORTED,
              "the device cannot run " + side + " (SoftComch answers the value on every device)",
              "check doca_comch_" + std::string(side == "consumers" ? "consumer" : "producer") +
                  "_cap_is_supported first",
              origin::doca}}};
}

call_entry fast_supported(std::string name, std::string what)
{
    return {
        std::move(name),
        "doca_error_t",
        "whether the device can run " + what,
        {{DOCA_SUCCESS, "it can: any device that can hold a Comch connection", "", origin::both},
         {DOCA_ERROR_NOT_SUPPORTED,
          "it cannot: the device can hold no connection (a BlueField in NIC mode)",
          "use a device of a BlueField in DPU mode", origin::both},
         {DOCA_ERROR_INVALID_VALUE, "devinfo is NULL", "", origin::both}}};
}

call_entry dpa(std::string name, std::string summary)
{
    return {std::move(name),
            "doca_error_t",
            std::move(summary),
            {no_dpa(), {DOCA_ERROR_INVALID_VALUE, "a NULL argument", "", origin::both}}};
}

call_entry create_endpoint(std::string name, std::string what, std::string max_query,
                           bool with_mmap)
{
    call_entry e{
        std::move(name),
        "doca_error_t",
        "creates a " + what + " on an established connection",
        {{DOCA_ERROR_BAD_STATE,
          "the connection is not established, is closing, or its server or client is "
          "not RUNNING",
          "create fast-path objects after the connect event (server) or once the client "
          "is RUNNING",
          origin::both},
         {DOCA_ERROR_NO_MEMORY,
          "the connection already holds the maximum number of " + what + "s (" + max_query + ")",
          "destroy " + what + "s you no longer use", origin::softcomch},
         {DOCA_ERROR_NOT_PERMITTED, "the connection's peer runs an incompatible version", "",
          origin::doca}}};
    if (with_mmap)
        e.rows.push_back({DOCA_ERROR_INVALID_VALUE,
                          "NULL arguments, or the mmap is not started (doca_mmap_start)",
                          "start the mmap that holds the receive buffers before creating the "
                          "consumer",
                          origin::both});
    else
        e.rows.push_back(bad_handle());
    return e;
}

call_entry post_recv_conf()
{
    return {"doca_comch_consumer_task_post_recv_set_conf",
            "doca_error_t",
            "configures the consumer's pool of receive tasks (before doca_ctx_start)",
            {not_idle(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL, or num_post_recv_tasks is 0 or above "
              "doca_comch_consumer_cap_get_max_num_tasks",
              "pass both callbacks and a pool size within the cap", origin::both},
             bad_handle()}};
}

call_entry post_recv_alloc()
{
    return {"doca_comch_consumer_task_post_recv_alloc_init",
            "doca_error_t",
            "takes a receive task for one buffer",
            {not_running("consumer"),
             {DOCA_ERROR_INVALID_VALUE,
              "the buffer is NULL or not inside the mmap the consumer was created with",
              "take the buffer from an inventory over the consumer's mmap", origin::both},
             {DOCA_ERROR_NO_MEMORY,
              "every receive task is posted or not yet freed, or no pool was configured",
              "re-post tasks from their completion callback; configure the pool before start",
              origin::both}}};
}

call_entry producer_conf()
{
    return {"doca_comch_producer_task_send_set_conf",
            "doca_error_t",
            "configures the producer's pool of send tasks (before doca_ctx_start)",
            {not_idle(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL, or num_send_tasks is 0 or above "
              "doca_comch_producer_cap_get_max_num_tasks",
              "pass both callbacks and a pool size within the cap", origin::both},
             bad_handle()}};
}

call_entry producer_alloc()
{
    return {"doca_comch_producer_task_send_alloc_init",
            "doca_error_t",
            "takes a send task for one buffer to one consumer",
            {not_running("producer"),
             {DOCA_ERROR_INVALID_VALUE,
              "NULL arguments, immediate data over 32 bytes (or NULL with a length), a data "
              "length above doca_comch_producer_cap_get_max_buf_size, or a buffer not in a "
              "started mmap",
              "keep immediate data within doca_comch_consumer_cap_get_max_imm_data_len and "
              "buffers within the cap",
              origin::both},
             {DOCA_ERROR_NO_MEMORY, "every send task is in flight or not yet freed",
              "progress the producer's engine and free completed tasks", origin::both}}};
}

} // namespace

void add_fastpath_calls(std::vector<call_entry> &out)
{
    // ---- consumer ----
    out.push_back(create_endpoint("doca_comch_consumer_create", "consumer",
                                  "doca_comch_consumer_cap_get_max_consumers", true));
    out.push_back({"doca_comch_consumer_destroy",
                   "doca_error_t",
                   "destroys the consumer",
                   {destroy_not_idle("consumer"), bad_handle()}});
    out.push_back(fast_supported("doca_comch_consumer_cap_is_supported", "consumers"));
    out.push_back(plain("doca_comch_consumer_get_id",
                        "the consumer's id (what the peer's producer addresses)"));
    out.push_back(fast_cap("doca_comch_consumer_cap_get_max_num_tasks", "largest receive-task pool",
                           "consumers"));
    out.push_back(fast_cap("doca_comch_consumer_cap_get_max_buf_size",
                           "largest buffer a consumer may post", "consumers"));
    out.push_back(fast_cap("doca_comch_consumer_cap_get_max_buf_list_len",
                           "longest buffer chain per receive", "consumers"));
    out.push_back(fast_cap("doca_comch_consumer_cap_get_max_consumers",
                           "number of consumers per connection", "consumers"));
    out.push_back(fast_cap("doca_comch_consumer_cap_get_max_imm_data_len",
                           "largest immediate-data length", "consumers"));
    out.push_back(plain("doca_comch_consumer_get_imm_data_len",
                        "the consumer's configured immediate-data length"));
    out.push_back({"doca_comch_consumer_set_imm_data_len",
                   "doca_error_t",
                   "how much immediate data the consumer accepts (before doca_ctx_start)",
                   {not_idle(),
                    {DOCA_ERROR_INVALID_VALUE,
                     "the length is above doca_comch_consumer_cap_get_max_imm_data_len (32)",
                     "stay within the cap", origin::both},
                    bad_handle()}});
    out.push_back(no_status("doca_comch_consumer_as_ctx", "struct doca_ctx *",
                            "the consumer as a generic context (NULL for a bad handle)"));
    out.push_back(post_recv_conf());
    out.push_back(post_recv_alloc());
    out.push_back(no_status("doca_comch_consumer_task_post_recv_get_buf", "struct doca_buf *",
                            "the task's buffer (NULL for a bad handle)"));
    out.push_back(no_status("doca_comch_consumer_task_post_recv_set_buf", "void",
                            "replaces the task's buffer; refused with an SDK error line while the "
                            "task is in flight"));
    out.push_back(no_status("doca_comch_consumer_task_post_recv_get_producer_id", "uint32_t",
                            "the id of the producer that filled the buffer (0 for a bad handle)"));
    out.push_back(no_status("doca_comch_consumer_task_post_recv_get_imm_data", "const uint8_t *",
                            "the received immediate data (NULL for a bad handle)"));
    out.push_back(no_status("doca_comch_consumer_task_post_recv_get_imm_data_len", "uint32_t",
                            "the received immediate-data length (0 for a bad handle)"));
    out.push_back(no_status("doca_comch_consumer_task_post_recv_as_task", "struct doca_task *",
                            "the receive task as a generic task, for doca_task_submit"));
    for (const char *name :
         {"doca_comch_consumer_set_dev_max_num_recv", "doca_comch_consumer_get_dpa_handle",
          "doca_comch_consumer_set_completion", "doca_comch_consumer_completion_create",
          "doca_comch_consumer_completion_destroy",
          "doca_comch_consumer_completion_set_max_num_consumers",
          "doca_comch_consumer_completion_get_max_num_consumers",
          "doca_comch_consumer_completion_set_max_num_recv",
          "doca_comch_consumer_completion_get_max_num_recv",
          "doca_comch_consumer_completion_set_dpa_thread",
          "doca_comch_consumer_completion_get_dpa_handle", "doca_comch_consumer_completion_start",
          "doca_comch_consumer_completion_stop", "doca_comch_consumer_completion_set_imm_data_len",
          "doca_comch_consumer_completion_get_imm_data_len"})
        out.push_back(dpa(name, "part of the DPA data path of consumers"));

    // ---- producer ----
    out.push_back(create_endpoint("doca_comch_producer_create", "producer",
                                  "doca_comch_producer_cap_get_max_producers", false));
    out.push_back({"doca_comch_producer_destroy",
                   "doca_error_t",
                   "destroys the producer",
                   {destroy_not_idle("producer"), bad_handle()}});
    out.push_back(fast_supported("doca_comch_producer_cap_is_supported", "producers"));
    out.push_back(plain("doca_comch_producer_get_id", "the producer's id"));
    out.push_back(fast_cap("doca_comch_producer_cap_get_max_num_tasks", "largest send-task pool",
                           "producers"));
    out.push_back(fast_cap("doca_comch_producer_cap_get_max_buf_size",
                           "largest message a producer may send", "producers"));
    out.push_back(fast_cap("doca_comch_producer_cap_get_max_buf_list_len",
                           "longest buffer chain per send", "producers"));
    out.push_back(fast_cap("doca_comch_producer_cap_get_max_producers",
                           "number of producers per connection", "producers"));
    out.push_back(no_status("doca_comch_producer_as_ctx", "struct doca_ctx *",
                            "the producer as a generic context (NULL for a bad handle)"));
    out.push_back(producer_conf());
    out.push_back(producer_alloc());
    out.push_back(no_status("doca_comch_producer_task_send_get_buf", "const struct doca_buf *",
                            "the task's buffer (NULL for a bad handle)"));
    out.push_back(no_status("doca_comch_producer_task_send_set_buf", "void",
                            "replaces the task's buffer; refused with an SDK error line while the "
                            "task is in flight"));
    out.push_back(no_status("doca_comch_producer_task_send_get_consumer_id", "uint32_t",
                            "the consumer the task sends to (0 for a bad handle)"));
    out.push_back(no_status("doca_comch_producer_task_send_set_consumer_id", "void",
                            "changes the destination consumer; refused while in flight"));
    out.push_back(no_status("doca_comch_producer_task_send_get_imm_data", "uint8_t *",
                            "the task's immediate data (NULL for a bad handle)"));
    out.push_back(no_status("doca_comch_producer_task_send_get_imm_data_len", "uint32_t",
                            "the task's immediate-data length"));
    out.push_back(no_status("doca_comch_producer_task_send_set_imm_data", "void",
                            "replaces the immediate data (at most 32 bytes); refused while in "
                            "flight"));
    out.push_back(no_status("doca_comch_producer_task_send_as_task", "struct doca_task *",
                            "the send task as a generic task, for doca_task_submit"));
    for (const char *name :
         {"doca_comch_producer_set_dev_max_num_send", "doca_comch_producer_dpa_completion_attach",
          "doca_comch_producer_get_dpa_handle"})
        out.push_back(dpa(name, "part of the DPA data path of producers"));
    for (const char *name :
         {"doca_comch_consumer_get_gpu_handle", "doca_comch_producer_get_gpu_handle"})
        out.push_back({name,
                       "doca_error_t",
                       "the GPU data path's handle (DOCA 3.2)",
                       {{DOCA_ERROR_NOT_SUPPORTED,
                         "the emulation has no GPU: the GPU data path is not available",
                         "run GPU code on a machine with a GPU and DOCA GPUNetIO; with SoftComch "
                         "use the CPU consumer and producer",
                         origin::softcomch},
                        {DOCA_ERROR_INVALID_VALUE, "a NULL argument", "", origin::both}}});

    // ---- MsgQ ----
    for (const char *name :
         {"doca_comch_msgq_create", "doca_comch_msgq_destroy",
          "doca_comch_msgq_set_max_num_producers", "doca_comch_msgq_set_max_num_consumers",
          "doca_comch_msgq_set_dpa_producer", "doca_comch_msgq_set_dpa_consumer",
          "doca_comch_msgq_start", "doca_comch_msgq_stop", "doca_comch_msgq_consumer_create",
          "doca_comch_msgq_producer_create"})
        out.push_back(dpa(name, "part of the DPA message queue"));
}

} // namespace softcomch::tools::explain
