// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: every doca_error_t as a Comch program meets it (explain.hpp). The meaning
// is ours; where SoftComch returns the code is taken from its sources (src/capi, src/comch,
// src/core, src/transport), where DOCA does from the shared spec (doca-api.md 4.6).
#include "explain.hpp"

namespace softcomch::tools::explain {

const char *layer_name(layer l) noexcept
{
    switch (l) {
    case layer::none:
        return "none (success)";
    case layer::lifecycle:
        return "lifecycle";
    case layer::argument:
        return "argument";
    case layer::permission:
        return "permission";
    case layer::capability:
        return "capability";
    case layer::resource:
        return "resource";
    case layer::transient:
        return "transient";
    case layer::connection:
        return "connection";
    case layer::environment:
        return "environment";
    case layer::internal:
        return "internal";
    }
    return "?";
}

const std::vector<code_entry> &codes()
{
    static const std::vector<code_entry> table{
        {DOCA_SUCCESS,
         layer::none,
         "The call did what it was asked. For doca_ctx_start of a server or producer the context "
         "is RUNNING now; after doca_task_submit the task belongs to DOCA until its completion "
         "or error callback runs inside doca_pe_progress.",
         {},
         {}},
        {DOCA_ERROR_UNKNOWN,
         layer::internal,
         "An unspecified failure. No Comch call of SoftComch returns it.",
         {"a library that could not classify a failure"},
         {"raise the SDK log level (--sdk-log-level 60, or SOFTCOMCH_LOG_LEVEL=debug) and read "
          "the line logged just before"}},
        {DOCA_ERROR_NOT_PERMITTED,
         layer::permission,
         "The operation is forbidden for this process or in this situation.",
         {"doca_dev_rep_open refused: the topology's privilege policy does not let this user "
          "open representors (on hardware: a user without access to the representor devices)",
          "doca_pe_connect_ctx on a context already connected to a progress engine",
          "a consumer whose memory the peer may not write with process_vm_writev (Yama "
          "ptrace_scope, another user): it goes from STARTING back to IDLE, its SDK error line "
          "naming the code",
          "DOCA: a consumer or producer created on a connection of an incompatible version"},
         {"run the DPU side as a user the policy allows (softcomch caps --list-rep-devs shows "
          "open_permitted)",
          "connect each context to one progress engine, once",
          "see softcomch doctor's process_vm_writev line, or use SOFTCOMCH_MEMORY=shared"}},
        {DOCA_ERROR_IN_USE,
         layer::lifecycle,
         "Something still uses the object: it cannot be destroyed or released yet.",
         {"destroying a server, client, consumer or producer that is not IDLE",
          "doca_comch_server_disconnect while consumers or producers still use the connection",
          "doca_pe_destroy with contexts still connected",
          "doca_dev_rep_close while a server still uses the representor",
          "doca_buf_inventory_stop / _destroy with buffers not yet released"},
         {"stop the context and progress until its state callback reports IDLE, then destroy "
          "it",
          "tear down in reverse order: consumers and producers, then the client or server, then "
          "the progress engine, then mmaps and devices"}},
        {DOCA_ERROR_NOT_SUPPORTED,
         layer::capability,
         "The device, or this build, cannot do it: the role or feature is not there.",
         {"a server created on a host-side device, or a client on a DPU-side device (servers run "
          "on the BlueField, clients on the host)",
          "a BlueField in NIC mode: no representors, no Comch",
          "doca_devinfo_rep_create_list on a host-side device or a sub-function",
          "DPA and MsgQ calls: the emulated device has no DPA",
          "the doca_comch_*cap_*_is_supported queries answering no"},
         {"query doca_comch_cap_server_is_supported / _client_is_supported on the device first; "
          "softcomch caps lists what each device supports",
          "open 03:00.0 (DPU side) for a server and b1:00.0 (host side) for a client on the "
          "default machine"}},
        {DOCA_ERROR_AGAIN,
         layer::transient,
         "Back-pressure: the call cannot proceed now and may succeed if retried later. Nothing "
         "was lost.",
         {"a producer's doca_task_submit while the consumer has no receive buffer posted",
          "doca_comch_server_disconnect while sends to that client are still queued",
          "a consumer's post of a receive task when its queue is full"},
         {"producer: retry; the condition clears as soon as the consumer posts a buffer (the "
          "consumer side must progress and re-post its receive tasks)",
          "disconnect: progress the server's engine, then call it again",
          "do not spin without progressing the engines involved"}},
        {DOCA_ERROR_INVALID_VALUE,
         layer::argument,
         "An argument is wrong: NULL, an object that was destroyed or is of another kind, or a "
         "value outside what the device or the connection allows.",
         {"NULL pointers, or handles of destroyed objects (the SDK log line names the argument)",
          "a message longer than the connection's negotiated maximum, or empty",
          "a server name that is empty or not shorter than doca_comch_cap_get_max_name_len",
          "sizes and task counts of 0 or above the device cap",
          "a representor not managed by the device given to doca_comch_server_create",
          "a receive buffer outside the consumer's mmap, or an mmap that is not started",
          "a task that is free or already submitted passed to doca_task_submit"},
         {"read the SDK error line: it names the function, the argument and the limit",
          "compare sizes with softcomch caps (max_msg_size, max_recv_queue_size, ...)"}},
        {DOCA_ERROR_NO_MEMORY,
         layer::resource,
         "A pool or a per-connection limit is exhausted, or an allocation failed.",
         {"*_task_*_alloc_init with every task of the pool in flight or not yet freed",
          "*_task_*_alloc_init with no task pool configured (the *_task_*_set_conf call missing)",
          "doca_comch_consumer_create / doca_comch_producer_create beyond the per-connection "
          "maximum",
          "the process running out of memory"},
         {"progress the engine so completions come back, and free (or reuse) completed tasks",
          "configure the pool before doca_ctx_start, sized for the tasks you keep in flight "
          "(at most the cap)",
          "destroy consumers and producers you no longer use"}},
        {DOCA_ERROR_INITIALIZATION,
         layer::environment,
         "Setting something up failed: the emulated machine, the fabric, or a channel.",
         {"doca_devinfo_create_list with an invalid SOFTCOMCH_TOPOLOGY file or SOFTCOMCH_SIDE",
          "doca_ctx_start of a server or client that cannot use the fabric directory (not "
          "writable, not ours, socket path too long)",
          "doca_ctx_start of a consumer whose channel or wake-up descriptor cannot be created"},
         {"run softcomch doctor in the same environment: it names the variable or directory at "
          "fault",
          "check descriptor limits (ulimit -n) when many connections are open"}},
        {DOCA_ERROR_TIME_OUT,
         layer::transient,
         "Something waited too long. No Comch call returns it: a client whose server never "
         "appears stays STARTING instead.",
         {"a program's own timeout around a connection that never forms"},
         {"for a client stuck in STARTING: check the server name, that the server runs on the "
          "representor of this client's host function, and that both run in the same fabric "
          "(softcomch doctor in each side's environment)"}},
        {DOCA_ERROR_SHUTDOWN,
         layer::lifecycle,
         "The object is being shut down; pending work is flushed.",
         {"posted receive tasks completing with this status when their consumer stops",
          "a client whose handshake reached a server that was stopping (logged, the client goes "
          "IDLE)"},
         {"expected during a stop: free the tasks in their error callback",
          "a client refused this way: start it again once the server runs"}},
        {DOCA_ERROR_CONNECTION_RESET,
         layer::connection,
         "The peer reset the connection. SoftComch's Comch calls report a lost peer as "
         "DOCA_ERROR_CONNECTION_ABORTED instead; the legacy doca_comm_channel API returned it from "
         "sendto.",
         {"the peer process died or closed the connection"},
         {"treat the connection as gone: stop using it and let the disconnect handling run"}},
        {DOCA_ERROR_CONNECTION_ABORTED,
         layer::connection,
         "The connection was torn down: the peer stopped, disconnected or died.",
         {"send tasks not yet delivered when the peer went away complete with this status",
          "doca_comch_connection_update_info on a closed connection",
          "posted receive tasks of a consumer whose connection was lost",
          "a producer send whose consumer stopped taking completions"},
         {"stop and destroy the consumers and producers of the connection",
          "a client goes STOPPING and IDLE by itself: start it again to reconnect",
          "a server sees the disconnect event; its other connections are unaffected"}},
        {DOCA_ERROR_CONNECTION_INPROGRESS,
         layer::connection,
         "The connection is not established yet. DOCA documents it for "
         "doca_comch_connection_update_info; SoftComch never returns it (a program only gets "
         "connections that are established).",
         {"querying a connection before its connect event"},
         {"progress until the connection event (server) or RUNNING (client)"}},
        {DOCA_ERROR_NOT_CONNECTED,
         layer::lifecycle,
         "The object is not attached to what it needs: a context without a progress engine, or "
         "a connection that is closed.",
         {"doca_ctx_start or doca_ctx_stop on a context never given to doca_pe_connect_ctx",
          "*_task_send_alloc_init or doca_task_submit on a connection that is closed",
          "doca_ctx_start of a consumer or producer whose connection is closed",
          "doca_comch_server_disconnect of a connection already closed"},
         {"doca_pe_connect_ctx(pe, ctx) before doca_ctx_start",
          "watch the server's disconnect event and the client's state changes; do not use a "
          "connection after them"}},
        {DOCA_ERROR_NO_LOCK,
         layer::internal,
         "A lock could not be taken. No Comch call returns it.",
         {"not used by Comch"},
         {"report it with the SDK log"}},
        {DOCA_ERROR_NOT_FOUND,
         layer::lifecycle,
         "The named thing does not exist (yet, or any more).",
         {"a producer's doca_task_submit to a consumer id the peer never announced, or that "
          "expired",
          "doca_devinfo_create_list when no device is visible",
          "a client whose handshake found no server of that name (it keeps looking; logged)"},
         {"send only to ids received in the new-consumer event, and stop at the expired-consumer "
          "event",
          "check SOFTCOMCH_SIDE and the topology (softcomch caps)"}},
        {DOCA_ERROR_IO_FAILED,
         layer::environment,
         "An input/output operation failed. Comch calls do not return it (argp does, for an "
         "unreadable -j file).",
         {"a file that cannot be read"},
         {"check the path and its permissions"}},
        {DOCA_ERROR_BAD_STATE,
         layer::lifecycle,
         "The object is in the wrong state for this call.",
         {"configuration (set_*, *_register, *_set_conf) after doca_ctx_start",
          "allocating or submitting tasks before the context is RUNNING",
          "doca_comch_client_get_connection while the client is still STARTING",
          "doca_comch_consumer_create / _producer_create on a connection that is not "
          "established or is closing",
          "doca_ctx_start on a context that is not IDLE",
          "doca_comch_server_disconnect on a server that is not RUNNING"},
         {"follow the order create, configure, doca_pe_connect_ctx, doca_ctx_start, wait for "
          "RUNNING (and the connection), use, stop, progress until IDLE, destroy",
          "register callbacks and set sizes before doca_ctx_start"}},
        {DOCA_ERROR_UNSUPPORTED_VERSION,
         layer::environment,
         "Two parts speak different versions. Comch calls do not return it; SoftComch logs it "
         "when a client and a server of incompatible SoftComch builds meet (the client goes "
         "IDLE).",
         {"a DPU side and a host side built against different SoftComch installs"},
         {"rebuild both sides against one SoftComch (softcomch env shows which one builds "
          "pick)"}},
        {DOCA_ERROR_OPERATING_SYSTEM,
         layer::environment,
         "A system call failed underneath.",
         {"creating or mapping the shared memory of a connection or consumer (memfd_create, "
          "mmap)",
          "process_vm_writev failing for a reason other than permissions"},
         {"run softcomch doctor: it probes memfd_create, process_vm_writev and the descriptor "
          "limits"}},
        {DOCA_ERROR_DRIVER,
         layer::environment,
         "The layer below DOCA (driver, firmware) failed. SoftComch has no driver and never "
         "returns it.",
         {"on hardware: the mlx5 driver or the BlueField firmware"},
         {"on hardware: dmesg and the firmware tools; with SoftComch it does not occur"}},
        {DOCA_ERROR_UNEXPECTED,
         layer::internal,
         "An internal inconsistency: in SoftComch, an exception caught at the C API boundary.",
         {"a bug in the library"},
         {"report it with the SDK log at debug level"}},
        {DOCA_ERROR_ALREADY_EXIST,
         layer::lifecycle,
         "It exists already.",
         {"doca_ctx_start of a server while a live server of the same name serves the same host "
          "function in this fabric"},
         {"give each server a unique name per host function, or stop the other one (softcomch "
          "doctor lists the live endpoints)"}},
        {DOCA_ERROR_FULL,
         layer::resource,
         "No room left. Comch calls do not return it; a server at its client limit rejects "
         "further clients with it (logged, the client goes IDLE).",
         {"more clients than doca_comch_cap_get_max_clients on one server"},
         {"disconnect clients that are done (doca_comch_server_disconnect), or spread them over "
          "several servers"}},
        {DOCA_ERROR_EMPTY,
         layer::transient,
         "Nothing is available. Comch calls do not return it.",
         {"not used by Comch"},
         {"nothing to do"}},
        {DOCA_ERROR_IN_PROGRESS,
         layer::lifecycle,
         "Not a failure: the operation started and finishes asynchronously.",
         {"doca_ctx_start of a client (STARTING until its server is found) or a consumer "
          "(STARTING until the peer acknowledges it)",
          "doca_ctx_stop with work to drain (STOPPING until the last task is done), or on a "
          "context already STOPPING"},
         {"keep calling doca_pe_progress and act on the state callback (RUNNING, IDLE)"}},
        {DOCA_ERROR_TOO_BIG,
         layer::capability,
         "The request is larger than what takes it.",
         {"a producer send larger than the receive buffer the consumer posted (the send "
          "completes with this status; the buffer stays posted)"},
         {"post receive buffers as large as the largest message (up to "
          "doca_comch_consumer_cap_get_max_buf_size), or split the data"}},
        {DOCA_ERROR_AUTHENTICATION,
         layer::permission,
         "Authentication failed. Comch calls do not return it (the code is new in DOCA 3.0).",
         {"not used by Comch"},
         {"nothing Comch-specific"}},
        {DOCA_ERROR_BAD_CONFIG,
         layer::environment,
         "The configuration is invalid.",
         {"doca_ctx_start of a server or client with an unknown SOFTCOMCH_TRANSPORT",
          "doca_ctx_start of a producer with an invalid SOFTCOMCH_COPY, or of a consumer with an "
          "invalid SOFTCOMCH_MEMORY"},
         {"run softcomch doctor: it checks every SOFTCOMCH_* variable and names the valid "
          "values"}},
        {DOCA_ERROR_SKIPPED,
         layer::none,
         "The result is valid but earlier output was dropped. Comch calls do not return it.",
         {"not used by Comch"},
         {"nothing to do"}},
    };
    return table;
}

const code_entry *find_code(doca_error_t code)
{
    for (const auto &e : codes())
        if (e.code == code)
            return &e;
    return nullptr;
}

} // namespace softcomch::tools::explain
