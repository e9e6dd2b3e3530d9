// SPDX-License-Identifier: Apache-2.0
//
// Version-matrix rows of the DOCA libraries SoftComch implements beside Comch: DMA (doca-dma),
// Compress (doca-compress), SHA (doca-sha), and the DOCA Core parts they use (doca-common: mmap
// export, sync events, graphs, mmap advise). Headers, pkg-config modules, libraries, the API
// generations (jobs on a work queue up to 2.2, tasks on a progress engine from 2.5), every function
// of include/doca_dma.h, and every capability `softcomch caps --json` prints in its doca-dma,
// doca-compress and doca-sha groups (inventory/devices.cpp, add_engines).
//
// The sources (matrix.hpp, namespace sources): a 2.2.0080 header set, a 2.5.0108 install tree, the
// 2.6.0058 packages and the 2.8.0081 package listing (ssbandjl/doca: file_list, dpkg_doca_log),
// the 3.0.0058 header set, NVIDIA's samples of 3.0.0 and NVIDIA's guides. No 2.7, 2.9 or 2.0 (and
// older) headers of these libraries were available: such a release is "not checked", and a first
// release is the first one the sources show.
#include <array>
#include <string>
#include <string_view>

#include "matrix.hpp"

namespace softcomch::tools::version_matrix {

namespace {

struct engine_row {
    std::string_view library;
    std::string_view capability;
    std::string_view display_name;
    std::string_view min;
    std::string_view max; // empty: still available
    std::string_view url;
    std::string_view quote;
};

constexpr std::string_view dma = "doca-dma";
constexpr std::string_view compress = "doca-compress";
constexpr std::string_view sha = "doca-sha";
constexpr std::string_view common = "doca-common";
// Rows that ended while DOCA had only the umbrella pkg-config module (as the doca_cc_* rows).
constexpr std::string_view umbrella = "doca";

constexpr std::array rows_table{
    // ---- API generations and features ----
    engine_row{dma, "dma_task_api", "DMA memcpy task on a progress engine (doca_dma_task_memcpy_*)",
               "2.5.0", "", sources::tree_2_5,
               "doca_dma.h of 2.5.0108 declares the memcpy task (doca_dma_task_memcpy_set_conf, "
               "_alloc_init, _as_task, the src/dst getters and setters) and the "
               "doca_dma_cap_task_memcpy_* queries, all DOCA_STABLE, as do the 2.6.0058 and "
               "3.0.0058 headers; doca_dma.h of 2.2.0080 has the job API only. The guides agree: "
               "the 2.5.0 DOCA DMA guide describes tasks, the 2.2.0 DMA Programming Guide jobs "
               "submitted to a work queue."},
    engine_row{umbrella, "dma_job_api", "DMA memcpy job on a work queue (doca_dma_job_memcpy)",
               "1.3.0", "2.2.0", sources::dma_guide_2_2,
               "The DMA Programming Guides from the DOCA 1.3 archive (the v1.3 PDF of May 2022; "
               "the archive page titles itself DOCA SDK v0.4) to 2.2.1 describe memcpy jobs "
               "submitted to a work queue; doca_dma.h of 2.2.0080 declares struct "
               "doca_dma_job_memcpy and DOCA_DMA_JOB_MEMCPY, checked with "
               "doca_dma_job_get_supported. The 2.5.0108 and 2.6.0058 headers have no "
               "doca_dma_job_* and no doca_workq: the memcpy task replaced it in 2.5. 1.2 and "
               "earlier were not checked."},
    engine_row{compress, "compress_task_api",
               "Compress tasks on a progress engine (doca_compress_task_*)", "2.5.0", "",
               sources::tree_2_5,
               "doca_compress.h of 2.5.0108 declares the compress_deflate, decompress_deflate and "
               "decompress_lz4 tasks with doca_compress_cap_task_* queries; that of 2.2.0080 has "
               "jobs instead (DOCA_COMPRESS_DEFLATE_JOB, DOCA_DECOMPRESS_DEFLATE_JOB, "
               "DOCA_DECOMPRESS_LZ4_JOB, checked with doca_compress_job_get_supported)."},
    engine_row{sha, "sha_task_api",
               "SHA hash and partial-hash tasks (doca_sha_task_hash_*, "
               "doca_sha_task_partial_hash_*)",
               "2.5.0", "", sources::tree_2_5,
               "doca_sha.h of 2.5.0108 declares the hash and partial-hash tasks with "
               "doca_sha_cap_task_hash_get_supported and doca_sha_cap_task_partial_hash_get_"
               "supported; that of 2.2.0080 has jobs instead, partial hashing as "
               "DOCA_SHA_JOB_SHA1/256/512_PARTIAL jobs in a doca_sha_partial_session."},
    engine_row{common, "sync_event_task_api",
               "sync event tasks on a progress engine (doca_sync_event_task_*)", "2.5.0", "",
               sources::tree_2_5,
               "doca_sync_event.h of 2.5.0108 declares the get, notify_set, notify_add and wait_gt "
               "tasks with doca_sync_event_cap_task_*_is_supported; that of 2.2.0080 has jobs "
               "instead (DOCA_SYNC_EVENT_JOB_WAIT_GT, _GET, _UPDATE_SET, "
               "_UPDATE_ADD, checked with doca_sync_event_job_get_supported). The 3.0.0058 header "
               "has wait_eq and wait_neq tasks where 2.5 and 2.6 had wait_gt."},
    engine_row{common, "graph_pe_api",
               "DOCA Graph on a progress engine (doca_graph_create(pe, ...), "
               "doca_graph_node_create_from_*, doca_graph_instance_submit)",
               "2.5.0", "", sources::tree_2_5,
               "doca_graph.h of 2.5.0108 declares the graph of today: created on a doca_pe, nodes "
               "from contexts' tasks, user callbacks and sub-graphs, instances submitted with "
               "doca_graph_instance_submit; so do the 2.6.0058 and 3.0.0058 headers "
               "(DOCA_EXPERIMENTAL in all three)."},
    engine_row{
        umbrella, "graph_workq_api",
        "DOCA Graph on a work queue (doca_graph_ctx_node_create, doca_graph_workq_add, "
        "doca_workq_graph_submit)",
        "2.2.0", "2.2.0", sources::headers_2_2,
        "doca_graph.h of 2.2.0080 declares a graph of jobs: doca_graph_create(graph) with no "
        "progress engine, doca_graph_ctx_node_create(graph, job_type, ctx, ...), "
        "doca_graph_user_node_create, doca_graph_workq_add and doca_workq_graph_submit; the "
        "2.5.0108 header has the progress-engine graph instead. 2.2 is the first release "
        "shown (2.0 and earlier not checked)."},
    engine_row{
        umbrella, "doca_workq", "struct doca_workq (work queue of the job API)", "1.3.0", "2.2.0",
        sources::core_guide_1_4,
        "The DOCA 1.4 Core Programming Guide lists the DOCA Work Queue (doca_workq) among the "
        "core objects and names DOCA 1.3 as a prerequisite, and the 1.3 DMA guide submits "
        "jobs to a work queue; doca_ctx.h of 2.2.0080 declares doca_workq_create, "
        "doca_workq_submit and doca_ctx_workq_add. The 2.5.0108 and 2.6.0058 headers have "
        "no doca_workq: tasks go through a progress engine (doca_pe.h, absent from the "
        "2.2.0080 set). 1.2 and earlier were not checked."},
    engine_row{umbrella, "doca_dma_job_memcpy",
               "struct doca_dma_job_memcpy (DMA job API; now doca_dma_task_memcpy)", "1.3.0",
               "2.2.0", sources::headers_2_2,
               "Declared in doca_dma.h of 2.2.0080 (a doca_job base, dst_buff, src_buff, submitted "
               "with doca_workq_submit); the DMA guides from 1.3 to 2.2.1 describe this job. The "
               "2.5.0108 and 2.6.0058 headers have no doca_dma_job_*; doca_dma_task_memcpy "
               "replaces it. 1.2 and earlier were not checked."},
    engine_row{umbrella, "doca_compress_task_decompress_lz4",
               "struct doca_compress_task_decompress_lz4 (one LZ4 decompress task; now "
               "lz4_stream and lz4_block)",
               "2.5.0", "2.6.0", sources::tree_2_5,
               "Declared with doca_compress_cap_task_decompress_lz4_* in doca_compress.h of "
               "2.5.0108 and 2.6.0058 (2.2.0080: DOCA_DECOMPRESS_LZ4_JOB); the 3.0.0058 header "
               "has doca_compress_task_decompress_lz4_stream and _lz4_block instead. 2.6 is the "
               "last release shown (2.7 to 2.9 not checked); the 2.8.0081 samples have "
               "decompress_lz4_stream and no decompress_lz4."},
    engine_row{compress, "doca_compress_task_decompress_lz4_stream",
               "struct doca_compress_task_decompress_lz4_stream (LZ4 frame decompress task)",
               "3.0.0", "", sources::headers_3_0,
               "Declared in the 3.0.0058 doca_compress.h (with block-checksum and "
               "independent-blocks settings and xxHash/CRC results); 2.6.0058 has one "
               "decompress_lz4 task instead. 3.0 is the first release the headers show, but the "
               "task is older: the 2.8.0081 packages already ship a decompress_lz4_stream sample "
               "(2.7 to 2.9 headers not checked)."},
    engine_row{compress, "doca_compress_task_decompress_lz4_block",
               "struct doca_compress_task_decompress_lz4_block (LZ4 block decompress task)",
               "3.0.0", "", sources::headers_3_0,
               "Declared in the 3.0.0058 doca_compress.h; 2.6.0058 has one decompress_lz4 task "
               "instead. 3.0 is the first release the sources show it in (2.7 to 2.9 not "
               "checked; neither the 2.8.0081 nor the 3.0.0 samples have an LZ4 block sample)."},
    engine_row{sha, "doca_sha_task_partial_hash",
               "struct doca_sha_task_partial_hash (partial SHA over several buffers)", "2.5.0", "",
               sources::tree_2_5,
               "Declared in doca_sha.h of 2.5.0108, 2.6.0058 and 3.0.0058 (with "
               "doca_sha_cap_task_partial_hash_get_supported and "
               "doca_sha_cap_get_partial_hash_block_size); the 2.5.0108 and later samples have "
               "sha_partial_create. Before, partial hashes were DOCA_SHA_JOB_*_PARTIAL jobs in a "
               "doca_sha_partial_session (2.2.0080)."},
    engine_row{umbrella, "doca_sha_partial_session",
               "struct doca_sha_partial_session (partial SHA of the job API; now "
               "doca_sha_task_partial_hash)",
               "1.5.0", "2.2.0", sources::sha_guide_1_5,
               "The DOCA 1.5.0 SHA Programming Guide offers one-shot and stateful SHA (its 1.5.2 "
               "edition names doca_sha_partial_session); doca_sha.h of 2.2.0080 declares "
               "doca_sha_partial_session_create, _destroy and _copy with DOCA_SHA_JOB_*_PARTIAL "
               "jobs; the 2.5.0108 header has doca_sha_task_partial_hash instead. 1.4 and earlier "
               "were not checked."},
    engine_row{sha, "doca_sha_task_partial_hash_set_is_final_buf",
               "doca_sha_task_partial_hash_set_is_final_buf()", "2.6.0", "", sources::packages_2_6,
               "Declared in doca_sha.h of 2.6.0058 and 3.0.0058; 2.5.0108 named it "
               "doca_sha_task_partial_hash_set_is_final_buffer."},
    engine_row{umbrella, "doca_sha_task_partial_hash_set_is_final_buffer",
               "doca_sha_task_partial_hash_set_is_final_buffer() (DOCA 2.5; 2.6: "
               "doca_sha_task_partial_hash_set_is_final_buf)",
               "2.5.0", "2.5.0", sources::tree_2_5,
               "Declared in doca_sha.h of 2.5.0108; the 2.6.0058 header has "
               "doca_sha_task_partial_hash_set_is_final_buf instead."},
    engine_row{common, "doca_sync_event_task_wait_eq",
               "struct doca_sync_event_task_wait_eq (wait until equal, as a task)", "3.0.0", "",
               sources::headers_3_0,
               "Declared in the 3.0.0058 doca_sync_event.h with "
               "doca_sync_event_cap_task_wait_eq_is_supported, as is the wait_neq task; "
               "2.6.0058 has a wait_gt task instead. 3.0 is the first release the sources show it "
               "in (2.7 to 2.9 not checked)."},
    engine_row{common, "doca_sync_event_task_wait_neq",
               "struct doca_sync_event_task_wait_neq (wait until not equal, as a task)", "3.0.0",
               "", sources::headers_3_0,
               "Declared in the 3.0.0058 doca_sync_event.h with "
               "doca_sync_event_cap_task_wait_neq_is_supported; 2.6.0058 has a wait_gt task "
               "instead. 3.0 is the first release the sources show it in (2.7 to 2.9 not "
               "checked)."},
    engine_row{umbrella, "doca_sync_event_task_wait_gt",
               "struct doca_sync_event_task_wait_gt (wait until greater, as a task; now wait_eq "
               "and wait_neq)",
               "2.5.0", "2.6.0", sources::tree_2_5,
               "Declared with doca_sync_event_cap_task_wait_gt_is_supported in doca_sync_event.h "
               "of 2.5.0108 and 2.6.0058 (2.2.0080: DOCA_SYNC_EVENT_JOB_WAIT_GT); the 3.0.0058 "
               "header has wait_eq and wait_neq tasks instead (the blocking "
               "doca_sync_event_wait_gt stays). 2.6 is the last release shown (2.7 to 2.9 not "
               "checked)."},
    engine_row{common, "doca_sync_event_export_to_remote_pci",
               "doca_sync_event_export_to_remote_pci()", "3.0.0", "", sources::headers_3_0,
               "Declared in the 3.0.0058 doca_sync_event.h (with "
               "doca_sync_event_cap_is_export_to_remote_pci_supported and "
               "doca_sync_event_add_publisher/subscriber_location_remote_pci); 2.6.0058 has "
               "doca_sync_event_export_to_dpu instead. 3.0 is the first release the headers show; "
               "the 2.8.0081 samples are already named sync_event_local_pci and "
               "sync_event_remote_pci (2.5 and 2.6: sync_event_host, sync_event_dpu)."},
    engine_row{umbrella, "doca_sync_event_export_to_dpu",
               "doca_sync_event_export_to_dpu() (now doca_sync_event_export_to_remote_pci)",
               "2.2.0", "2.6.0", sources::headers_2_2,
               "Declared in doca_sync_event.h of 2.2.0080, 2.5.0108 and 2.6.0058; the 3.0.0058 "
               "header has doca_sync_event_export_to_remote_pci instead. 2.2 and 2.6 are the first "
               "and last releases shown (2.0 and earlier, 2.7 to 2.9 not checked)."},
    // ---- DOCA Core additions of 3.1 and 3.2 (no 3.1+ header set is public: the first release
    // tag of NVIDIA's samples that calls each, or a program built against a named SDK) ----
    engine_row{common, "doca_devinfo_get_pci_func_type",
               "doca_devinfo_get_pci_func_type() (PF, VF or SF of a local device)", "3.1.0", "",
               sources::samples,
               "Called by samples/common.c (open_doca_device_with_sf_index, linked into every "
               "sample) from tag 3.1.0 on; absent from the 3.0.0058 headers, which had only the "
               "representor's doca_devinfo_rep_get_pci_func_type."},
    engine_row{common, "doca_devinfo_get_sf_index",
               "doca_devinfo_get_sf_index() (index of a sub-function device)", "3.1.0", "",
               sources::samples,
               "Called by samples/common.c from tag 3.1.0 on, after the function type says SF; "
               "absent from the 3.0.0058 headers."},
    engine_row{common, "doca_devinfo_rep_get_host_index",
               "doca_devinfo_rep_get_host_index() (host controller of a representor's function)",
               "3.1.0", "", "https://github.com/jukebox03/DPUmesh",
               "Called by a program built against DOCA SDK 3.1.0105 (DPUmesh, BlueField-3) to "
               "select representors by host index; absent from the 3.0.0058 headers. Whether a "
               "3.0 patch release had it is not known."},
    engine_row{common, "doca_devinfo_rep_get_pf_index",
               "doca_devinfo_rep_get_pf_index() (PF of a representor's function)", "3.1.0", "",
               "https://github.com/jukebox03/DPUmesh",
               "Called by a program built against DOCA SDK 3.1.0105 (DPUmesh); absent from the "
               "3.0.0058 headers."},
    engine_row{common, "doca_devinfo_rep_get_vf_index",
               "doca_devinfo_rep_get_vf_index() (VF number of a representor's function)", "3.1.0",
               "", "https://github.com/jukebox03/DPUmesh",
               "Called by a program built against DOCA SDK 3.1.0105 (DPUmesh); absent from the "
               "3.0.0058 headers."},
    engine_row{common, "doca_devinfo_rep_get_sf_index",
               "doca_devinfo_rep_get_sf_index() (SF number of a representor's function)", "3.1.0",
               "", "https://github.com/jukebox03/DPUmesh",
               "Called by a program built against DOCA SDK 3.1.0105 (DPUmesh), which selects "
               "representors by SF number 800-999; absent from the 3.0.0058 headers."},
    engine_row{common, "doca_buf_inventory_buf_reuse_by_addr",
               "doca_buf_inventory_buf_reuse_by_addr() (re-point a held buf, empty data)", "3.2.0",
               "", sources::samples,
               "Called by applications/storage/comch_to_rdma_gga_offload.cpp from tag 3.2.0 on, "
               "as (buf, addr, len); absent from the 3.0.0058 headers."},
    engine_row{common, "doca_buf_inventory_buf_reuse_by_data",
               "doca_buf_inventory_buf_reuse_by_data() (re-point a held buf, all of it data)",
               "3.2.0", "", sources::samples,
               "Called by applications/storage/comch_to_rdma_gga_offload.cpp from tag 3.2.0 on, "
               "as (buf, data, len); absent from the 3.0.0058 headers."},
    // ---- mmap export ----
    engine_row{common, "doca_mmap_export_pci",
               "doca_mmap_export_pci() (export a map to the other side of the PCIe link)", "2.5.0",
               "", sources::tree_2_5,
               "Declared (DOCA_STABLE) in doca_mmap.h of 2.5.0108, 2.6.0058 and 3.0.0058 as "
               "(mmap, const doca_dev *, const void **export_desc, size_t *export_desc_len); "
               "2.2.0080 has doca_mmap_export_dpu with the same parameters instead."},
    engine_row{umbrella, "doca_mmap_export_dpu",
               "doca_mmap_export_dpu() (now doca_mmap_export_pci)", "2.2.0", "2.2.0",
               sources::headers_2_2,
               "Declared (DOCA_EXPERIMENTAL) in doca_mmap.h of 2.2.0080 with the parameters "
               "doca_mmap_export_pci has since (mmap, const doca_dev *, const void **, size_t *); "
               "the 2.5.0108 header has doca_mmap_export_pci instead. 2.2 is the first release "
               "shown (2.0 and earlier not checked)."},
    engine_row{common, "doca_mmap_create_from_export",
               "doca_mmap_create_from_export() (map memory another process exported)", "2.2.0", "",
               sources::headers_2_2,
               "Declared with one signature (const union doca_data *user_data, const void "
               "*export_desc, size_t export_desc_len, doca_dev *, doca_mmap **) in doca_mmap.h of "
               "2.2.0080 (DOCA_EXPERIMENTAL; descriptors of doca_mmap_export_dpu or _rdma), "
               "2.5.0108, 2.6.0058 and 3.0.0058 (DOCA_STABLE; descriptors of "
               "doca_mmap_export_pci or _rdma). 2.2 is the first release shown (2.0 and earlier "
               "not checked)."},
    engine_row{common, "doca_mmap_cap_is_export_pci_supported",
               "doca_mmap_cap_is_export_pci_supported()", "2.5.0", "", sources::tree_2_5,
               "Declared in doca_mmap.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 asked "
               "doca_devinfo_get_is_mmap_export_dpu_supported (doca_dev.h) instead."},
    engine_row{common, "doca_mmap_cap_is_create_from_export_pci_supported",
               "doca_mmap_cap_is_create_from_export_pci_supported()", "2.5.0", "",
               sources::tree_2_5,
               "Declared in doca_mmap.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 asked "
               "doca_devinfo_get_is_mmap_from_export_dpu_supported (doca_dev.h) instead."},
    engine_row{umbrella, "doca_devinfo_get_is_mmap_export_dpu_supported",
               "doca_devinfo_get_is_mmap_export_dpu_supported() (now "
               "doca_mmap_cap_is_export_pci_supported)",
               "2.2.0", "2.2.0", sources::headers_2_2,
               "Declared in doca_dev.h of 2.2.0080; absent from the 2.5.0108 doca_dev.h, which "
               "has doca_mmap_cap_is_export_pci_supported in doca_mmap.h. 2.0 and earlier not "
               "checked."},
    engine_row{umbrella, "doca_devinfo_get_is_mmap_from_export_dpu_supported",
               "doca_devinfo_get_is_mmap_from_export_dpu_supported() (now "
               "doca_mmap_cap_is_create_from_export_pci_supported)",
               "2.2.0", "2.2.0", sources::headers_2_2,
               "Declared in doca_dev.h of 2.2.0080; absent from the 2.5.0108 doca_dev.h, which "
               "has doca_mmap_cap_is_create_from_export_pci_supported in doca_mmap.h. 2.0 and "
               "earlier not checked."},
    // ---- graph calls whose form changed with the progress engine ----
    engine_row{common, "doca_graph_create", "doca_graph_create() (on a progress engine)", "2.5.0",
               "", sources::tree_2_5,
               "Declared as doca_graph_create(doca_pe *, doca_graph **) in doca_graph.h of "
               "2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 declared doca_graph_create(doca_graph "
               "**) without a progress engine (row graph_workq_api)."},
    engine_row{common, "doca_graph_node_create_from_ctx", "doca_graph_node_create_from_ctx()",
               "2.5.0", "", sources::tree_2_5,
               "Declared in doca_graph.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 had "
               "doca_graph_ctx_node_create(graph, job_type, ctx, ...) instead."},
    engine_row{common, "doca_graph_node_create_from_user", "doca_graph_node_create_from_user()",
               "2.5.0", "", sources::tree_2_5,
               "Declared in doca_graph.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 had "
               "doca_graph_user_node_create instead."},
    engine_row{common, "doca_graph_node_create_from_graph", "doca_graph_node_create_from_graph()",
               "2.5.0", "", sources::tree_2_5,
               "Declared in doca_graph.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 had "
               "doca_graph_sub_graph_node_create instead."},
    engine_row{common, "doca_graph_instance_submit", "doca_graph_instance_submit()", "2.5.0", "",
               sources::tree_2_5,
               "Declared in doca_graph.h of 2.5.0108, 2.6.0058 and 3.0.0058; 2.2.0080 submitted "
               "instances with doca_workq_graph_submit instead."},
    // ---- headers ----
    engine_row{dma, "doca_dma.h", "header doca_dma.h", "1.3.0", "", sources::dma_guide_1_3,
               "The library it declares is documented from the DOCA 1.3 archive on (the DMA "
               "Programming Guide, v1.3 edition of May 2022; 1.2 and earlier not checked). The "
               "header is seen in the 2.2.0080 set (job API), the 2.5.0108 and 2.6.0058 sets "
               "(memcpy task) and the 3.0.0058 set."},
    engine_row{compress, "doca_compress.h", "header doca_compress.h", "1.5.0", "",
               sources::compress_guide_1_5,
               "The library it declares is documented from the DOCA 1.5.0 archive on (Compress "
               "Programming Guide and samples, deflate jobs on a work queue; 1.4 and earlier not "
               "checked). The header is seen in the 2.2.0080 set (jobs), the 2.5.0108 and "
               "2.6.0058 sets (tasks) and the 3.0.0058 set."},
    engine_row{sha, "doca_sha.h", "header doca_sha.h", "1.5.0", "", sources::sha_guide_1_5,
               "The library it declares is documented from the DOCA 1.5.0 archive on (SHA "
               "Programming Guide: SHA-1, SHA-256 and SHA-512, one-shot and stateful; 1.4 and "
               "earlier not checked). The header is seen in the 2.2.0080 set (jobs), the 2.5.0108 "
               "and 2.6.0058 sets (tasks) and the 3.0.0058 set."},
    engine_row{common, "doca_graph.h", "header doca_graph.h", "2.2.0", "", sources::headers_2_2,
               "Seen in the 2.2.0080 set (a graph of jobs on a work queue) and, with the "
               "progress-engine graph, in the 2.5.0108, 2.6.0058 and 3.0.0058 sets. 2.0 and "
               "earlier were not checked."},
    engine_row{common, "doca_sync_event.h", "header doca_sync_event.h", "2.2.0", "",
               sources::headers_2_2,
               "Seen in the 2.2.0080 set (jobs), the 2.5.0108 and 2.6.0058 sets (tasks) and the "
               "3.0.0058 set. 2.0 and earlier were not checked."},
    engine_row{common, "doca_mmap_advise.h", "header doca_mmap_advise.h (cache invalidation)",
               "2.8.0", "", sources::packages_2_6,
               "The 2.8.0081 package listing ships include/doca_mmap_advise.h in DOCA Common's "
               "development package and a cache_invalidate sample; the 2.5.0108 and 2.6.0058 "
               "header sets have no such header. 2.7 was not checked."},
    // ---- pkg-config modules ----
    engine_row{dma, "doca-dma.pc", "pkg-config module doca-dma", "2.8.0", "", sources::packages_2_6,
               "The 2.8.0081 package listing ships pkgconfig/doca-dma.pc and doca-dma-lib.pc "
               "(package libdoca-sdk-dma-dev); the 3.0.0 DMA samples use dependency('doca-dma'). "
               "The 2.5.0108 install tree and the 2.6.0058 packages have only the umbrella doca.pc "
               "(and doca-libs.pc). 2.7 was not checked."},
    engine_row{compress, "doca-compress.pc", "pkg-config module doca-compress", "2.8.0", "",
               sources::packages_2_6,
               "The 2.8.0081 package listing ships pkgconfig/doca-compress.pc and "
               "doca-compress-lib.pc (package libdoca-sdk-compress-dev); the 3.0.0 Compress "
               "samples use dependency('doca-compress'). The 2.5.0108 install tree and the "
               "2.6.0058 packages have only the umbrella doca.pc. 2.7 was not checked."},
    engine_row{
        sha, "doca-sha.pc", "pkg-config module doca-sha", "2.8.0", "", sources::packages_2_6,
        "The 2.8.0081 package listing ships pkgconfig/doca-sha.pc and doca-sha-lib.pc "
        "(package libdoca-sdk-sha-dev); the 3.0.0 SHA samples use dependency('doca-sha'). "
        "The 2.5.0108 install tree and the 2.6.0058 packages have only the umbrella doca.pc. "
        "2.7 was not checked."},
    // ---- libraries ----
    engine_row{dma, "libdoca_dma.so", "library libdoca_dma", "2.5.0", "", sources::tree_2_5,
               "libdoca_dma.so.2.5.0108 is in the 2.5.0108 install tree, libdoca_dma.so.2.6.0058 "
               "in the 2.6 packages and libdoca_dma.so.2.8.0081 in the 2.8 packages; earlier "
               "releases were not checked (for 2.2 only headers were available)."},
    engine_row{compress, "libdoca_compress.so", "library libdoca_compress", "2.5.0", "",
               sources::tree_2_5,
               "libdoca_compress.so.2.5.0108 is in the 2.5.0108 install tree, "
               "libdoca_compress.so.2.6.0058 in the 2.6 packages and libdoca_compress.so.2.8.0081 "
               "in the 2.8 packages; earlier releases were not checked (for 2.2 only headers were "
               "available)."},
    engine_row{sha, "libdoca_sha.so", "library libdoca_sha", "2.5.0", "", sources::tree_2_5,
               "libdoca_sha.so.2.5.0108 is in the 2.5.0108 install tree, libdoca_sha.so.2.6.0058 "
               "in the 2.6 packages and libdoca_sha.so.2.8.0081 in the 2.8 packages; earlier "
               "releases were not checked (for 2.2 only headers were available)."},
};

// The functions of include/doca_dma.h (DOCA 3.0).
struct dma_function {
    std::string_view name;
    std::string_view before; // the 2.2.0080 counterpart, or what the call replaced
};

constexpr std::string_view memcpy_task =
    "the memcpy task replaced the 2.2 memcpy job (struct doca_dma_job_memcpy, submitted with "
    "doca_workq_submit)";

constexpr std::array dma_functions{
    dma_function{"doca_dma_create",
                 "2.2.0080 declared doca_dma_create(doca_dma **) with no device; "
                 "since 2.5 it takes the doca_dev"},
    dma_function{"doca_dma_cap_task_memcpy_is_supported",
                 "2.2.0080 asked doca_dma_job_get_supported(devinfo, DOCA_DMA_JOB_MEMCPY)"},
    dma_function{"doca_dma_cap_get_max_num_tasks",
                 "2.2.0080 has no counterpart (jobs went to a work queue of a given depth)"},
    dma_function{"doca_dma_cap_task_memcpy_get_max_buf_list_len",
                 "2.2.0080 asked doca_dma_get_max_list_buf_num_elem"},
    dma_function{"doca_dma_cap_task_memcpy_get_max_buf_size",
                 "2.2.0080 asked doca_dma_get_max_buf_size"},
    dma_function{"doca_dma_task_memcpy_set_conf", memcpy_task},
    dma_function{"doca_dma_task_memcpy_alloc_init", memcpy_task},
    dma_function{"doca_dma_task_memcpy_as_task", memcpy_task},
    dma_function{"doca_dma_task_memcpy_set_src", memcpy_task},
    dma_function{"doca_dma_task_memcpy_get_src", memcpy_task},
    dma_function{"doca_dma_task_memcpy_set_dst", memcpy_task},
    dma_function{"doca_dma_task_memcpy_get_dst", memcpy_task},
};

// Unchanged since the job API.
constexpr std::array dma_since_jobs{"doca_dma_destroy", "doca_dma_as_ctx"};

// A capability `softcomch caps --json` prints, and the query behind it.
struct engine_cap {
    std::string_view library;
    std::string_view capability; // as `softcomch caps --json` names it
    std::string_view query;      // the 3.0 function
    std::string_view min;
    std::string_view url;
    std::string_view history; // the older queries, and what is not established
};

constexpr std::string_view lz4_stream_note =
    "2.5.0108 and 2.6.0058 have one LZ4 task (doca_compress_cap_task_decompress_lz4_*); 3.0 is "
    "the first release the headers show this query in, though the 2.8.0081 packages already ship "
    "a decompress_lz4_stream sample (2.7 to 2.9 not checked)";
constexpr std::string_view lz4_block_note =
    "2.5.0108 and 2.6.0058 have one LZ4 task (doca_compress_cap_task_decompress_lz4_*); 3.0 is "
    "the first release the sources show this query in (2.7 to 2.9 not checked)";

constexpr std::array engine_caps{
    engine_cap{dma, "memcpy_is_supported", "doca_dma_cap_task_memcpy_is_supported", "2.5.0",
               sources::tree_2_5,
               "2.2.0080: doca_dma_job_get_supported(devinfo, DOCA_DMA_JOB_MEMCPY)"},
    engine_cap{dma, "memcpy_max_buf_size", "doca_dma_cap_task_memcpy_get_max_buf_size", "2.5.0",
               sources::tree_2_5, "2.2.0080: doca_dma_get_max_buf_size"},
    engine_cap{dma, "memcpy_max_buf_list_len", "doca_dma_cap_task_memcpy_get_max_buf_list_len",
               "2.5.0", sources::tree_2_5, "2.2.0080: doca_dma_get_max_list_buf_num_elem"},
    engine_cap{compress, "compress_deflate_is_supported",
               "doca_compress_cap_task_compress_deflate_is_supported", "2.5.0", sources::tree_2_5,
               "2.2.0080: doca_compress_job_get_supported(devinfo, DOCA_COMPRESS_DEFLATE_JOB)"},
    engine_cap{compress, "compress_deflate_max_buf_size",
               "doca_compress_cap_task_compress_deflate_get_max_buf_size", "2.5.0",
               sources::tree_2_5,
               "2.2.0080: doca_compress_get_max_buf_size(devinfo, DOCA_COMPRESS_DEFLATE_JOB, ...)"},
    engine_cap{compress, "compress_deflate_max_buf_list_len",
               "doca_compress_cap_task_compress_deflate_get_max_buf_list_len", "2.5.0",
               sources::tree_2_5,
               "2.2.0080: doca_compress_get_max_list_buf_num_elem, one value for every job"},
    engine_cap{compress, "decompress_deflate_is_supported",
               "doca_compress_cap_task_decompress_deflate_is_supported", "2.5.0", sources::tree_2_5,
               "2.2.0080: doca_compress_job_get_supported(devinfo, DOCA_DECOMPRESS_DEFLATE_JOB)"},
    engine_cap{compress, "decompress_deflate_max_buf_size",
               "doca_compress_cap_task_decompress_deflate_get_max_buf_size", "2.5.0",
               sources::tree_2_5,
               "2.2.0080: doca_compress_get_max_buf_size(devinfo, DOCA_DECOMPRESS_DEFLATE_JOB, "
               "...)"},
    engine_cap{compress, "decompress_deflate_max_buf_list_len",
               "doca_compress_cap_task_decompress_deflate_get_max_buf_list_len", "2.5.0",
               sources::tree_2_5,
               "2.2.0080: doca_compress_get_max_list_buf_num_elem, one value for every job"},
    engine_cap{compress, "decompress_lz4_stream_is_supported",
               "doca_compress_cap_task_decompress_lz4_stream_is_supported", "3.0.0",
               sources::headers_3_0, lz4_stream_note},
    engine_cap{compress, "decompress_lz4_stream_max_buf_size",
               "doca_compress_cap_task_decompress_lz4_stream_get_max_buf_size", "3.0.0",
               sources::headers_3_0, lz4_stream_note},
    engine_cap{compress, "decompress_lz4_stream_max_buf_list_len",
               "doca_compress_cap_task_decompress_lz4_stream_get_max_buf_list_len", "3.0.0",
               sources::headers_3_0, lz4_stream_note},
    engine_cap{compress, "decompress_lz4_block_is_supported",
               "doca_compress_cap_task_decompress_lz4_block_is_supported", "3.0.0",
               sources::headers_3_0, lz4_block_note},
    engine_cap{compress, "decompress_lz4_block_max_buf_size",
               "doca_compress_cap_task_decompress_lz4_block_get_max_buf_size", "3.0.0",
               sources::headers_3_0, lz4_block_note},
    engine_cap{compress, "decompress_lz4_block_max_buf_list_len",
               "doca_compress_cap_task_decompress_lz4_block_get_max_buf_list_len", "3.0.0",
               sources::headers_3_0, lz4_block_note},
    engine_cap{sha, "max_src_buf_size", "doca_sha_cap_get_max_src_buf_size", "2.5.0",
               sources::tree_2_5,
               "2.5.0108: doca_sha_cap_get_max_src_buffer_size (renamed in 2.6.0058); 2.2.0080: "
               "doca_sha_get_max_src_buffer_size"},
    engine_cap{sha, "max_list_buf_num_elem", "doca_sha_cap_get_max_list_buf_num_elem", "2.5.0",
               sources::tree_2_5, "2.2.0080: doca_sha_get_max_list_buf_num_elem"},
};

// The SHA capabilities `softcomch caps --json` prints once per algorithm.
struct sha_cap {
    std::string_view prefix; // the capability is prefix + algorithm + suffix
    std::string_view suffix;
    std::string_view query;
    std::string_view history; // "%" stands for the algorithm's job name (SHA1, SHA256, SHA512)
};

constexpr std::array sha_caps{
    sha_cap{"hash_", "_supported", "doca_sha_cap_task_hash_get_supported",
            "2.2.0080: doca_sha_job_get_supported(devinfo, DOCA_SHA_JOB_%)"},
    sha_cap{"partial_hash_", "_supported", "doca_sha_cap_task_partial_hash_get_supported",
            "2.2.0080: doca_sha_job_get_supported(devinfo, DOCA_SHA_JOB_%_PARTIAL)"},
    sha_cap{"min_dst_buf_size_", "", "doca_sha_cap_get_min_dst_buf_size",
            "2.5.0108: doca_sha_cap_get_min_dst_buffer_size (renamed in 2.6.0058); 2.2.0080: "
            "doca_sha_get_min_dst_buffer_size(devinfo, DOCA_SHA_JOB_%, ...)"},
    sha_cap{"partial_hash_block_size_", "", "doca_sha_cap_get_partial_hash_block_size",
            "2.2.0080 has no such query"},
};

entry make(std::string_view library, std::string capability, std::string display,
           std::string_view min, std::string_view max, std::string_view url, std::string quote)
{
    entry e;
    e.library = std::string(library);
    e.capability = std::move(capability);
    e.display_name = std::move(display);
    e.min_doca_version = std::string(min);
    if (!max.empty())
        e.max_doca_version = std::string(max);
    e.source_url = std::string(url);
    e.source_quote = std::move(quote);
    return e;
}

std::string cap_quote(std::string_view query, std::string_view min, std::string history)
{
    const std::string seen =
        min == "3.0.0" ? "the 3.0.0058 headers" : "the 2.5.0108, 2.6.0058 and 3.0.0058 headers";
    return "Queried with " + std::string(query) + ", declared in " + seen + "; " + history + ".";
}

} // namespace

void add_engine_rows(std::vector<entry> &rows)
{
    for (const auto &r : rows_table)
        rows.push_back(make(r.library, std::string(r.capability), std::string(r.display_name),
                            r.min, r.max, r.url, std::string(r.quote)));
    for (const auto &f : dma_functions)
        rows.push_back(make(dma, std::string(f.name), std::string(f.name) + "()", "2.5.0", "",
                            sources::tree_2_5,
                            "Declared (DOCA_STABLE) in doca_dma.h of 2.5.0108, 2.6.0058 and "
                            "3.0.0058; " +
                                std::string(f.before) + "."));
    for (const char *name : dma_since_jobs)
        rows.push_back(make(dma, name, std::string(name) + "()", "2.2.0", "", sources::headers_2_2,
                            "Declared with this signature in doca_dma.h of 2.2.0080 "
                            "(DOCA_EXPERIMENTAL) and of 2.5.0108, 2.6.0058 and 3.0.0058 "
                            "(DOCA_STABLE). 2.2 is the first release the headers show (2.0 and "
                            "earlier not checked; the library is documented from DOCA 1.3 on)."));
    rows.push_back(make(dma, "doca_dma_get_gpu_handle", "doca_dma_get_gpu_handle()", "2.8.0", "",
                        sources::dma_guide_2_8,
                        "The DOCA 2.8.0 DMA guide lists doca_dma_get_gpu_handle among the API "
                        "additions of 2.8.0 (a DMA context for a GPUNetIO data path); doca_dma.h "
                        "of 2.6.0058 has no such call; the 3.0.0058 header declares it "
                        "(DOCA_EXPERIMENTAL)."));
    for (const auto &c : engine_caps)
        rows.push_back(make(c.library, std::string(c.capability),
                            std::string(c.capability) + " (" + std::string(c.query) + ")", c.min,
                            "", c.url, cap_quote(c.query, c.min, std::string(c.history))));
    constexpr std::array<std::pair<std::string_view, std::string_view>, 3> algorithms{
        {{"sha1", "SHA1"}, {"sha256", "SHA256"}, {"sha512", "SHA512"}}};
    for (const auto &c : sha_caps)
        for (const auto &[alg, job] : algorithms) {
            std::string history(c.history);
            if (const auto at = history.find('%'); at != std::string::npos)
                history.replace(at, 1, job);
            const std::string name =
                std::string(c.prefix) + std::string(alg) + std::string(c.suffix);
            rows.push_back(make(sha, name,
                                name + " (" + std::string(c.query) + ", DOCA_SHA_ALGORITHM_" +
                                    std::string(job) + ")",
                                "2.5.0", "", sources::tree_2_5,
                                cap_quote(c.query, "2.5.0", std::move(history))));
        }
}

} // namespace softcomch::tools::version_matrix
