// SPDX-License-Identifier: Apache-2.0
//
// `softcomch explain`: every doca_error_t of include/doca_error.h has an entry (by name, short
// name and value, as text and JSON); every function of the Comch headers has a --call entry, and
// so has each call of DMA, memory exports, sync events, graphs, Compress and SHA the table
// explains (each declared in its header, with the return type the header gives); the per-call
// rows agree with what SoftComch actually returns (each situation is provoked here through the
// public API and the code it gave must be among the call's rows); unknown codes and functions
// fail clearly. *Live*: the same output while a server and a client are connected.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <gtest/gtest.h>

#include <doca_comch.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_graph.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sha.h>
#include <doca_sync_event.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "live_pair.hpp"

namespace {

using namespace sc_cli;
using sc_test::contains;
using sc_test::has_line;

class CliExplain : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(access(tool().c_str(), X_OK), 0) << tool() << " is missing";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

const std::set<std::string> layers{"none (success)", "lifecycle", "argument",  "permission",
                                   "capability",     "resource",  "transient", "connection",
                                   "environment",    "internal"};

TEST_F(CliExplain, EveryErrorCodeHasAnEntry)
{
    const auto codes = error_enumerators();
    ASSERT_EQ(codes.size(), 31u) << "include/doca_error.h changed: extend the explain table";
    for (const auto &[name, value] : codes) {
        auto r = sc({"explain", name});
        ASSERT_EQ(r.status, 0) << name << "\n" << r.err;
        EXPECT_TRUE(has_line(r.out, name + " (" + std::to_string(value) + "): ")) << r.out;
        EXPECT_TRUE(has_line(r.out, "layer       ")) << r.out;
        EXPECT_TRUE(has_line(r.out, "meaning     ")) << r.out;
        // By value and by short name, the same text.
        EXPECT_EQ(sc({"explain", std::to_string(value)}).out, r.out) << name;
        const std::string short_name =
            name.starts_with("DOCA_ERROR_") ? name.substr(11) : name.substr(5);
        EXPECT_EQ(sc({"explain", short_name}).out, r.out) << name;

        auto j = sc({"explain", name, "--json"});
        const json::value doc = parse(j.out);
        ASSERT_TRUE(matches(doc,
                            {{"code", {jt::string}, {name}},
                             {"value", {jt::integer}, {}},
                             {"description", {jt::string}, {}},
                             {"layer", {jt::string}, {}},
                             {"meaning", {jt::string}, {}},
                             {"causes", {jt::array}, {}},
                             {"actions", {jt::array}, {}},
                             {"returned_by", {jt::array}, {}}},
                            name))
            << j.out;
        EXPECT_EQ(doc.find("value")->as_int(), value);
        EXPECT_TRUE(layers.count(doc.find("layer")->as_string())) << doc.find("layer")->as_string();
        EXPECT_FALSE(doc.find("meaning")->as_string().empty());
        if (value != 0) {
            EXPECT_GT(doc.find("causes")->size(), 0u) << name;
        }
    }
    // The list of all codes.
    auto all = sc({"explain"});
    ASSERT_EQ(all.status, 0);
    for (const auto &[name, value] : codes)
        EXPECT_TRUE(contains(all.out, name)) << name;
    EXPECT_EQ(parse(sc({"explain", "--json"}).out).find("codes")->size(), codes.size());
}

TEST_F(CliExplain, EveryComchFunctionHasACallEntry)
{
    size_t n = 0;
    for (const char *h :
         {"doca_comch.h", "doca_comch_consumer.h", "doca_comch_producer.h", "doca_comch_msgq.h"})
        for (const auto &f : declared_functions(h)) {
            ++n;
            auto r = sc({"explain", "--call", f.name, "--json"});
            ASSERT_EQ(r.status, 0) << f.name << ": " << r.err;
            const json::value call = *parse(r.out).find("call");
            EXPECT_EQ(call.find("name")->as_string(), f.name);
            if (f.returns_error) {
                EXPECT_EQ(call.find("returns")->as_string(), "doca_error_t") << f.name;
                EXPECT_GT(call.find("rows")->size(), 0u) << f.name;
            } else {
                EXPECT_NE(call.find("returns")->as_string(), "doca_error_t") << f.name;
            }
            for (const auto &row : call.find("rows")->elements())
                EXPECT_TRUE(
                    matches(row,
                            {{"code", {jt::string}, {}},
                             {"cause", {jt::string}, {}},
                             {"action", {jt::string}, {}},
                             {"source", {jt::string}, {"DOCA", "SoftComch", "DOCA and SoftComch"}}},
                            f.name));
        }
    EXPECT_GT(n, 100u);
}

// The calls of the other DOCA libraries the table explains, by header.
const std::map<std::string, std::vector<std::string>> &engine_calls()
{
    static const std::map<std::string, std::vector<std::string>> calls{
        {"doca_dma.h",
         {"doca_dma_create", "doca_dma_task_memcpy_set_conf", "doca_dma_task_memcpy_alloc_init"}},
        {"doca_mmap.h",
         {"doca_mmap_export_pci", "doca_mmap_export_rdma", "doca_mmap_create_from_export"}},
        {"doca_sync_event.h",
         {"doca_sync_event_create",
          "doca_sync_event_create_from_export",
          "doca_sync_event_add_publisher_location_cpu",
          "doca_sync_event_add_publisher_location_dpa",
          "doca_sync_event_add_publisher_location_gpu",
          "doca_sync_event_add_publisher_location_remote_pci",
          "doca_sync_event_add_publisher_location_remote_net",
          "doca_sync_event_add_subscriber_location_cpu",
          "doca_sync_event_add_subscriber_location_dpa",
          "doca_sync_event_add_subscriber_location_gpu",
          "doca_sync_event_add_subscriber_location_remote_pci",
          "doca_sync_event_start",
          "doca_sync_event_export_to_remote_pci",
          "doca_sync_event_wait_gt",
          "doca_sync_event_wait_gt_yield",
          "doca_sync_event_wait_eq",
          "doca_sync_event_wait_eq_yield",
          "doca_sync_event_wait_neq",
          "doca_sync_event_wait_neq_yield",
          "doca_sync_event_task_get_set_conf",
          "doca_sync_event_task_get_alloc_init",
          "doca_sync_event_task_notify_set_set_conf",
          "doca_sync_event_task_notify_set_alloc_init",
          "doca_sync_event_task_notify_add_set_conf",
          "doca_sync_event_task_notify_add_alloc_init",
          "doca_sync_event_task_wait_eq_set_conf",
          "doca_sync_event_task_wait_eq_alloc_init",
          "doca_sync_event_task_wait_neq_set_conf",
          "doca_sync_event_task_wait_neq_alloc_init"}},
        {"doca_graph.h",
         {"doca_graph_start", "doca_graph_stop", "doca_graph_destroy", "doca_graph_add_dependency",
          "doca_graph_instance_submit", "doca_graph_instance_destroy"}},
        {"doca_compress.h",
         {"doca_compress_create", "doca_compress_task_compress_deflate_set_conf",
          "doca_compress_task_compress_deflate_alloc_init",
          "doca_compress_task_decompress_deflate_set_conf",
          "doca_compress_task_decompress_deflate_alloc_init",
          "doca_compress_task_decompress_lz4_stream_set_conf",
          "doca_compress_task_decompress_lz4_stream_alloc_init",
          "doca_compress_task_decompress_lz4_block_set_conf",
          "doca_compress_task_decompress_lz4_block_alloc_init"}},
        {"doca_sha.h",
         {"doca_sha_create", "doca_sha_task_hash_set_conf", "doca_sha_task_hash_alloc_init",
          "doca_sha_task_partial_hash_set_conf", "doca_sha_task_partial_hash_alloc_init",
          "doca_sha_task_partial_hash_set_dst", "doca_sha_task_partial_hash_set_algorithm"}},
    };
    return calls;
}

TEST_F(CliExplain, EngineCallsHaveEntries)
{
    size_t n = 0;
    for (const auto &[header, names] : engine_calls()) {
        const auto declared = declared_functions(header);
        for (const auto &name : names) {
            ++n;
            // Declared in that header (the name is right), with the return type it gives.
            const declared_function *d = nullptr;
            for (const auto &f : declared)
                if (f.name == name)
                    d = &f;
            ASSERT_NE(d, nullptr) << name << " is not declared in include/" << header;
            auto r = sc({"explain", "--call", name, "--json"});
            ASSERT_EQ(r.status, 0) << name << ": " << r.err;
            const json::value call = *parse(r.out).find("call");
            EXPECT_EQ(call.find("name")->as_string(), name);
            EXPECT_EQ(call.find("returns")->as_string() == "doca_error_t", d->returns_error)
                << name;
            EXPECT_GT(call.find("rows")->size(), 0u) << name;
            for (const auto &row : call.find("rows")->elements()) {
                EXPECT_TRUE(
                    matches(row,
                            {{"code", {jt::string}, {}},
                             {"cause", {jt::string}, {}},
                             {"action", {jt::string}, {}},
                             {"source", {jt::string}, {"DOCA", "SoftComch", "DOCA and SoftComch"}}},
                            name));
                EXPECT_FALSE(row.find("cause")->as_string().empty()) << name;
            }
            // As text too.
            EXPECT_TRUE(sc({"explain", "--call", name}).out.starts_with(name + ": ")) << name;
        }
    }
    EXPECT_GT(n, 50u);
}

TEST_F(CliExplain, EngineCallsSayWhatTheModelDecides)
{
    auto sha = sc({"explain", "NOT_SUPPORTED", "--call", "doca_sha_create"});
    ASSERT_EQ(sha.status, 0) << sha.err;
    EXPECT_TRUE(has_line(sha.out, "DOCA_ERROR_NOT_SUPPORTED from doca_sha_create")) << sha.out;
    EXPECT_TRUE(contains(sha.out, "only a BlueField-2 has one")) << sha.out;

    auto deflate = sc({"explain", "NOT_SUPPORTED", "--call",
                       "doca_compress_task_compress_deflate_set_conf", "--json"});
    const json::value rows = *parse(deflate.out).find("call")->find("rows");
    ASSERT_EQ(rows.size(), 1u) << deflate.out;
    EXPECT_TRUE(contains(rows.elements()[0].find("cause")->as_string(),
                         "a BlueField-3 (the default model) decompresses only"));
    EXPECT_EQ(rows.elements()[0].find("source")->as_string(), "DOCA and SoftComch");

    auto session = sc({"explain", "BAD_STATE", "--call", "doca_sha_task_partial_hash_set_dst"});
    EXPECT_TRUE(contains(session.out, "a session is under way")) << session.out;

    // A call of another library is named in the unknown-function message's list of headers.
    auto fn = sc({"explain", "--call", "doca_dma_creat"});
    EXPECT_EQ(fn.status, 1);
    EXPECT_TRUE(contains(fn.err, "did you mean doca_dma_create")) << fn.err;
    EXPECT_TRUE(contains(fn.err, "doca_sync_event.h")) << fn.err;
}

TEST_F(CliExplain, NarrowedToOneCall)
{
    auto again = sc({"explain", "AGAIN", "--call", "doca_task_submit"});
    ASSERT_EQ(again.status, 0);
    EXPECT_TRUE(has_line(again.out, "DOCA_ERROR_AGAIN from doca_task_submit")) << again.out;
    EXPECT_TRUE(contains(again.out, "producer send: the consumer has no receive buffer posted"));
    EXPECT_TRUE(has_line(again.out, "In general:")) << again.out;

    auto not_this = sc({"explain", "AGAIN", "--call", "doca_comch_server_create"});
    EXPECT_EQ(not_this.status, 0);
    EXPECT_TRUE(contains(not_this.out, "doca_comch_server_create does not return DOCA_ERROR_AGAIN"))
        << not_this.out;
    auto j = parse(sc({"explain", "AGAIN", "--call", "doca_comch_server_create", "--json"}).out);
    EXPECT_FALSE(j.find("call")->find("returns_this_code")->as_bool());

    auto codes = sc({"explain", "--call", "doca_comch_client_get_connection"});
    EXPECT_TRUE(has_line(codes.out, "  DOCA_ERROR_BAD_STATE (DOCA and SoftComch)")) << codes.out;
    auto ptr = sc({"explain", "--call", "doca_comch_server_as_ctx"});
    EXPECT_TRUE(contains(ptr.out, "returns struct doca_ctx *, not a doca_error_t")) << ptr.out;
}

TEST_F(CliExplain, UnknownCodesAndFunctionsFail)
{
    auto code = sc({"explain", "DOCA_ERROR_NOT_FOUN"});
    EXPECT_EQ(code.status, 1);
    EXPECT_TRUE(contains(code.err, "unknown error code 'DOCA_ERROR_NOT_FOUN'")) << code.err;
    EXPECT_TRUE(contains(code.err, "did you mean DOCA_ERROR_NOT_FOUND")) << code.err;
    EXPECT_EQ(sc({"explain", "31"}).status, 1);
    auto fn = sc({"explain", "BAD_STATE", "--call", "doca_comch_client_creat"});
    EXPECT_EQ(fn.status, 1);
    EXPECT_TRUE(contains(fn.err, "unknown function 'doca_comch_client_creat'")) << fn.err;
    EXPECT_TRUE(contains(fn.err, "did you mean doca_comch_client_create")) << fn.err;
    EXPECT_EQ(sc({"explain", "AGAIN", "BAD_STATE"}).status, 2);
    EXPECT_EQ(sc({"explain", "--call"}).status, 2);
}

// Situations provoked through the public API: the code each call gave must be one explain lists
// for that call.
TEST_F(CliExplain, ProvokedCodesAreAmongTheCallsRows)
{
    ::unsetenv("SOFTCOMCH_SIDE");
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    std::vector<std::pair<std::string, doca_error_t>> seen; // (call, code it returned)
    auto note = [&](const char *call, doca_error_t rc) {
        seen.emplace_back(call, rc);
    };

    doca_dev *dpu = sc_test::open_dev("03:00.0");
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_TRUE(dpu && host);
    doca_dev_rep *rep = sc_test::open_rep(dpu, "b1:00.0");
    ASSERT_NE(rep, nullptr);
    doca_devinfo_rep **reps = nullptr;
    uint32_t nreps = 0;
    note("doca_devinfo_rep_create_list",
         doca_devinfo_rep_create_list(host, DOCA_DEVINFO_REP_FILTER_NET, &reps, &nreps));

    doca_comch_server *srv = nullptr;
    note("doca_comch_server_create", doca_comch_server_create(host, rep, "x", &srv));
    note("doca_comch_server_create",
         doca_comch_server_create(dpu, rep, std::string(200, 'n').c_str(), &srv));
    doca_comch_client *bad = nullptr;
    note("doca_comch_client_create", doca_comch_client_create(dpu, "x", &bad));

    doca_comch_client *cli = nullptr;
    ASSERT_EQ(doca_comch_client_create(host, "explain-nobody", &cli), DOCA_SUCCESS);
    doca_ctx *ctx = doca_comch_client_as_ctx(cli);
    doca_comch_connection *conn = nullptr;
    note("doca_comch_client_get_connection", doca_comch_client_get_connection(cli, &conn));
    note("doca_comch_client_set_max_msg_size", doca_comch_client_set_max_msg_size(cli, 1u << 20));
    note("doca_ctx_start", doca_ctx_start(ctx)); // no progress engine
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    note("doca_pe_connect_ctx", doca_pe_connect_ctx(pe, ctx));
    ::setenv("SOFTCOMCH_TRANSPORT", "carrier-pigeon", 1);
    note("doca_ctx_start", doca_ctx_start(ctx));
    ::unsetenv("SOFTCOMCH_TRANSPORT");
    note("doca_ctx_start", doca_ctx_start(ctx)); // STARTING: no server of that name
    note("doca_ctx_start", doca_ctx_start(ctx)); // not IDLE
    note("doca_comch_client_set_recv_queue_size", doca_comch_client_set_recv_queue_size(cli, 8));
    note("doca_comch_client_destroy", doca_comch_client_destroy(cli));
    note("doca_pe_destroy", doca_pe_destroy(pe));
    note("doca_ctx_stop", doca_ctx_stop(ctx));
    ASSERT_EQ(doca_comch_client_destroy(cli), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);

    // Two servers of one name on one host function.
    doca_pe *spe = nullptr;
    ASSERT_EQ(doca_pe_create(&spe), DOCA_SUCCESS);
    doca_comch_server *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_comch_server_create(dpu, rep, "explain-twice", &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_server_create(dpu, rep, "explain-twice", &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(spe, doca_comch_server_as_ctx(a)), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(spe, doca_comch_server_as_ctx(b)), DOCA_SUCCESS);
    note("doca_ctx_start", doca_ctx_start(doca_comch_server_as_ctx(a)));
    note("doca_ctx_start", doca_ctx_start(doca_comch_server_as_ctx(b)));
    note("doca_comch_server_disconnect", doca_comch_server_disconnect(b, nullptr));
    note("doca_comch_server_set_max_msg_size", doca_comch_server_set_max_msg_size(a, 64));
    note("doca_comch_server_destroy", doca_comch_server_destroy(a));
    note("doca_dev_rep_close", doca_dev_rep_close(rep));
    ASSERT_EQ(doca_ctx_stop(doca_comch_server_as_ctx(a)), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_server_destroy(a), DOCA_SUCCESS);
    ASSERT_EQ(doca_comch_server_destroy(b), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(spe), DOCA_SUCCESS);
    doca_dev_rep_close(rep);
    doca_dev_close(dpu);
    doca_dev_close(host);

    // What was provoked covers the usual Comch refusals.
    std::set<doca_error_t> codes;
    for (const auto &[call, rc] : seen)
        codes.insert(rc);
    for (doca_error_t c :
         {DOCA_ERROR_NOT_SUPPORTED, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE,
          DOCA_ERROR_NOT_CONNECTED, DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_BAD_CONFIG,
          DOCA_ERROR_IN_PROGRESS, DOCA_ERROR_IN_USE, DOCA_ERROR_ALREADY_EXIST})
        EXPECT_TRUE(codes.count(c)) << doca_error_get_name(c) << " was not provoked";
    for (const auto &[call, rc] : seen) {
        if (rc == DOCA_SUCCESS)
            continue;
        auto r = sc({"explain", doca_error_get_name(rc), "--call", call, "--json"});
        ASSERT_EQ(r.status, 0) << call;
        EXPECT_TRUE(parse(r.out).find("call")->find("returns_this_code")->as_bool())
            << call << " returned " << doca_error_get_name(rc)
            << ", which explain does not list for it";
    }
}

void dma_cb(doca_dma_task_memcpy *, union doca_data, union doca_data) {}
void wait_eq_cb(doca_sync_event_task_wait_eq *, union doca_data, union doca_data) {}
void deflate_cb(doca_compress_task_compress_deflate *, union doca_data, union doca_data) {}
void graph_cb(doca_graph_instance *, union doca_data, union doca_data) {}
doca_error_t user_node_cb(void *)
{
    return DOCA_SUCCESS;
}

// Stops a context and progresses its engine until it is IDLE.
bool stop_until_idle(doca_pe *pe, doca_ctx *ctx)
{
    (void)doca_ctx_stop(ctx);
    for (int i = 0; i < 100000; ++i) {
        doca_ctx_states s = DOCA_CTX_STATE_RUNNING;
        if (doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s == DOCA_CTX_STATE_IDLE)
            return true;
        (void)doca_pe_progress(pe);
    }
    return false;
}

// The same for the calls of DMA, memory exports, sync events, graphs, Compress and SHA, on the
// default machine (a BlueField-3: no compression, no SHA).
TEST_F(CliExplain, ProvokedEngineCodesAreAmongTheCallsRows)
{
    ::unsetenv("SOFTCOMCH_SIDE");
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    ::unsetenv("SOFTCOMCH_MEMORY");
    ::unsetenv("SOFTCOMCH_TRANSPORT");
    std::vector<std::pair<std::string, doca_error_t>> seen; // (call, code it returned)
    auto note = [&](const char *call, doca_error_t rc) {
        seen.emplace_back(call, rc);
    };
    doca_dev *dpu = sc_test::open_dev("03:00.0");
    doca_dev *host = sc_test::open_dev("b1:00.0");
    ASSERT_TRUE(dpu && host);
    const union doca_data none = {};

    // ---- memory exports ----
    const size_t len = size_t(::sysconf(_SC_PAGESIZE)) * 4;
    void *mem = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    const void *desc = nullptr;
    size_t desc_len = 0;
    doca_mmap *local = nullptr; // no PCI permission
    ASSERT_EQ(doca_mmap_create(&local), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(local, mem, len), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(local, host), DOCA_SUCCESS);
    note("doca_mmap_export_pci", doca_mmap_export_pci(local, host, &desc, &desc_len));
    ASSERT_EQ(doca_mmap_start(local), DOCA_SUCCESS);
    note("doca_mmap_export_pci", doca_mmap_export_pci(local, host, &desc, &desc_len));
    note("doca_mmap_export_rdma", doca_mmap_export_rdma(local, host, &desc, &desc_len));
    ASSERT_EQ(doca_mmap_destroy(local), DOCA_SUCCESS);

    doca_mmap *exported = nullptr;
    ASSERT_EQ(doca_mmap_create(&exported), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(exported, mem, len), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_permissions(exported, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                      DOCA_ACCESS_FLAG_PCI_READ_WRITE),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(exported, host), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(exported), DOCA_SUCCESS);
    note("doca_mmap_export_pci", doca_mmap_export_pci(exported, dpu, &desc, &desc_len));
    ASSERT_EQ(doca_mmap_export_pci(exported, host, &desc, &desc_len), DOCA_SUCCESS);
    doca_mmap *imported = nullptr;
    note("doca_mmap_create_from_export", // the exporter's own side
         doca_mmap_create_from_export(nullptr, desc, desc_len, host, &imported));
    const std::vector<uint8_t> garbage(64, 0x5a);
    note("doca_mmap_create_from_export",
         doca_mmap_create_from_export(nullptr, garbage.data(), garbage.size(), dpu, &imported));
    note("doca_mmap_create_from_export",
         doca_mmap_create_from_export(nullptr, desc, desc_len - 1, dpu, &imported));
    ASSERT_EQ(doca_mmap_destroy(exported), DOCA_SUCCESS);
    ::munmap(mem, len);

    // ---- sync events ----
    doca_sync_event *ev = nullptr;
    note("doca_sync_event_create", doca_sync_event_create(nullptr));
    ASSERT_EQ(doca_sync_event_create(&ev), DOCA_SUCCESS);
    const uint8_t *ev_desc = nullptr;
    size_t ev_len = 0;
    note("doca_sync_event_export_to_remote_pci",
         doca_sync_event_export_to_remote_pci(ev, host, &ev_desc, &ev_len));
    note("doca_sync_event_wait_gt", doca_sync_event_wait_gt(ev, 0, UINT64_MAX));
    note("doca_sync_event_add_publisher_location_dpa",
         doca_sync_event_add_publisher_location_dpa(ev, nullptr));
    ASSERT_EQ(doca_sync_event_add_publisher_location_cpu(ev, host), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
    note("doca_sync_event_start", doca_sync_event_start(ev));
    note("doca_sync_event_add_subscriber_location_remote_pci",
         doca_sync_event_add_subscriber_location_remote_pci(ev));
    doca_sync_event *ev_imported = nullptr;
    note("doca_sync_event_create_from_export",
         doca_sync_event_create_from_export(dpu, garbage.data(), garbage.size(), &ev_imported));
    ASSERT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);

    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    doca_sync_event *tev = nullptr;
    ASSERT_EQ(doca_sync_event_create(&tev), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_cpu(tev, host), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(tev, host), DOCA_SUCCESS);
    doca_ctx *tctx = doca_sync_event_as_ctx(tev);
    ASSERT_NE(tctx, nullptr);
    ASSERT_EQ(doca_pe_connect_ctx(pe, tctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_task_wait_eq_set_conf(tev, wait_eq_cb, wait_eq_cb, 1), DOCA_SUCCESS);
    doca_sync_event_task_wait_eq *w1 = nullptr, *w2 = nullptr;
    note("doca_sync_event_task_wait_eq_alloc_init",
         doca_sync_event_task_wait_eq_alloc_init(tev, 1, 0xff, none, &w1)); // IDLE
    ASSERT_EQ(doca_ctx_start(tctx), DOCA_SUCCESS);
    note("doca_sync_event_task_wait_eq_set_conf",
         doca_sync_event_task_wait_eq_set_conf(tev, wait_eq_cb, wait_eq_cb, 1));
    note("doca_sync_event_task_wait_eq_alloc_init",
         doca_sync_event_task_wait_eq_alloc_init(tev, 1, 0x0f, none, &w1));
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(tev, 1, 0xff, none, &w1), DOCA_SUCCESS);
    note("doca_sync_event_task_wait_eq_alloc_init",
         doca_sync_event_task_wait_eq_alloc_init(tev, 1, 0xff, none, &w2));
    doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(w1));
    EXPECT_TRUE(stop_until_idle(pe, tctx));
    ASSERT_EQ(doca_sync_event_destroy(tev), DOCA_SUCCESS);

    // ---- DMA and graphs ----
    doca_dma *dma = nullptr;
    note("doca_dma_create", doca_dma_create(nullptr, &dma));
    ASSERT_EQ(doca_dma_create(host, &dma), DOCA_SUCCESS);
    doca_ctx *dctx = doca_dma_as_ctx(dma);
    ASSERT_EQ(doca_pe_connect_ctx(pe, dctx), DOCA_SUCCESS);
    note("doca_dma_task_memcpy_set_conf", doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, 0));
    ASSERT_EQ(doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, 4), DOCA_SUCCESS);
    doca_dma_task_memcpy *copy = nullptr;
    note("doca_dma_task_memcpy_alloc_init",
         doca_dma_task_memcpy_alloc_init(dma, nullptr, nullptr, none, &copy));
    ASSERT_EQ(doca_ctx_start(dctx), DOCA_SUCCESS);
    note("doca_dma_task_memcpy_set_conf", doca_dma_task_memcpy_set_conf(dma, dma_cb, dma_cb, 4));

    doca_graph *graph = nullptr;
    ASSERT_EQ(doca_graph_create(pe, &graph), DOCA_SUCCESS);
    note("doca_graph_start", doca_graph_start(graph)); // not configured
    doca_graph_node *task_node = nullptr, *user_node = nullptr;
    ASSERT_EQ(doca_graph_node_create_from_ctx(graph, dctx, &task_node), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_node_create_from_user(graph, user_node_cb, &user_node), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_add_dependency(graph, task_node, user_node), DOCA_SUCCESS);
    note("doca_graph_add_dependency", doca_graph_add_dependency(graph, user_node, task_node));
    ASSERT_EQ(doca_graph_set_conf(graph, graph_cb, graph_cb, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_start(graph), DOCA_SUCCESS);
    note("doca_graph_add_dependency", doca_graph_add_dependency(graph, task_node, user_node));
    doca_graph_instance *inst = nullptr;
    ASSERT_EQ(doca_graph_instance_create(graph, &inst), DOCA_SUCCESS);
    note("doca_graph_instance_submit", doca_graph_instance_submit(inst)); // no node data
    note("doca_graph_stop", doca_graph_stop(graph));
    note("doca_graph_destroy", doca_graph_destroy(graph));
    ASSERT_EQ(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_stop(graph), DOCA_SUCCESS);
    ASSERT_EQ(doca_graph_destroy(graph), DOCA_SUCCESS);
    EXPECT_TRUE(stop_until_idle(pe, dctx));
    ASSERT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);

    // ---- Compress and SHA on a BlueField-3 ----
    doca_compress *compress = nullptr;
    ASSERT_EQ(doca_compress_create(host, &compress), DOCA_SUCCESS);
    note("doca_compress_task_compress_deflate_set_conf",
         doca_compress_task_compress_deflate_set_conf(compress, deflate_cb, deflate_cb, 4));
    doca_compress_task_decompress_deflate *inflate = nullptr;
    note("doca_compress_task_decompress_deflate_alloc_init",
         doca_compress_task_decompress_deflate_alloc_init(compress, nullptr, nullptr, none,
                                                          &inflate));
    ASSERT_EQ(doca_compress_destroy(compress), DOCA_SUCCESS);
    doca_sha *sha = nullptr;
    note("doca_sha_create", doca_sha_create(host, &sha));
    doca_dev_close(dpu);
    doca_dev_close(host);

    std::set<doca_error_t> codes;
    for (const auto &[call, rc] : seen)
        codes.insert(rc);
    for (doca_error_t c :
         {DOCA_ERROR_NOT_SUPPORTED, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE,
          DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_NOT_FOUND, DOCA_ERROR_IN_USE, DOCA_ERROR_NO_MEMORY})
        EXPECT_TRUE(codes.count(c)) << doca_error_get_name(c) << " was not provoked";
    for (const auto &[call, rc] : seen) {
        EXPECT_NE(rc, DOCA_SUCCESS) << call << " succeeded where a refusal was provoked";
        if (rc == DOCA_SUCCESS)
            continue;
        auto r = sc({"explain", doca_error_get_name(rc), "--call", call, "--json"});
        ASSERT_EQ(r.status, 0) << call;
        EXPECT_TRUE(parse(r.out).find("call")->find("returns_this_code")->as_bool())
            << call << " returned " << doca_error_get_name(rc)
            << ", which explain does not list for it";
    }
}

TEST_F(CliExplain, LiveSameWhileAPairIsConnected)
{
    const auto idle = sc({"explain", "--call", "doca_ctx_start", "--json"});
    live_pair pair("explain-live");
    ASSERT_TRUE(pair.wait_connected());
    EXPECT_EQ(sc({"explain", "--call", "doca_ctx_start", "--json"}).out, idle.out);
    EXPECT_TRUE(pair.finish());
}

} // namespace
