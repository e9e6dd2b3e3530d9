// SPDX-License-Identifier: Apache-2.0
//
// `softcomch version-matrix` and <build>/share/version-matrix.json: the document checked field by
// field against the contract's version-matrix.json schema; every function of the Comch headers
// (include/doca_comch*.h) and every capability the capability snapshot names has a row; the
// generations and renames of the shared spec (doca-api.md section 5) are there with the
// disagreement between the guides and the headers; lookups by symbol and release. The libraries
// beside Comch (DMA, Compress, SHA and the DOCA Core parts they use): every function of
// include/doca_dma.h and every capability of the snapshot's doca-dma, doca-compress and doca-sha
// groups has a row, with the job-to-task generations and the renames. *Live*: the same output
// while a server and a client are connected (label integration).
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "live_pair.hpp"

namespace {

using namespace sc_cli;
using sc_test::contains;
using sc_test::has_line;

class CliVersionMatrix : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(access(tool().c_str(), X_OK), 0) << tool() << " is missing";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        auto r = sc({"version-matrix", "--json"});
        ASSERT_EQ(r.status, 0) << r.err;
        doc_ = parse(r.out);
        for (const auto &e : doc_.find("entries")->elements())
            rows_.emplace(e.find("capability")->as_string(), &e);
    }

    const json::value *row(const std::string &capability) const
    {
        auto it = rows_.find(capability);
        return it == rows_.end() ? nullptr : it->second;
    }
    std::pair<std::string, std::string> span(const std::string &capability) const
    {
        const json::value *e = row(capability);
        if (e == nullptr)
            return {"missing", "missing"};
        const json::value *max = e->find("max_doca_version");
        return {e->find("min_doca_version")->as_string(), max->is_null() ? "-" : max->as_string()};
    }

    json::value doc_;
    std::multimap<std::string, const json::value *> rows_;
};

using span_t = std::pair<std::string, std::string>;

TEST_F(CliVersionMatrix, SchemaAndTheInstalledFile)
{
    ASSERT_TRUE(valid_matrix(doc_));
    EXPECT_GT(doc_.find("entries")->size(), 250u);
    // (library, capability) pairs are unique.
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto &e : doc_.find("entries")->elements())
        EXPECT_TRUE(
            seen.insert({e.find("library")->as_string(), e.find("capability")->as_string()}).second)
            << e.find("capability")->as_string();
    // <build>/share/version-matrix.json (installed as <prefix>/share/version-matrix.json) is
    // that document.
    std::ifstream in(sc_test::bin_dir() + "/share/version-matrix.json");
    ASSERT_TRUE(in.good());
    std::stringstream file;
    file << in.rdbuf();
    EXPECT_EQ(parse(file.str()), doc_);
}

TEST_F(CliVersionMatrix, EveryComchFunctionHasARow)
{
    size_t n = 0;
    for (const char *h :
         {"doca_comch.h", "doca_comch_consumer.h", "doca_comch_producer.h", "doca_comch_msgq.h"}) {
        const auto functions = declared_functions(h);
        EXPECT_GT(functions.size(), 5u) << h;
        for (const auto &f : functions) {
            ++n;
            const json::value *e = row(f.name);
            ASSERT_NE(e, nullptr) << f.name << " (" << h << ") has no row";
            EXPECT_EQ(e->find("library")->as_string(), "doca-comch") << f.name;
            // The two DOCA 2.7 names SoftComch keeps for programs built for 2.7
            // (docs/generations.md) are DOCA's history: gone after 2.7.
            if (f.name == "doca_comch_server_get_device_repr" ||
                f.name == "doca_comch_server_event_connection_register") {
                EXPECT_EQ(e->find("max_doca_version")->as_string(), "2.7.0") << f.name;
                continue;
            }
            EXPECT_TRUE(e->find("max_doca_version")->is_null()) << f.name << " is still there";
            EXPECT_NE(e->find("min_doca_version")->as_string().substr(0, 2), "2.5") << f.name;
        }
    }
    EXPECT_GT(n, 100u);
}

