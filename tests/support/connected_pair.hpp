// SPDX-License-Identifier: Apache-2.0
//
// A connected server/client pair in one process over the PUBLIC API (the harness's wrappers,
// comch_harness.hpp), progressed alternately: the bad-input and lifetime API tests' fixture.
// Header-only: it is small.
#pragma once

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_pe.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "comch_harness.hpp"

namespace sc_test {

// A connected server/client pair (the harness's wrappers), progressed alternately.
struct connected_pair {
    sc_test::server srv;
    sc_test::client cli;
    doca_comch_connection *srv_conn = nullptr; // the server's end
    doca_comch_connection *cli_conn = nullptr; // the client's end

    connected_pair(const std::string &name, sc_test::server_options so = {},
                   sc_test::client_options co = {}, uint32_t server_max_msg = 0)
        : srv(name, so), cli(name, co)
    {
        EXPECT_TRUE(srv.ok());
        EXPECT_TRUE(cli.ok());
        if (server_max_msg) {
            EXPECT_EQ(doca_comch_server_set_max_msg_size(srv.handle(), server_max_msg),
                      DOCA_SUCCESS);
        }
        EXPECT_EQ(srv.start(), DOCA_SUCCESS);
        EXPECT_EQ(cli.start(), DOCA_ERROR_IN_PROGRESS);
        EXPECT_TRUE(progress(
            [&] { return cli.state() == DOCA_CTX_STATE_RUNNING && srv.connections.size() == 1; }));
        cli_conn = cli.connection();
        srv_conn = srv.connections.empty() ? nullptr : srv.connections.front();
        EXPECT_NE(cli_conn, nullptr);
        EXPECT_NE(srv_conn, nullptr);
    }
    template <typename Pred>
    bool progress(Pred pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000))
    {
        auto end = clock::now() + timeout;
        while (!pred()) {
            if (clock::now() > end)
                return false;
            unsigned work = doca_pe_progress(srv.pe());
            work += doca_pe_progress(cli.pe());
            if (!work)
                std::this_thread::sleep_for(std::chrono::microseconds(10));
        }
        return true;
    }
    void stop_client()
    {
        if (cli.state() != DOCA_CTX_STATE_IDLE)
            doca_ctx_stop(cli.ctx());
        EXPECT_TRUE(progress([&] { return cli.state() == DOCA_CTX_STATE_IDLE; }));
    }
    void stop_server()
    {
        if (srv.state() != DOCA_CTX_STATE_IDLE)
            doca_ctx_stop(srv.ctx());
        EXPECT_TRUE(progress([&] { return srv.state() == DOCA_CTX_STATE_IDLE; }));
    }
    ~connected_pair()
    {
        stop_client();
        stop_server();
    }
};

} // namespace sc_test
