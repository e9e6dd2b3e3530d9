// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the DOCA Core calls through which Comch programs meet most Comch errors:
// context start and stop, task submission and status, the progress engine, devices and
// representors (src/core/{ctx,pe,device}.cpp, src/capi/common, src/comch/*::do_start; doca-api.md
// 4.6).
#include "explain.hpp"

namespace softcomch::tools::explain {

namespace {

call_entry ctx_start()
{
    return {
        "doca_ctx_start",
        "doca_error_t",
        "starts a server, client, consumer or producer",
        {{DOCA_SUCCESS, "server and producer: RUNNING at once", "", origin::both},
         {DOCA_ERROR_IN_PROGRESS,
          "client: STARTING until it finds its server; consumer: STARTING until the peer "
          "acknowledges it. Normal, not a failure",
          "keep progressing; RUNNING comes through the state callback. A client that stays "
          "STARTING has not found its server: same name, the representor of this client's "
          "host function, same fabric (softcomch doctor)",
          origin::both},
         {DOCA_ERROR_BAD_STATE, "the context is not IDLE (already started, or stopping)",
          "start a context once; after a stop, wait for IDLE", origin::both},
         {DOCA_ERROR_NOT_CONNECTED,
          "the context is not connected to a progress engine; or (consumer, producer) its "
          "connection is closed, or the consumer could not be announced to the peer",
          "doca_pe_connect_ctx(pe, ctx) first; create fast-path objects on a live "
          "connection",
          origin::both},
         {DOCA_ERROR_ALREADY_EXIST,
          "server: a live server of the same name already serves this host function in this "
          "fabric",
          "use another name, or stop the other server (softcomch doctor lists live "
          "endpoints)",
          origin::softcomch},
         {DOCA_ERROR_BAD_CONFIG,
          "server, client: SOFTCOMCH_TRANSPORT names no known transport; producer: "
          "SOFTCOMCH_COPY is invalid; consumer: SOFTCOMCH_MEMORY is invalid",
          "unset the variable or fix its value (softcomch doctor)", origin::softcomch},
         {DOCA_ERROR_INITIALIZATION,
          "server, client: the fabric directory or the endpoint cannot be set up; consumer: "
          "its channel or wake-up descriptor cannot be created",
          "run softcomch doctor in the same environment", origin::both},
         {DOCA_ERROR_INVALID_VALUE,
          "ctx is NULL or destroyed; or a consumer with no receive-task pool "
          "(doca_comch_consumer_task_post_recv_set_conf)",
          "configure the consumer's pool before starting it", origin::both},
         {DOCA_ERROR_NOT_SUPPORTED,
          "consumer with SOFTCOMCH_MEMORY=shared: its mmap's memory cannot be made shared "
          "(not private anonymous memory, or a range with holes)",
          "leave SOFTCOMCH_MEMORY unset (auto falls back to process_vm_writev)", origin::softcomch},
         {DOCA_ERROR_NOT_PERMITTED,
          "consumer with SOFTCOMCH_MEMORY=shared: the kernel refused to remap its memory",
          "leave SOFTCOMCH_MEMORY unset", origin::softcomch},
         {DOCA_ERROR_OPERATING_SYSTEM,
          "consumer with SOFTCOMCH_MEMORY=shared: making its memory shared failed in a "
          "system call (memfd_create, mremap)",
          "see softcomch doctor (memfd_create)", origin::softcomch},
         {DOCA_ERROR_NO_MEMORY,
          "consumer with SOFTCOMCH_MEMORY=shared: no memory for the shared copy of its mmap", "",
          origin::softcomch}}};
}

call_entry ctx_stop()
{
    return {"doca_ctx_stop",
            "doca_error_t",
            "stops a context; it drains or flushes its work, then goes IDLE",
            {{DOCA_SUCCESS,
              "nothing to drain: STOPPING and IDLE happened inside the call (also for a "
              "context already IDLE)",
              "", origin::both},
             {DOCA_ERROR_IN_PROGRESS,
              "work is still in flight (sends being delivered, posted receives), or the context "
              "is already STOPPING",
              "keep progressing until the state callback reports IDLE, then destroy", origin::both},
             {DOCA_ERROR_NOT_CONNECTED, "the context has no progress engine",
              "connect it with doca_pe_connect_ctx", origin::both},
             bad_handle()}};
}

call_entry submit(std::string name, bool validates)
{
    call_entry e{
        std::move(name),
        "doca_error_t",
        validates ? "submits a task after checking its parameters"
                  : "hands a task to its context; the outcome comes through its "
                    "completion or error callback",
        {{DOCA_ERROR_INVALID_VALUE, "the task is NULL, free (not allocated) or already submitted",
          "submit each allocated task once; reuse it only after its callback", origin::both},
         {DOCA_ERROR_BAD_STATE,
          "the task's context is not RUNNING; a DMA, compress or SHA context also stops by "
          "itself after one of its tasks failed (the failed task's error callback first)",
          "submit while RUNNING; tasks of a stopping context are not accepted. After a failed "
          "engine task, read its status (doca_task_get_status), fix the cause and start the "
          "context again once it is IDLE",
          origin::both},
         {DOCA_ERROR_NOT_CONNECTED,
          "a control-path send or a consumer's receive whose connection is closed",
          "stop using the connection after its disconnect", origin::softcomch},
         {DOCA_ERROR_AGAIN,
          "producer send: the consumer has no receive buffer posted right now (control-"
          "path sends never answer AGAIN: they queue behind a full receive queue)",
          "retry; it clears as soon as the consumer posts a buffer, with no progress "
          "needed on the producer's side. Persistent AGAIN means the consumer side does "
          "not re-post its receives (or does not progress)",
          origin::both},
         {DOCA_ERROR_NOT_FOUND,
          "producer send: the consumer id is not (yet, or any more) on this connection",
          "send only to ids from the new-consumer event, and stop at its "
          "expired-consumer event",
          origin::softcomch}}};
    if (validates) {
        e.rows.push_back({DOCA_ERROR_INVALID_VALUE,
                          "the task's parameters are invalid (Comch: connection, buffer, length, "
                          "consumer id, immediate data larger than the consumer accepts; DMA, "
                          "compress, SHA: a released buffer, an empty source, a destination too "
                          "small, a chained list or a size over the device's limits, a partial "
                          "hash segment that is not a multiple of the block size; sync event: "
                          "a wait mask that is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes)",
                          "fix the task's parameters before submitting (the SDK error line says "
                          "which)",
                          origin::softcomch});
        e.rows.push_back({DOCA_ERROR_NOT_PERMITTED,
                          "DMA, compress, SHA: a buffer of an mmap the context's device was not "
                          "added to (or not started), or a destination whose mmap is read-only "
                          "(locally, or another process's memory exported "
                          "DOCA_ACCESS_FLAG_PCI_READ_ONLY)",
                          "doca_mmap_add_dev with the context's device before doca_mmap_start; "
                          "give the destination's mmap write access",
                          origin::softcomch});
        e.rows.push_back({DOCA_ERROR_NOT_SUPPORTED,
                          "compress, SHA: a buffer of an mmap created from another process's "
                          "export (only DMA works on another process's memory in this "
                          "emulation)",
                          "DMA the data into local memory first", origin::softcomch});
    }
    return e;
}

call_entry task_status()
{
    return {"doca_task_get_status",
            "doca_error_t",
            "the status a completed task finished with (what its error callback reports)",
            {{DOCA_SUCCESS,
              "the task completed (send delivered to the peer's queue, buffer "
              "received)",
              "", origin::both},
             {DOCA_ERROR_CONNECTION_ABORTED,
              "a send that could not be delivered because the peer stopped, disconnected or "
              "died; a posted receive whose connection was lost; a producer send whose consumer "
              "stopped taking completions",
              "the connection is gone: free the task; the disconnect handling follows",
              origin::softcomch},
             {DOCA_ERROR_SHUTDOWN,
              "a posted receive flushed because its consumer stopped; a DMA, compress, SHA or "
              "sync event task still queued when its context stopped (doca_ctx_stop, or the stop "
              "an engine context makes by itself after a failed task)",
              "expected during a stop: free the task. After a failed engine task, the task that "
              "failed is the one with another status",
              origin::softcomch},
             {DOCA_ERROR_TOO_BIG,
              "a producer send larger than the buffer the consumer posted (the buffer stays "
              "posted)",
              "post buffers as large as the largest message", origin::softcomch},
             {DOCA_ERROR_INVALID_VALUE, "task is NULL or freed", "", origin::both},
             {DOCA_ERROR_INVALID_VALUE,
              "a DMA, compress or SHA task that could not be executed at its turn (its context "
              "stops after it): a released buffer, an empty source, a destination too small, a "
              "chained list or a size over the device's limits, an access outside an imported "
              "range; compress: input that does not decode; SHA: a partial segment before the "
              "final one that is not a multiple of the block size. Or a sync event's wait task "
              "whose mask is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes",
              "doca_task_try_submit makes the buffer checks at submission; the SDK log (INFO) "
              "gives the reason",
              origin::both},
             {DOCA_ERROR_NOT_PERMITTED,
              "DMA, compress, SHA: a buffer of an mmap the context's device was not added to (or "
              "not started), or a destination without write access; DMA on an imported mmap, "
              "or a task of an imported sync event: the exporter revoked the export (stopped or "
              "destroyed the mmap, destroyed the event), or this process may not reach the "
              "exporting process",
              "doca_mmap_add_dev before doca_mmap_start; keep exported objects alive while the "
              "other side uses them",
              origin::both},
             {DOCA_ERROR_NOT_FOUND,
              "DMA on an imported mmap, or a task of an imported sync event: the exporting "
              "process has exited",
              "the other side is gone: stop using what it exported", origin::softcomch},
             {DOCA_ERROR_NOT_SUPPORTED,
              "compress, SHA: a buffer of an mmap created from another process's export (only "
              "DMA works on another process's memory in this emulation)",
              "DMA the data into local memory first", origin::softcomch}}};
}

} // namespace

void add_core_calls(std::vector<call_entry> &out)
{
    out.push_back(ctx_start());
    out.push_back(ctx_stop());
    out.push_back(
        {"doca_pe_connect_ctx",
         "doca_error_t",
         "attaches a context to a progress engine (before doca_ctx_start)",
         {{DOCA_ERROR_NOT_PERMITTED, "the context is already connected to a progress engine",
           "connect each context once", origin::both},
          {DOCA_ERROR_BAD_STATE, "the context is not IDLE", "connect before doca_ctx_start",
           origin::softcomch},
          bad_handle()}});
    out.push_back(
        {"doca_pe_destroy",
         "doca_error_t",
         "destroys a progress engine",
         {{DOCA_ERROR_IN_USE, "contexts are still connected to it, or graphs exist on it",
           "destroy the contexts (after they reached IDLE) and the graphs first", origin::both},
          bad_handle()}});
    out.push_back(no_status("doca_pe_progress", "uint8_t",
                            "runs callbacks; 1 if it did some work. Every Comch callback runs "
                            "inside it: a program that does not call it sees nothing happen"));
    out.push_back(submit("doca_task_submit", false));
    out.push_back(submit("doca_task_try_submit", true));
    call_entry ex = submit("doca_task_submit_ex", false);
    ex.rows.push_back({DOCA_ERROR_INVALID_VALUE, "flags holds unknown bits",
                       "pass DOCA_TASK_SUBMIT_FLAG_* values only", origin::softcomch});
    out.push_back(std::move(ex));
    out.push_back(task_status());
    out.push_back(no_status("doca_task_free", "void",
                            "returns a task to its pool; a task still in flight is abandoned and "
                            "returns without a callback"));
    out.push_back(
        {"doca_devinfo_create_list",
         "doca_error_t",
         "lists the devices this process sees",
         {{DOCA_ERROR_INITIALIZATION,
           "the emulated machine could not be set up: SOFTCOMCH_TOPOLOGY names an "
           "invalid file, or SOFTCOMCH_SIDE is neither host nor dpu",
           "fix the variable (the SDK error line names the file, place and problem; "
           "softcomch doctor too)",
           origin::softcomch},
          {DOCA_ERROR_NOT_FOUND, "no device is visible on this side", "", origin::softcomch},
          bad_handle()}});
    out.push_back(
        {"doca_devinfo_rep_create_list",
         "doca_error_t",
         "lists the representors an open DPU-side device manages",
         {{DOCA_ERROR_NOT_SUPPORTED,
           "the device is a host-side function, a sub-function, or on a BlueField in "
           "NIC mode: representors exist on the DPU side's PFs only",
           "run this on the DPU side, with its PF (03:00.0 on the default machine)", origin::both},
          {DOCA_ERROR_INVALID_VALUE, "an unknown filter, or NULL arguments",
           "pass DOCA_DEVINFO_REP_FILTER_NET (what NVIDIA's samples use)", origin::both}}});
    out.push_back({"doca_dev_open",
                   "doca_error_t",
                   "opens a device",
                   {{DOCA_ERROR_TOO_BIG, "the device is already open too many times",
                     "close what you opened", origin::softcomch},
                    bad_handle()}});
    out.push_back({"doca_dev_rep_open",
                   "doca_error_t",
                   "opens a representor (the server needs it)",
                   {{DOCA_ERROR_NOT_PERMITTED,
                     "this user may not open representors (the topology's privilege policy; on "
                     "hardware, the representor devices' permissions)",
                     "run the DPU side as root or as a user of the allowed group (softcomch caps "
                     "--list-rep-devs shows open_permitted)",
                     origin::softcomch},
                    {DOCA_ERROR_BAD_STATE, "the device that manages the representor is not open",
                     "open the device, list its representors, then open one", origin::softcomch},
                    bad_handle()}});
    out.push_back({"doca_dev_rep_close",
                   "doca_error_t",
                   "closes a representor",
                   {{DOCA_ERROR_IN_USE, "a server still uses the representor",
                     "destroy the server first", origin::softcomch},
                    bad_handle()}});
}

} // namespace softcomch::tools::explain
