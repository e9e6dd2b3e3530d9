// SPDX-License-Identifier: Apache-2.0
//
// Fast-path stress: long N:M streams in both directions on one Comch connection between two
// processes, polling and epoll; each side is fastpath_stream.hpp's stream_side (N consumers and M
// producers on threads of their own, every message numbered and checksummed, exactly-once
// in-order delivery per pair, numbered control messages meanwhile).
//
// Label `stress` (make stress); not in the default run. Knobs (environment):
//   SOFTCOMCH_STRESS_SECONDS    streaming time per test case (default 150; two cases: polling, epoll)
//   SOFTCOMCH_STRESS_CONSUMERS  consumers per side (default 3)
//   SOFTCOMCH_STRESS_PRODUCERS  producers per side (default 2)
//   SOFTCOMCH_STRESS_MAX_MSG    largest message body in bytes (default 65536)
#include <gtest/gtest.h>

#include "fastpath_stream.hpp"

using namespace sc_test;
using namespace sc_test::fp;

namespace {

stream_cfg stress_cfg()
{
    stream_cfg c;
    c.seconds = env_long("SOFTCOMCH_STRESS_SECONDS", 150);
    c.consumers = env_long("SOFTCOMCH_STRESS_CONSUMERS", 3);
    c.producers = env_long("SOFTCOMCH_STRESS_PRODUCERS", 2);
    c.max_msg = size_t(env_long("SOFTCOMCH_STRESS_MAX_MSG", 65536));
    return c;
}

class FastPathStress : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override
    {
        unsetenv("SOFTCOMCH_SIDE");
        unsetenv("SOFTCOMCH_TOPOLOGY");
        use_private_fabric(std::string("stress-") + (GetParam() ? "epoll" : "poll"));
    }
};

} // namespace

TEST_P(FastPathStress, ManyToManyStreams)
{
    const bool ep = GetParam();
    const stream_cfg cfg = stress_cfg();
    ASSERT_GT(cfg.consumers, 0);
    ASSERT_GT(cfg.producers, 0);
    std::fprintf(
        stderr,
        "stress: %ld s, %ld consumers and %ld producers per side, messages up to %zu bytes, %s\n",
        cfg.seconds, cfg.consumers, cfg.producers, cfg.max_msg, ep ? "epoll" : "polling");
    child_guard srv(spawn([&] {
        return run_side<fp_server>("fp-stress", ep, [&](fp_server &s, doca_comch_connection *conn) {
            return stream_side(s, s, conn, s.dev(), ep, cfg, "dpu");
        });
    }));
    child_guard cli(spawn([&] {
        return run_side<fp_client>("fp-stress", ep, [&](fp_client &c, doca_comch_connection *conn) {
            return stream_side(c, c, conn, c.dev(), ep, cfg, "host");
        });
    }));
    auto budget = std::chrono::milliseconds((cfg.seconds + 120) * 1000);
    EXPECT_EQ(cli.wait(budget), 0) << "host side (client)";
    EXPECT_EQ(srv.wait(budget), 0) << "DPU side (server)";
}

INSTANTIATE_TEST_SUITE_P(Modes, FastPathStress, ::testing::Bool(),
                         [](const auto &pinfo) { return pinfo.param ? "epoll" : "polling"; });