TEST_F(CliVersionMatrix, GenerationsAndRenames)
{
    // doca_comch_* from 2.7; the two server calls renamed in 2.8.
    EXPECT_EQ(span("doca_comch_server_create"), span_t("2.7.0", "-"));
    EXPECT_EQ(span("doca_comch_server_get_device_repr"), span_t("2.7.0", "2.7.0"));
    EXPECT_EQ(span("doca_comch_server_get_device_rep"), span_t("2.8.0", "-"));
    EXPECT_EQ(span("doca_comch_server_event_connection_register"), span_t("2.7.0", "2.7.0"));
    EXPECT_EQ(span("doca_comch_server_event_connection_status_changed_register"),
              span_t("2.8.0", "-"));
    EXPECT_EQ(span("doca_comch_server_disconnect"), span_t("2.7.0", "-"));
    EXPECT_EQ(span("doca_comch_consumer_set_dev_num_recv"), span_t("2.7.0", "2.7.0"));
    EXPECT_EQ(span("doca_comch_consumer_set_dev_max_num_recv"), span_t("3.0.0", "-"));
    // doca_cc_* of 2.5 and 2.6: 2.6 renamed the tasks.
    EXPECT_EQ(span("doca_cc_server_create"), span_t("2.5.0", "2.6.0"));
    EXPECT_EQ(span("doca_cc_server_get_device_repr"), span_t("2.5.0", "2.6.0"));
    EXPECT_EQ(span("doca_cc_server_task_send_set_conf"), span_t("2.6.0", "2.6.0"));
    EXPECT_EQ(span("doca_cc_server_send_task_set_conf"), span_t("2.5.0", "2.5.0"));
    EXPECT_EQ(span("doca_cc_send_task_as_task"), span_t("2.5.0", "2.5.0"));
    EXPECT_EQ(span("doca_cc_consumer_cap_get_max_log_num_tasks"), span_t("2.5.0", "2.5.0"));
    EXPECT_EQ(row("doca_cc_server_disconnect"), nullptr); // new in 2.7
    EXPECT_EQ(row("doca_cc_server_create")->find("library")->as_string(), "doca");
    // The legacy endpoint API.
    EXPECT_EQ(span("doca_comm_channel_ep_create"), span_t("1.5.0", "2.8.0"));
    EXPECT_EQ(row("doca_comm_channel_ep_sendto")->find("library")->as_string(),
              "doca-comm-channel");
    // Every doca_comch call that existed in 2.6 names its doca_cc predecessor, which has a row.
    for (const auto &[cap, e] : rows_) {
        if (!cap.starts_with("doca_comch_"))
            continue;
        const std::string quote = e->find("source_quote")->as_string();
        const size_t at = quote.find("In DOCA 2.6 the same call was ");
        if (at == std::string::npos)
            continue;
        const std::string rest = quote.substr(at + 30);
        const std::string cc = rest.substr(0, rest.find_first_of(" .("));
        EXPECT_NE(row(cc), nullptr) << cap << " -> " << cc;
    }
    // Headers, modules, libraries, error codes.
    EXPECT_EQ(span("doca_cc.h"), span_t("2.5.0", "2.6.0"));
    EXPECT_EQ(span("doca_comch.h"), span_t("2.7.0", "-"));
    EXPECT_EQ(span("doca-comm-channel.pc").second, "2.8.0");
    EXPECT_EQ(span("DOCA_ERROR_BAD_CONFIG"), span_t("3.0.0", "-"));
}

TEST_F(CliVersionMatrix, DisagreementBetweenGuidesAndHeadersIsSaid)
{
    for (const char *cap : {"comch_api", "doca_comch_server_create", "doca_comch.h",
                            "doca-comch.pc", "doca_cc_server_create"}) {
        const json::value *e = row(cap);
        ASSERT_NE(e, nullptr) << cap;
        const std::string q = e->find("source_quote")->as_string();
        EXPECT_TRUE(contains(q, "Sources disagree")) << cap << ": " << q;
        EXPECT_TRUE(contains(q, "2.5")) << cap;
    }
    const std::string comch = row("comch_api")->find("source_quote")->as_string();
    EXPECT_TRUE(contains(comch, "2.6.0058 headers still say doca_cc_*")) << comch;
    EXPECT_TRUE(contains(comch, "2.7.0085")) << comch;
}

