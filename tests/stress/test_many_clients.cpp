// SPDX-License-Identifier: Apache-2.0
//
// 512 client threads in one host process against one server (tests/programs/comch_threads): all
// connect, exchange checked messages and disconnect. The 64-thread version is in the default run
// (tests/integration/test_patterns.cpp). Knob: SOFTCOMCH_STRESS_CLIENTS (default 512).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "build_tree.hpp"
#include "process_runner.hpp"

TEST(ManyClients, FiveHundredTwelveClientThreadsInOneProcess)
{
    const char *n = std::getenv("SOFTCOMCH_STRESS_CLIENTS");
    const std::string clients = n && *n ? n : "512";
    auto r =
        sc_test::run_process({std::string(sc_test::build_tree::programs_dir) + "/comch_threads",
                              "--clients", clients, "--messages", "64", "--timeout", "300"},
                             {.timeout_s = 400});
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(sc_test::has_line(r.out, "clients_exchanged," + clients + ",")) << r.out;
    EXPECT_TRUE(sc_test::has_line(r.out, "result,ok")) << r.out;
    std::printf("%s", r.out.c_str());
}
