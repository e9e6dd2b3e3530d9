// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the calls of doca_comch.h and what each returns (src/capi/comch/comch.cpp,
// src/comch/{comch_ctx,server,client,connection}.cpp; doca-api.md 4.6).
#include "explain.hpp"

namespace softcomch::tools::explain {

namespace {

call_entry getter(std::string name, std::string what)
{
    return {std::move(name), "doca_error_t", "reads " + what, {bad_handle()}};
}

call_entry cap_query(std::string name, std::string what)
{
    return {std::move(name),
            "doca_error_t",
            "the device's " + what,
            {{DOCA_ERROR_INVALID_VALUE,
              "devinfo or the output pointer is NULL, or devinfo is not "
              "a doca_devinfo of a device list",
              "pass an entry of doca_devinfo_create_list (or doca_dev_as_devinfo of an open "
              "device)",
              origin::both}}};
}

call_entry cap_role(std::string name, std::string role, std::string side)
{
    return {
        std::move(name),
        "doca_error_t",
        "whether the device can run a Comch " + role,
        {{DOCA_SUCCESS, "the device can run a " + role, "", origin::both},
         {DOCA_ERROR_NOT_SUPPORTED,
          "it cannot: a " + role + " needs a " + side +
              " device of a BlueField in DPU mode (not NIC mode)",
          "use a " + side + " device; softcomch caps shows " + role + "_is_supported per device",
          origin::both},
         {DOCA_ERROR_INVALID_VALUE, "devinfo is NULL or not a doca_devinfo",
          "pass an entry of doca_devinfo_create_list", origin::both}}};
}

call_entry setter(std::string name, std::string what, std::string cap_query_fn)
{
    return {std::move(name),
            "doca_error_t",
            "sets the " + what + " (before doca_ctx_start)",
            {not_idle(), out_of_range(what, cap_query_fn), bad_handle()}};
}

call_entry registration(std::string name, std::string what, std::string required)
{
    return {
        std::move(name),
        "doca_error_t",
        "registers " + what + " (before doca_ctx_start)",
        {not_idle(),
         {DOCA_ERROR_INVALID_VALUE, required,
          "pass the callbacks; a program that wants no event still needs a function", origin::both},
         bad_handle()}};
}

call_entry task_conf(std::string name, std::string owner)
{
    return {std::move(name),
            "doca_error_t",
            "configures the " + owner + "'s pool of send tasks (before doca_ctx_start)",
            {not_idle(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL (both the completion and the error callback are required), or "
              "num_send_tasks is 0 or above doca_comch_cap_get_max_send_tasks",
              "pass both callbacks and a pool size within the cap", origin::both},
             bad_handle()}};
}

call_entry task_alloc(std::string name, std::string owner)
{
    return {std::move(name),
            "doca_error_t",
            "takes a send task from the " + owner + "'s pool for one message",
            {not_running(owner),
             {DOCA_ERROR_INVALID_VALUE,
              "msg or task is NULL, the connection is not one of this " + owner +
                  "'s, or len is 0 or above the maximum negotiated for the connection (the "
                  "smaller of the two sides' set_max_msg_size)",
              "send at most doca_comch_cap_get_max_msg_size bytes (4080 on BlueField); split "
              "larger data, or use the fast path",
              origin::both},
             {DOCA_ERROR_NOT_CONNECTED, "the connection is closed (the peer disconnected)",
              "stop sending on it after the disconnect (server: disconnect event; client: its "
              "state goes STOPPING)",
              origin::softcomch},
             {DOCA_ERROR_NO_MEMORY,
              "every task of the pool is in flight or not yet freed, or no pool was configured "
              "(the *_task_send_set_conf call is missing)",
              "progress the engine so completions come back and free them in the callbacks; "
              "configure the pool before doca_ctx_start",
              origin::both}}};
}

call_entry destroy(std::string name, std::string what)
{
    return {std::move(name),
            "doca_error_t",
            "destroys the " + what,
            {destroy_not_idle(what), bad_handle()}};
}

call_entry create_server()
{
    return {"doca_comch_server_create",
            "doca_error_t",
            "creates a server on a DPU-side device for the host function a representor stands "
            "for",
            {{DOCA_ERROR_INVALID_VALUE,
              "dev or repr is NULL or closed, the name is empty or not shorter than "
              "doca_comch_cap_get_max_name_len, or the representor is not managed by dev",
              "open the representor from this device's doca_devinfo_rep_create_list (the one "
              "whose PCI address is the client's host function)",
              origin::both},
             {DOCA_ERROR_NOT_SUPPORTED,
              "dev cannot run a server: it is a host-side device, or its BlueField is in NIC "
              "mode",
              "create servers on the DPU side (03:00.0 on the default machine); clients go on "
              "the host side",
              origin::both},
             {DOCA_ERROR_NO_MEMORY, "the server object could not be allocated", "", origin::both},
             {DOCA_ERROR_INITIALIZATION, "internal resources could not be set up",
              "run softcomch doctor", origin::doca}}};
}

call_entry create_client()
{
    return {"doca_comch_client_create",
            "doca_error_t",
            "creates a client on a host-side device for the server of that name",
            {{DOCA_ERROR_INVALID_VALUE,
              "dev is NULL or closed, or the name is empty or not shorter than "
              "doca_comch_cap_get_max_name_len",
              "use the server's exact name", origin::both},
             {DOCA_ERROR_NOT_SUPPORTED,
              "dev cannot run a client: it is a DPU-side device, or its BlueField is in NIC "
              "mode",
              "create clients on the host side (b1:00.0 on the default machine)", origin::both},
             {DOCA_ERROR_NO_MEMORY, "the client object could not be allocated", "", origin::both},
             {DOCA_ERROR_INITIALIZATION, "internal resources could not be set up",
              "run softcomch doctor", origin::doca}}};
}

call_entry disconnect()
{
    return {"doca_comch_server_disconnect",
            "doca_error_t",
            "closes one client's connection from the server side",
            {{DOCA_ERROR_BAD_STATE, "the server is not RUNNING",
              "disconnect while the server runs; stopping it closes every connection",
              origin::softcomch},
             {DOCA_ERROR_INVALID_VALUE, "the connection is NULL or not one of this server's",
              "pass a connection from this server's connect event", origin::both},
             {DOCA_ERROR_NOT_CONNECTED, "the connection is already closed",
              "nothing to do: the client is gone", origin::softcomch},
             {DOCA_ERROR_IN_USE, "consumers or producers still use the connection",
              "stop and destroy them first", origin::both},
             {DOCA_ERROR_AGAIN, "sends to that client are still queued",
              "progress the server's engine, then call it again", origin::both}}};
}

} // namespace

void add_comch_calls(std::vector<call_entry> &out)
{
    out.push_back({"doca_comch_connection_set_user_data",
                   "doca_error_t",
                   "attaches user data to a connection",
                   {bad_handle()}});
    out.push_back(no_status("doca_comch_connection_get_user_data", "union doca_data",
                            "returns the connection's user data (zero for a bad handle, with an "
                            "SDK error line)"));
    out.push_back(no_status("doca_comch_server_get_server_ctx", "struct doca_comch_server *",
                            "returns the server of a server-side connection (NULL otherwise)"));
    out.push_back(no_status("doca_comch_client_get_client_ctx", "struct doca_comch_client *",
                            "returns the client of a client-side connection (NULL otherwise)"));
    out.push_back({"doca_comch_connection_update_info",
                   "doca_error_t",
                   "refreshes the connection's counters",
                   {{DOCA_ERROR_CONNECTION_ABORTED, "the connection is closed",
                     "read no more counters from it", origin::both},
                    {DOCA_ERROR_CONNECTION_INPROGRESS,
                     "the connection is not established yet (SoftComch hands out established "
                     "connections only)",
                     "wait for the connect event", origin::doca},
                    bad_handle()}});
    out.push_back({"doca_comch_connection_get_counter",
                   "doca_error_t",
                   "reads one counter as of the last doca_comch_connection_update_info",
                   {{DOCA_ERROR_INVALID_VALUE,
                     "NULL arguments, or counter_type is not a DOCA_COMCH_COUNTER_* value",
                     "use DOCA_COMCH_COUNTER_SENT_MESSAGES, _SENT_BYTES, _RECV_MESSAGES or "
                     "_RECV_BYTES",
                     origin::both}}});
    out.push_back(cap_query("doca_comch_cap_get_max_name_len",
                            "longest server name, including the terminating NUL"));
    out.push_back(cap_query("doca_comch_cap_get_max_msg_size", "largest control-path message"));
    out.push_back(
        cap_query("doca_comch_cap_get_max_recv_queue_size", "largest receive queue size"));
    out.push_back(
        cap_query("doca_comch_cap_get_max_clients", "number of clients one server can hold"));
    out.push_back(cap_query("doca_comch_cap_get_max_send_tasks", "largest send-task pool"));
    out.push_back(cap_role("doca_comch_cap_server_is_supported", "server", "DPU-side"));
    out.push_back(cap_role("doca_comch_cap_client_is_supported", "client", "host-side"));

    out.push_back(create_server());
    out.push_back(destroy("doca_comch_server_destroy", "server"));
    out.push_back(setter("doca_comch_server_set_max_msg_size", "max message size",
                         "doca_comch_cap_get_max_msg_size"));
    out.push_back(getter("doca_comch_server_get_max_msg_size", "the configured max message size"));
    out.push_back(setter("doca_comch_server_set_recv_queue_size", "receive queue size",
                         "doca_comch_cap_get_max_recv_queue_size"));
    out.push_back(getter("doca_comch_server_get_recv_queue_size", "the receive queue size"));
    out.push_back(getter("doca_comch_server_get_device", "the server's device"));
    out.push_back(getter("doca_comch_server_get_device_rep", "the server's representor"));
    out.push_back(no_status("doca_comch_server_as_ctx", "struct doca_ctx *",
                            "the server as a generic context (NULL for a bad handle)"));
    out.push_back(disconnect());
    out.push_back(task_conf("doca_comch_server_task_send_set_conf", "server"));
    out.push_back(task_alloc("doca_comch_server_task_send_alloc_init", "server"));
    out.push_back(registration("doca_comch_server_event_msg_recv_register", "the receive callback",
                               "recv_event_cb is NULL"));
    out.push_back(registration("doca_comch_server_event_connection_status_changed_register",
                               "the connect and disconnect callbacks",
                               "a connect or disconnect callback is NULL"));
    out.push_back(registration("doca_comch_server_event_consumer_register",
                               "the new-consumer and expired-consumer callbacks",
                               "either callback is NULL (both are required)"));

    out.push_back(create_client());
    out.push_back(destroy("doca_comch_client_destroy", "client"));
    out.push_back(setter("doca_comch_client_set_max_msg_size", "max message size",
                         "doca_comch_cap_get_max_msg_size"));
    out.push_back(getter("doca_comch_client_get_max_msg_size", "the configured max message size"));
    out.push_back(setter("doca_comch_client_set_recv_queue_size", "receive queue size",
                         "doca_comch_cap_get_max_recv_queue_size"));
    out.push_back(getter("doca_comch_client_get_recv_queue_size", "the receive queue size"));
    out.push_back(getter("doca_comch_client_get_device", "the client's device"));
    out.push_back(no_status("doca_comch_client_as_ctx", "struct doca_ctx *",
                            "the client as a generic context (NULL for a bad handle)"));
    out.push_back({"doca_comch_client_get_connection",
                   "doca_error_t",
                   "the client's connection, once it is RUNNING",
                   {{DOCA_ERROR_BAD_STATE,
                     "the client is not RUNNING: still STARTING (looking for its server), or "
                     "stopped",
                     "progress until the state callback reports RUNNING; a client that stays "
                     "STARTING has not found its server (name, representor, fabric: softcomch "
                     "doctor)",
                     origin::both},
                    bad_handle()}});
    out.push_back(task_conf("doca_comch_client_task_send_set_conf", "client"));
    out.push_back(task_alloc("doca_comch_client_task_send_alloc_init", "client"));
    out.push_back(registration("doca_comch_client_event_msg_recv_register", "the receive callback",
                               "recv_event_cb is NULL"));
    out.push_back(registration("doca_comch_client_event_consumer_register",
                               "the new-consumer and expired-consumer callbacks",
                               "either callback is NULL (both are required)"));
    out.push_back(no_status("doca_comch_task_send_as_task", "struct doca_task *",
                            "the send task as a generic task, for doca_task_submit (NULL for a "
                            "bad handle)"));
}

} // namespace softcomch::tools::explain