// Every capability the capability snapshot reports for a device in the groups of Comch, DMA,
// Compress and SHA can be looked up, in its library, under the query that answers it.
TEST_F(CliVersionMatrix, EverySnapshotCapabilityHasARow)
{
    auto r = sc({"caps", "--json", "-p", "03:00.0"});
    ASSERT_EQ(r.status, 0);
    const json::value snap = parse(r.out);
    const json::value &groups = *(*snap.find("devices"))[0].find("library_capabilities");
    const std::map<std::string, std::pair<std::string, size_t>> checked{
        {"doca-comch", {"doca_comch_", 15}},
        {"doca-dma", {"doca_dma_cap_", 2}},
        {"doca-compress", {"doca_compress_cap_", 11}},
        {"doca-sha", {"doca_sha_cap_", 13}},
    };
    for (const auto &[library, expected] : checked) {
        const json::value *flags = groups.find(library);
        ASSERT_NE(flags, nullptr) << library;
        ASSERT_GT(flags->size(), expected.second) << library;
        for (const auto &f : flags->elements()) {
            const std::string name = f.as_string().substr(0, f.as_string().find('='));
            const json::value *e = nullptr;
            for (auto [it, end] = rows_.equal_range(name); it != end; ++it)
                if (it->second->find("library")->as_string() == library)
                    e = it->second;
            ASSERT_NE(e, nullptr) << library << " " << name;
            EXPECT_TRUE(contains(e->find("display_name")->as_string(), expected.first)) << name;
            EXPECT_TRUE(e->find("max_doca_version")->is_null()) << name << " is still there";
        }
    }
    EXPECT_EQ(span("consumer_max_imm_data_len"), span_t("2.7.0", "-"));
    EXPECT_EQ(span("max_msg_size"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("memcpy_is_supported"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("decompress_lz4_stream_is_supported"), span_t("3.0.0", "-"));
    EXPECT_EQ(span("partial_hash_sha256_supported"), span_t("2.5.0", "-"));
}

// DMA, Compress, SHA and the DOCA Core parts they use: every doca_dma.h function has a row; the
// job API of 2.2 and the task API of 2.5 on, the renames, the headers, modules and libraries.
TEST_F(CliVersionMatrix, EnginesGenerationsAndRenames)
{
    const auto functions = declared_functions("doca_dma.h");
    EXPECT_GT(functions.size(), 10u);
    for (const auto &f : functions) {
        const json::value *e = row(f.name);
        ASSERT_NE(e, nullptr) << f.name << " (doca_dma.h) has no row";
        EXPECT_EQ(e->find("library")->as_string(), "doca-dma") << f.name;
        EXPECT_TRUE(e->find("max_doca_version")->is_null()) << f.name << " is still there";
    }
    EXPECT_EQ(span("doca_dma_task_memcpy_alloc_init"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("doca_dma_destroy"), span_t("2.2.0", "-"));
    EXPECT_EQ(span("doca_dma_get_gpu_handle"), span_t("2.8.0", "-"));
    // Jobs on a work queue until 2.2, tasks on a progress engine from 2.5.
    EXPECT_EQ(span("dma_task_api"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("dma_job_api"), span_t("1.3.0", "2.2.0"));
    EXPECT_EQ(span("doca_dma_job_memcpy"), span_t("1.3.0", "2.2.0"));
    EXPECT_EQ(span("doca_workq"), span_t("1.3.0", "2.2.0"));
    EXPECT_EQ(span("sync_event_task_api"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("graph_pe_api"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("graph_workq_api"), span_t("2.2.0", "2.2.0"));
    // mmap export: export_dpu became export_pci, create_from_export kept its signature.
    EXPECT_EQ(span("doca_mmap_export_pci"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("doca_mmap_export_dpu"), span_t("2.2.0", "2.2.0"));
    EXPECT_EQ(span("doca_mmap_create_from_export"), span_t("2.2.0", "-"));
    // One LZ4 task in 2.5 and 2.6; stream and block ones seen in 3.0, the stream one said older.
    EXPECT_EQ(span("doca_compress_task_decompress_lz4"), span_t("2.5.0", "2.6.0"));
    EXPECT_EQ(span("doca_compress_task_decompress_lz4_block"), span_t("3.0.0", "-"));
    const std::string stream =
        row("doca_compress_task_decompress_lz4_stream")->find("source_quote")->as_string();
    EXPECT_TRUE(contains(stream, "2.8.0081")) << stream;
    // SHA: partial sessions of the job API, the partial-hash task, a 2.6 rename.
    EXPECT_EQ(span("doca_sha_partial_session"), span_t("1.5.0", "2.2.0"));
    EXPECT_EQ(span("doca_sha_task_partial_hash"), span_t("2.5.0", "-"));
    EXPECT_EQ(span("doca_sha_task_partial_hash_set_is_final_buffer"), span_t("2.5.0", "2.5.0"));
    EXPECT_EQ(span("doca_sha_task_partial_hash_set_is_final_buf"), span_t("2.6.0", "-"));
    // Sync events: wait_gt task until 2.6, wait_eq/wait_neq seen in 3.0.
    EXPECT_EQ(span("doca_sync_event_task_wait_gt"), span_t("2.5.0", "2.6.0"));
    EXPECT_EQ(span("doca_sync_event_task_wait_eq"), span_t("3.0.0", "-"));
    // Headers, modules, libraries.
    EXPECT_EQ(span("doca_dma.h"), span_t("1.3.0", "-"));
    EXPECT_EQ(span("doca_compress.h"), span_t("1.5.0", "-"));
    EXPECT_EQ(span("doca_sha.h"), span_t("1.5.0", "-"));
    EXPECT_EQ(span("doca_graph.h"), span_t("2.2.0", "-"));
    EXPECT_EQ(span("doca_sync_event.h"), span_t("2.2.0", "-"));
    EXPECT_EQ(span("doca_mmap_advise.h"), span_t("2.8.0", "-"));
    for (const char *pc : {"doca-dma.pc", "doca-compress.pc", "doca-sha.pc"})
        EXPECT_EQ(span(pc), span_t("2.8.0", "-")) << pc;
    for (const char *so : {"libdoca_dma.so", "libdoca_compress.so", "libdoca_sha.so"})
        EXPECT_EQ(span(so), span_t("2.5.0", "-")) << so;
    // What DOCA 2.2 has of them: jobs, not tasks.
    auto r22 = sc({"version-matrix", "--json", "--release", "2.2"});
    const json::value d22 = parse(r22.out);
    std::set<std::string> in22;
    for (const auto &e : d22.find("entries")->elements())
        in22.insert(e.find("capability")->as_string());
    EXPECT_TRUE(in22.count("doca_dma_job_memcpy"));
    EXPECT_TRUE(in22.count("doca_mmap_export_dpu"));
    EXPECT_FALSE(in22.count("doca_dma_task_memcpy_alloc_init"));
    EXPECT_FALSE(in22.count("doca_mmap_export_pci"));
}

TEST_F(CliVersionMatrix, LookupsReleasesAndErrors)
{
    auto one = sc({"version-matrix", "doca_comch_server_get_device_rep"});
    ASSERT_EQ(one.status, 0);
    EXPECT_TRUE(has_line(one.out, "  available   2.8.0 and later")) << one.out;
    EXPECT_TRUE(has_line(one.out, "  source      https://")) << one.out;
    EXPECT_TRUE(has_line(one.out, "  evidence    ")) << one.out;
    // A part of a name: every row that contains it (the 2.7 and the 2.6 name here).
    auto part = sc({"version-matrix", "--json", "get_device_repr"});
    const json::value p = parse(part.out);
    ASSERT_TRUE(valid_matrix(p)) << part.out;
    std::set<std::string> caps;
    for (const auto &e : p.find("entries")->elements())
        caps.insert(e.find("capability")->as_string());
    EXPECT_EQ(caps, (std::set<std::string>{"doca_comch_server_get_device_repr",
                                           "doca_cc_server_get_device_repr"}));
    // What DOCA 2.6 has.
    auto r26 = sc({"version-matrix", "--json", "--release", "2.6"});
    const json::value d26 = parse(r26.out);
    std::set<std::string> in26;
    for (const auto &e : d26.find("entries")->elements())
        in26.insert(e.find("capability")->as_string());
    EXPECT_TRUE(in26.count("doca_cc_server_create"));
    EXPECT_TRUE(in26.count("doca_comm_channel_ep_create"));
    EXPECT_FALSE(in26.count("doca_comch_server_create"));
    EXPECT_FALSE(in26.count("doca_cc_send_task_as_task")); // 2.5 only
    auto r30 = sc({"version-matrix", "--release", "3.0.0058", "doca_cc_server_create"});
    EXPECT_EQ(r30.status, 0);
    EXPECT_TRUE(contains(r30.out, "none of the matching rows is available in DOCA 3.0.0058"));
    // The table.
    auto all = sc({"version-matrix"});
    ASSERT_EQ(all.status, 0);
    EXPECT_TRUE(has_line(all.out, "CAPABILITY ", {"LIBRARY", "FIRST", "LAST"})) << all.out;
    EXPECT_TRUE(has_line(all.out, "doca_comch_server_get_device_repr ", {"2.7.0", "2.7.0"}));
    // Unknown symbol, bad release, two symbols.
    auto typo = sc({"version-matrix", "doca_comch_server_craete_x"});
    EXPECT_EQ(typo.status, 1);
    EXPECT_TRUE(contains(typo.err, "no row for 'doca_comch_server_craete_x'")) << typo.err;
    EXPECT_TRUE(contains(typo.err, "did you mean doca_comch_server_create")) << typo.err;
    EXPECT_EQ(sc({"version-matrix", "--release", "latest"}).status, 2);
    EXPECT_EQ(sc({"version-matrix", "a", "b"}).status, 2);
    EXPECT_EQ(sc({"version-matrix", "--help"}).status, 0);
}

TEST_F(CliVersionMatrix, LiveSameWhileAPairIsConnected)
{
    live_pair pair("matrix-live");
    ASSERT_TRUE(pair.wait_connected());
    auto r = sc({"version-matrix", "--json"});
    EXPECT_EQ(parse(r.out), doc_);
    EXPECT_TRUE(pair.finish());
}

} // namespace
