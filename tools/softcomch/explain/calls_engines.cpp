// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the calls of the DOCA libraries programs pair with Comch (DMA, memory
// exports, sync events, graphs, Compress, SHA) for which an explanation helps most, and what each
// returns (include/doca_{dma,mmap,sync_event,graph,compress,sha}.h; src/capi/{dma,compress,sha},
// src/capi/common/{mmap,sync_event,graph}.cpp, src/core/{mmap,export_desc,graph,engine_ctx}.cpp,
// src/memory, src/sync_event, src/dma, src/compress, src/sha, and the shm transport's exports).
#include "explain.hpp"

namespace softcomch::tools::explain {

namespace {

// ---- shared rows ----

call_row args(std::string what)
{
    return {DOCA_ERROR_INVALID_VALUE, std::move(what) + " (the SDK error line names the argument)",
            "pass live objects and non-NULL outputs", origin::both};
}

call_row no_memory(std::string what)
{
    return {DOCA_ERROR_NO_MEMORY, std::move(what), "", origin::both};
}

call_row conf_held()
{
    return {DOCA_ERROR_BAD_STATE,
            "tasks of the previous configuration are still allocated (a new pool replaces the "
            "old one)",
            "free every task of the kind (doca_task_free) before configuring it again",
            origin::both};
}

call_row pool_empty(std::string conf_fn)
{
    return {DOCA_ERROR_NO_MEMORY,
            "every task of the pool is allocated (in flight or not yet freed), or no pool was "
            "configured (" +
                conf_fn + " before doca_ctx_start)",
            "progress the engine so completions come back and free or reuse the tasks in the "
            "callbacks",
            origin::both};
}

// The environment variables of SoftComch's transport, for the calls that export memory.
call_row bad_transport_config(std::string what)
{
    return {DOCA_ERROR_BAD_CONFIG,
            "SOFTCOMCH_TRANSPORT names no transport of this build" + std::move(what),
            "unset the variable or fix its value (softcomch doctor)", origin::softcomch};
}

// ---- DMA ----

call_entry dma_create()
{
    return {"doca_dma_create",
            "doca_error_t",
            "creates a DMA context (IDLE) on a device",
            {args("dev is NULL or closed, or dma is NULL"),
             no_memory("the context could not be allocated")}};
}

call_entry dma_set_conf()
{
    return {"doca_dma_task_memcpy_set_conf",
            "doca_error_t",
            "configures the DMA context's memcpy tasks: both callbacks and the pool size (before "
            "doca_ctx_start)",
            {not_idle(),
             conf_held(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL (both the completion and the error callback are required), or "
              "num_memcpy_tasks is 0 or above doca_dma_cap_get_max_num_tasks",
              "pass both callbacks and a pool size within the cap", origin::both},
             bad_handle()}};
}

call_entry dma_alloc()
{
    return {"doca_dma_task_memcpy_alloc_init",
            "doca_error_t",
            "takes a memcpy task from the pool and sets its source and destination (the buffers "
            "are checked at doca_task_try_submit or when the task runs, not here)",
            {not_running("DMA context"), pool_empty("doca_dma_task_memcpy_set_conf"),
             args("dma, src, dst or task is NULL, or an object was destroyed")}};
}

// ---- memory exports ----

call_entry mmap_export_pci()
{
    return {
        "doca_mmap_export_pci",
        "doca_error_t",
        "makes the descriptor with which the other side of the PCIe link maps this memory "
        "(doca_mmap_create_from_export)",
        {{DOCA_ERROR_BAD_STATE, "the mmap is not started",
          "doca_mmap_set_memrange, _set_permissions, _add_dev, then doca_mmap_start, then export",
          origin::both},
         {DOCA_ERROR_NOT_PERMITTED,
          "the mmap has no PCI permission, or it was itself created from an export (an "
          "imported map cannot be exported again)",
          "doca_mmap_set_permissions with DOCA_ACCESS_FLAG_PCI_READ_ONLY or "
          "DOCA_ACCESS_FLAG_PCI_READ_WRITE before doca_mmap_start",
          origin::both},
         {DOCA_ERROR_NOT_FOUND, "dev was not added to this mmap",
          "doca_mmap_add_dev(mmap, dev) before doca_mmap_start, with the device you export for",
          origin::both},
         {DOCA_ERROR_NO_MEMORY,
          "this process already has 4096 exports, or (SOFTCOMCH_MEMORY=shared) no memory to "
          "share the range",
          "destroy exported mmaps you no longer need", origin::softcomch},
         bad_transport_config(", or SOFTCOMCH_MEMORY is not one of auto, shared, pvw"),
         {DOCA_ERROR_NOT_SUPPORTED,
          "SOFTCOMCH_MEMORY=shared: the range cannot be shared (a range with holes, "
          "file-backed private memory, a stack, or a mixture of kinds)",
          "leave SOFTCOMCH_MEMORY unset (auto falls back to process_vm_readv/writev)",
          origin::softcomch},
         {DOCA_ERROR_IN_USE,
          "SOFTCOMCH_MEMORY=shared: whole pages of the range are already shared by another "
          "export or a Comch consumer (the same memory exported for another device, or "
          "through another mmap)",
          "leave SOFTCOMCH_MEMORY unset", origin::softcomch},
         {DOCA_ERROR_NOT_PERMITTED,
          "SOFTCOMCH_MEMORY=shared: the kernel refused to open the memory's file for sharing",
          "leave SOFTCOMCH_MEMORY unset", origin::softcomch},
         {DOCA_ERROR_OPERATING_SYSTEM,
          "SOFTCOMCH_MEMORY=shared: making the range shared failed in a system call "
          "(memfd_create, mremap, /proc/self/maps)",
          "see softcomch doctor (memfd_create)", origin::softcomch},
         args("mmap or dev is NULL or destroyed, or an output pointer is NULL")}};
}

// The refusals of an import (doca_mmap_create_from_export, doca_sync_event_create_from_export):
// the descriptor, the importing device, then the exporting process.
std::vector<call_row> import_rows(const std::string &what, const std::string &export_fn,
                                  const std::string &other_kind, const std::string &revoked_by)
{
    return {
        {DOCA_ERROR_INVALID_VALUE,
         "the bytes are not " + what +
             " export: wrong length (truncated or padded in transit), made by real DOCA or "
             "another SoftComch version, the export of " +
             other_kind + ", or malformed (the SDK error line gives the reason)",
         "carry the exact bytes and length " + export_fn +
             " gave, unchanged, to a program built against the same SoftComch",
         origin::both},
        {DOCA_ERROR_NOT_PERMITTED,
         "dev is not on the other side of the same BlueField as the exporting function: a device "
         "of another BlueField, or of the exporter's own side (both host, or both DPU)",
         "import with a device of the other side of the exporter's PCIe link (an export made on "
         "the host's b1:00.0 is imported with the DPU's 03:00.0 on the default machine, and the "
         "reverse)",
         origin::both},
        {DOCA_ERROR_NOT_PERMITTED,
         "the export was revoked (" + revoked_by +
             "), or this process may not reach the exporting process (another user, a process "
             "that is not dumpable, or Yama's ptrace_scope 2 or 3)",
         "keep the exported object alive while the other side uses it; run both programs as "
         "the same user (softcomch doctor)",
         origin::softcomch},
        {DOCA_ERROR_NOT_FOUND,
         "the exporting process has exited (or its pid now names another process)",
         "import while the exporter runs; a new run of the exporter makes a new export",
         origin::softcomch},
        {DOCA_ERROR_NOT_SUPPORTED,
         "the descriptor names a transport this build does not have, or the kernel has no "
         "pidfd_getfd (Linux 5.6 or later is needed)",
         "build both programs against the same SoftComch; see softcomch doctor", origin::softcomch},
        {DOCA_ERROR_OPERATING_SYSTEM,
         "a system call failed while reaching the exporting process (pidfd_open, pidfd_getfd)",
         "see softcomch doctor", origin::softcomch}};
}

call_entry mmap_create_from_export()
{
    call_entry e{"doca_mmap_create_from_export", "doca_error_t",
                 "builds an mmap (already started, not reconfigurable) of memory another process "
                 "exported with doca_mmap_export_pci; its bufs are for DMA tasks",
                 import_rows("an mmap", "doca_mmap_export_pci",
                             "a sync event (doca_sync_event_export_to_remote_pci)",
                             "the exporting mmap was stopped or destroyed")};
    e.rows.push_back(
        no_memory("the exported pages could not be mapped here, or no memory for the mmap"));
    e.rows.push_back(args("export_desc, dev or mmap is NULL, export_desc_len is 0, or dev is not "
                          "an open device"));
    return e;
}

// ---- sync events ----

call_entry sync_location(std::string name, std::string who, std::string where)
{
    return {std::move(name),
            "doca_error_t",
            "declares that the event's " + who + " runs " + where + " (before start or export)",
            {{DOCA_ERROR_INVALID_VALUE,
              "event (or dev) is NULL or destroyed, the event was created from an export (an "
              "imported handle cannot be configured), or it was already started or exported",
              "declare the locations right after doca_sync_event_create, before "
              "doca_sync_event_start, doca_ctx_start or doca_sync_event_export_to_remote_pci",
              origin::both}}};
}

call_entry sync_location_none(std::string name, std::string who, std::string where,
                              std::string missing)
{
    return {std::move(name),
            "doca_error_t",
            "declares that the event's " + who + " runs " + where,
            {{DOCA_ERROR_NOT_SUPPORTED, std::move(missing),
              "use a CPU or remote-PCI location with SoftComch", origin::softcomch},
             bad_handle()}};
}

// Placing the counter where the other side of the link can reach it: the rows of the first
// call that does it (export, or start with a remote-PCI location).
void add_placement_rows(std::vector<call_row> &rows)
{
    rows.push_back(bad_transport_config(""));
    rows.push_back(no_memory("the shared page of the counter could not be created (memory, or "
                             "the process's descriptor limit)"));
    rows.push_back({DOCA_ERROR_OPERATING_SYSTEM,
                    "a system call failed creating the shared page of the counter (memfd_create, "
                    "mmap)",
                    "see softcomch doctor (memfd_create)", origin::softcomch});
}

call_entry sync_export()
{
    call_entry e{
        "doca_sync_event_export_to_remote_pci",
        "doca_error_t",
        "the bytes with which the other side of the PCIe link imports the event "
        "(doca_sync_event_create_from_export)",
        {{DOCA_ERROR_NOT_SUPPORTED,
          "the event has no remote-PCI publisher or subscriber location, its counter is the "
          "program's memory (doca_sync_event_set_addr), or it was itself created from an export",
          "doca_sync_event_add_publisher_location_remote_pci (or _subscriber_) before starting "
          "it, and leave the counter to the library",
          origin::both}}};
    add_placement_rows(e.rows);
    e.rows.push_back(args("event or dev is NULL or destroyed, or an output pointer is NULL"));
    return e;
}

call_entry sync_create_from_export()
{
    call_entry e{"doca_sync_event_create_from_export", "doca_error_t",
                 "builds a handle on an event another process exported with "
                 "doca_sync_event_export_to_remote_pci",
                 import_rows("a sync event's", "doca_sync_event_export_to_remote_pci",
                             "an mmap (doca_mmap_export_pci)",
                             "the exporting event was destroyed")};
    e.rows.push_back(no_memory("the handle could not be allocated"));
    e.rows.push_back(args("dev, data or event is NULL, sz is 0, or dev is not an open device"));
    return e;
}

call_entry sync_start()
{
    call_entry e{"doca_sync_event_start",
                 "doca_error_t",
                 "starts an event on its own, for the synchronous calls (get, update, wait)",
                 {{DOCA_ERROR_BAD_STATE,
                   "the event is already started, or it is used as a context "
                   "(doca_sync_event_as_ctx was called)",
                   "start an event once, either with doca_sync_event_start or, as a context, "
                   "with doca_ctx_start",
                   origin::both}}};
    add_placement_rows(e.rows);
    e.rows.push_back(bad_handle());
    return e;
}

call_entry sync_wait(std::string name, std::string condition, bool yield)
{
    return {std::move(name),
            "doca_error_t",
            "spins until " + condition + (yield ? ", calling sched_yield() between reads" : ""),
            {{DOCA_SUCCESS,
              "the condition held. There is no timeout: the call returns only then. An imported "
              "event whose exporter exited or destroyed the event logs one warning and can then "
              "only be ended by this process's own update",
              "a wait that never returns: check the value and mask against what the other side "
              "sets, and that it updates this event (its export, not another)",
              origin::both},
             {DOCA_ERROR_INVALID_VALUE,
              "event is NULL or destroyed, or not started (doca_sync_event_start, or "
              "doca_ctx_start on doca_sync_event_as_ctx)",
              "start the event before waiting on it", origin::both}}};
}

call_entry sync_task_conf(std::string name, std::string kind)
{
    return {std::move(name),
            "doca_error_t",
            "configures the event's " + kind +
                " tasks: both callbacks and the pool size (0 gives one task)",
            {{DOCA_ERROR_NOT_PERMITTED,
              "the event's context is not IDLE (sync events answer NOT_PERMITTED here, where "
              "other contexts answer BAD_STATE)",
              "configure before doca_ctx_start, or stop the context and progress until IDLE",
              origin::both},
             conf_held(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL (both are required), or num_tasks is above 8192",
              "pass both callbacks", origin::both},
             bad_handle()}};
}

call_entry sync_task_alloc(std::string name, std::string kind, std::string conf_fn,
                           std::string invalid, bool wait)
{
    return {std::move(name),
            "doca_error_t",
            "takes a " + kind + " task from the event's pool",
            {{DOCA_ERROR_INVALID_VALUE, std::move(invalid),
              wait ? "a wait mask is 0 (any value) or a run of 1, 2, 4 or 8 whole 0xff bytes"
                   : "pass live objects and non-NULL pointers",
              origin::both},
             not_running("event's context"),
             pool_empty(std::move(conf_fn))}};
}

// ---- graphs ----

call_entry graph_start()
{
    return {"doca_graph_start",
            "doca_error_t",
            "starts a graph: instances may be created from then on",
            {{DOCA_SUCCESS, "started (also for a graph already started)", "", origin::both},
             {DOCA_ERROR_BAD_STATE,
              "the graph is not configured (doca_graph_set_conf), has no context node, or a "
              "context of one of its nodes is destroyed, not connected to the graph's progress "
              "engine or not RUNNING; or a sub-graph of a node was stopped",
              "configure the graph and start every context of its nodes (on the graph's engine) "
              "first; the SDK error line names the node",
              origin::both},
             bad_handle()}};
}

call_entry graph_add_dependency()
{
    return {"doca_graph_add_dependency",
            "doca_error_t",
            "makes node `to` start only after node `from` completed (before doca_graph_start)",
            {{DOCA_ERROR_NOT_PERMITTED,
              "the dependency would close a cycle (`from` already depends on `to`), or `from` "
              "and `to` are the same node",
              "a graph is acyclic: check the order of the two nodes", origin::both},
             {DOCA_ERROR_BAD_STATE, "the graph is started",
              "add nodes and dependencies before doca_graph_start (or after doca_graph_stop)",
              origin::both},
             args("graph, from or to is NULL or destroyed, or a node belongs to another graph")}};
}

call_entry graph_instance_submit()
{
    return {"doca_graph_instance_submit",
            "doca_error_t",
            "submits an instance: its root nodes start; the outcome comes through the graph's "
            "completion or error callback",
            {{DOCA_ERROR_IN_USE,
              "the instance is already submitted (in flight), it is the data of another "
              "instance's sub-graph node (it runs with its parent), or the sub-graph instance of "
              "one of its nodes is submitted",
              "submit again only after the completion or error callback", origin::both},
             {DOCA_ERROR_INVALID_VALUE,
              "a node has no data in this instance (doca_graph_instance_set_ctx_node_data, "
              "_set_user_node_data, _set_sub_graph_node_data), or a root node's task was freed "
              "or is already submitted on its own",
              "give every node its data; a task set as node data is submitted by the graph, not "
              "by the program",
              origin::both},
             {DOCA_ERROR_BAD_STATE,
              "a root node's task could not be submitted because its context is not RUNNING any "
              "more (stopped, or stopped by itself after a failed task), and nothing of the "
              "instance was in flight",
              "restart the context; a failed task of an engine context (DMA, compress, SHA) "
              "stops the context",
              origin::both},
             bad_handle()}};
}

// ---- Compress ----

// The NOT_SUPPORTED row of a task kind the device's model lacks.
call_row no_engine(std::string kind, std::string text, std::string models)
{
    return {DOCA_ERROR_NOT_SUPPORTED,
            "the device's BlueField has no " + text + " engine: " + models +
                ". The BlueField's model decides (docs/topology.md, \"model\"), whatever the "
                "context's state",
            "check doca_compress_cap_task_" + kind +
                "_is_supported first and fall back to software (NVIDIA's file_compression "
                "compresses with zlib when the device cannot); or run on the other model: "
                "SOFTCOMCH_TOPOLOGY=bluefield-2 (or bluefield-3) gives the built-in machine as "
                "that model, or set \"model\" in a topology file",
            origin::both};
}

call_entry compress_conf(std::string kind, std::string text, call_row unsupported)
{
    return {"doca_compress_task_" + kind + "_set_conf",
            "doca_error_t",
            "configures the compress context's " + text +
                " tasks: both callbacks and the pool size (before doca_ctx_start)",
            {std::move(unsupported),
             not_idle(),
             conf_held(),
             {DOCA_ERROR_INVALID_VALUE,
              "a callback is NULL (both are required), or num_tasks is 0 or, with the other "
              "task kinds' pools, above doca_compress_cap_get_max_num_tasks",
              "pass both callbacks; the four kinds share the context's tasks", origin::both},
             bad_handle()}};
}

call_entry compress_alloc(std::string kind, std::string text)
{
    return {
        "doca_compress_task_" + kind + "_alloc_init",
        "doca_error_t",
        "takes a " + text + " task from the pool and sets its buffers (checked when the task runs)",
        {not_running("compress context"), pool_empty("doca_compress_task_" + kind + "_set_conf"),
         args("compress, src_buff, dst_buff or task is NULL, or an object was destroyed")}};
}

// ---- SHA ----

call_entry sha_create()
{
    return {"doca_sha_create",
            "doca_error_t",
            "creates a SHA context (IDLE) on a device",
            {{DOCA_ERROR_NOT_SUPPORTED,
              "the device's BlueField has no SHA engine: only a BlueField-2 has one; a "
              "BlueField-3 (the default model) has none (docs/topology.md, \"model\")",
              "run SHA programs on a BlueField-2: SOFTCOMCH_TOPOLOGY=bluefield-2 gives the "
              "built-in machine as that model (or \"model\": \"BlueField-2\" in a topology "
              "file); or hash in software. doca_sha_cap_task_hash_get_supported tells "
              "beforehand",
              origin::both},
             args("dev is NULL or closed, or sha is NULL"),
             no_memory("the context could not be allocated")}};
}

call_entry sha_conf(std::string kind, std::string text, std::string other)
{
    return {"doca_sha_task_" + kind + "_set_conf",
            "doca_error_t",
            "configures the SHA context's " + text +
                " tasks: both callbacks and 2^log_num_tasks tasks (before doca_ctx_start)",
            {{DOCA_ERROR_INVALID_VALUE,
              "2^log_num_tasks tasks, with the " + other +
                  " tasks already configured, exceed doca_sha_cap_get_max_num_tasks (the "
                  "argument is a base-2 logarithm: 0 means one task), or a callback is NULL",
              "pass the logarithm of the pool size, and both callbacks", origin::both},
             not_idle(),
             conf_held(),
             bad_handle()}};
}

call_entry sha_alloc(std::string kind, std::string text)
{
    return {
        "doca_sha_task_" + kind + "_alloc_init",
        "doca_error_t",
        "takes a " + text +
            " task from the pool and sets its algorithm and buffers (checked when the task runs)",
        {not_running("SHA context"), pool_empty("doca_sha_task_" + kind + "_set_conf"),
         args("sha, src_buf, dst_buf or task is NULL or destroyed, or the algorithm is not a "
              "doca_sha_algorithm")}};
}

call_entry sha_partial_setter(std::string name, std::string what, std::string invalid)
{
    return {std::move(name),
            "doca_error_t",
            "sets the partial hash task's " + what + " (only while no session is under way)",
            {{DOCA_ERROR_BAD_STATE,
              "a session is under way: its first segment was submitted, and neither "
              "doca_sha_task_partial_hash_reset nor the completion of its final segment ended "
              "it; or the task is in flight",
              "call doca_sha_task_partial_hash_reset first (it drops the running digest), or set "
              "it before the first segment of the next session",
              origin::both},
             {DOCA_ERROR_INVALID_VALUE, std::move(invalid), "", origin::both}}};
}

} // namespace

void add_engine_calls(std::vector<call_entry> &out)
{
    // ---- DMA ----
    out.push_back(dma_create());
    out.push_back(dma_set_conf());
    out.push_back(dma_alloc());

    // ---- memory exports ----
    out.push_back(mmap_export_pci());
    out.push_back(
        {"doca_mmap_export_rdma",
         "doca_error_t",
         "makes a descriptor for RDMA access to this memory",
         {{DOCA_ERROR_NOT_SUPPORTED, "RDMA is not emulated by SoftComch",
           "use doca_mmap_export_pci: the other side of the same BlueField", origin::softcomch},
          bad_handle()}});
    out.push_back(mmap_create_from_export());

    // ---- sync events ----
    out.push_back({"doca_sync_event_create",
                   "doca_error_t",
                   "creates an event (not started; counter 0)",
                   {args("event is NULL"), no_memory("the event could not be allocated")}});
    out.push_back(sync_create_from_export());
    out.push_back(sync_location("doca_sync_event_add_publisher_location_cpu", "publisher",
                                "on a CPU of this side of the link"));
    out.push_back(sync_location_none("doca_sync_event_add_publisher_location_dpa", "publisher",
                                     "on a DPA", "no DPA is emulated"));
    out.push_back(sync_location_none("doca_sync_event_add_publisher_location_gpu", "publisher",
                                     "on a GPU", "no GPU is emulated"));
    out.push_back(sync_location("doca_sync_event_add_publisher_location_remote_pci", "publisher",
                                "on the other side of the PCIe link (the event will be exported)"));
    out.push_back(sync_location_none("doca_sync_event_add_publisher_location_remote_net",
                                     "publisher", "on another machine, over the network",
                                     "events across the network are not emulated (remote PCI is)"));
    out.push_back(sync_location("doca_sync_event_add_subscriber_location_cpu", "subscriber",
                                "on a CPU of this side of the link"));
    out.push_back(sync_location_none("doca_sync_event_add_subscriber_location_dpa", "subscriber",
                                     "on a DPA", "no DPA is emulated"));
    out.push_back(sync_location_none("doca_sync_event_add_subscriber_location_gpu", "subscriber",
                                     "on a GPU", "no GPU is emulated"));
    out.push_back(sync_location("doca_sync_event_add_subscriber_location_remote_pci", "subscriber",
                                "on the other side of the PCIe link (the event will be exported)"));
    out.push_back(sync_start());
    out.push_back(sync_export());
    out.push_back(sync_wait("doca_sync_event_wait_gt", "(counter & mask) > value", false));
    out.push_back(sync_wait("doca_sync_event_wait_gt_yield", "(counter & mask) > value", true));
    out.push_back(sync_wait("doca_sync_event_wait_eq", "(counter & mask) == value", false));
    out.push_back(sync_wait("doca_sync_event_wait_eq_yield", "(counter & mask) == value", true));
    out.push_back(sync_wait("doca_sync_event_wait_neq", "(counter & mask) != value", false));
    out.push_back(sync_wait("doca_sync_event_wait_neq_yield", "(counter & mask) != value", true));
    out.push_back(sync_task_conf("doca_sync_event_task_get_set_conf", "get"));
    out.push_back(sync_task_alloc(
        "doca_sync_event_task_get_alloc_init", "get", "doca_sync_event_task_get_set_conf",
        "event, ret_val_ptr or task is NULL, or event was destroyed", false));
    out.push_back(sync_task_conf("doca_sync_event_task_notify_set_set_conf", "notify-set"));
    out.push_back(sync_task_alloc("doca_sync_event_task_notify_set_alloc_init", "notify-set",
                                  "doca_sync_event_task_notify_set_set_conf",
                                  "event or task is NULL, or event was destroyed", false));
    out.push_back(sync_task_conf("doca_sync_event_task_notify_add_set_conf", "notify-add"));
    out.push_back(sync_task_alloc("doca_sync_event_task_notify_add_alloc_init", "notify-add",
                                  "doca_sync_event_task_notify_add_set_conf",
                                  "event, fetched_val_ptr or task is NULL, or event was "
                                  "destroyed",
                                  false));
    out.push_back(sync_task_conf("doca_sync_event_task_wait_eq_set_conf", "wait-eq"));
    out.push_back(sync_task_alloc("doca_sync_event_task_wait_eq_alloc_init", "wait-eq",
                                  "doca_sync_event_task_wait_eq_set_conf",
                                  "the mask is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes "
                                  "(0xff, 0xffff, 0xffffffff, ~0, or such a run shifted by whole "
                                  "bytes); or event or task is NULL",
                                  true));
    out.push_back(sync_task_conf("doca_sync_event_task_wait_neq_set_conf", "wait-neq"));
    out.push_back(sync_task_alloc("doca_sync_event_task_wait_neq_alloc_init", "wait-neq",
                                  "doca_sync_event_task_wait_neq_set_conf",
                                  "the mask is not 0 or 1, 2, 4 or 8 consecutive 0xff bytes; or "
                                  "event or task is NULL",
                                  true));

    // ---- graphs ----
    out.push_back(graph_start());
    out.push_back({"doca_graph_stop",
                   "doca_error_t",
                   "stops a graph",
                   {{DOCA_SUCCESS, "stopped (also for a graph not started)", "", origin::both},
                    {DOCA_ERROR_IN_USE, "instances of the graph exist",
                     "destroy every instance (doca_graph_instance_destroy) first", origin::both},
                    bad_handle()}});
    out.push_back({"doca_graph_destroy",
                   "doca_error_t",
                   "destroys a graph and its nodes",
                   {{DOCA_ERROR_BAD_STATE, "the graph is started",
                     "doca_graph_stop first (after destroying its instances)", origin::both},
                    {DOCA_ERROR_IN_USE, "nodes of other graphs run this graph as their sub-graph",
                     "destroy those graphs first", origin::softcomch},
                    bad_handle()}});
    out.push_back(graph_add_dependency());
    out.push_back(graph_instance_submit());
    out.push_back(
        {"doca_graph_instance_destroy",
         "doca_error_t",
         "destroys an instance (its tasks stay the program's)",
         {{DOCA_ERROR_IN_USE,
           "the instance is submitted, or it is the data of another instance's sub-graph node",
           "wait for its completion or error callback; destroy the parent instance first",
           origin::both},
          bad_handle()}});

    // ---- Compress ----
    out.push_back({"doca_compress_create",
                   "doca_error_t",
                   "creates a compress context (IDLE) on a device; it succeeds on every model: "
                   "the task kinds' *_set_conf calls refuse what the model lacks",
                   {args("dev is NULL or closed, or compress is NULL"),
                    no_memory("the context could not be allocated")}});
    out.push_back(compress_conf("compress_deflate", "deflate compression",
                                no_engine("compress_deflate", "deflate compression",
                                          "only a BlueField-2 compresses; a BlueField-3 (the "
                                          "default model) decompresses only")));
    out.push_back(compress_alloc("compress_deflate", "deflate compression"));
    out.push_back(compress_conf("decompress_deflate", "deflate decompression",
                                {DOCA_ERROR_NOT_SUPPORTED,
                                 "the device cannot decompress deflate (both BlueField models "
                                 "can: SoftComch does not refuse it)",
                                 "", origin::doca}));
    out.push_back(compress_alloc("decompress_deflate", "deflate decompression"));
    out.push_back(compress_conf("decompress_lz4_stream", "LZ4 stream decompression",
                                no_engine("decompress_lz4_stream", "LZ4 decompression",
                                          "a BlueField-3 (the default model) decompresses LZ4; "
                                          "a BlueField-2 does not")));
    out.push_back(compress_alloc("decompress_lz4_stream", "LZ4 stream decompression"));
    out.push_back(compress_conf("decompress_lz4_block", "LZ4 block decompression",
                                no_engine("decompress_lz4_block", "LZ4 decompression",
                                          "a BlueField-3 (the default model) decompresses LZ4; "
                                          "a BlueField-2 does not")));
    out.push_back(compress_alloc("decompress_lz4_block", "LZ4 block decompression"));

    // ---- SHA ----
    out.push_back(sha_create());
    out.push_back(sha_conf("hash", "hash", "partial hash"));
    out.push_back(sha_alloc("hash", "hash"));
    out.push_back(sha_conf("partial_hash", "partial hash", "hash"));
    out.push_back(sha_alloc("partial_hash", "partial hash"));
    out.push_back(sha_partial_setter("doca_sha_task_partial_hash_set_dst", "destination buffer",
                                     "task or dst_buf is NULL, or the task was freed"));
    out.push_back(sha_partial_setter("doca_sha_task_partial_hash_set_algorithm", "algorithm",
                                     "the task is NULL or freed, or the algorithm is not a "
                                     "doca_sha_algorithm"));
}

} // namespace softcomch::tools::explain
