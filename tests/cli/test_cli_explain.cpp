// SPDX-License-Identifier: Apache-2.0
//
// `softcomch explain`: every doca_error_t of include/doca_error.h has an entry (by name, short
// name and value, as text and JSON); every function of the Comch headers has a --call entry; the
// per-call rows agree with what SoftComch actually returns (each situation is provoked here
// through the public API and the code it gave must be among the call's rows); unknown codes and
// functions fail clearly. *Live*: the same output while a server and a client are connected.
#include <gtest/gtest.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include <unistd.h>

#include <cstdlib>
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

TEST_F(CliExplain, LiveSameWhileAPairIsConnected)
{
    const auto idle = sc({"explain", "--call", "doca_ctx_start", "--json"});
    live_pair pair("explain-live");
    ASSERT_TRUE(pair.wait_connected());
    EXPECT_EQ(sc({"explain", "--call", "doca_ctx_start", "--json"}).out, idle.out);
    EXPECT_TRUE(pair.finish());
}

} // namespace
