// SPDX-License-Identifier: Apache-2.0
//
// SOFTCOMCH_FAULTS: the grammar (src/comch/faults.hpp) and the per-connection triggers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "comch/faults.hpp"

using softcomch::comch::connection_faults;
using softcomch::comch::fault_kind;
using softcomch::comch::fault_plan;
using softcomch::comch::fault_scope;
using softcomch::comch::parse_faults;

namespace {

fault_plan parse_ok(const char *text)
{
    fault_plan plan;
    std::string why;
    EXPECT_EQ(parse_faults(text, &plan, &why), DOCA_SUCCESS) << text << ": " << why;
    return plan;
}

std::string parse_error(const char *text)
{
    fault_plan plan;
    std::string why;
    EXPECT_EQ(parse_faults(text, &plan, &why), DOCA_ERROR_BAD_CONFIG) << text;
    return why;
}

constexpr uint64_t ms = 1'000'000;

} // namespace

TEST(Faults, ParsesEveryFaultWithItsOptions)
{
    fault_plan p = parse_ok("disconnect,after=100; delay,ms=5 ;submit-again,every=10;"
                            "consumer-start-fail,code=DOCA_ERROR_IO_FAILED;kill-channel,after=3;"
                            "hang,at=2s,for=250ms,server=srv,side=dpu,fabric=f1,conn=2");
    ASSERT_EQ(p.rules.size(), 6u);
    EXPECT_EQ(p.rules[0].kind, fault_kind::disconnect);
    EXPECT_EQ(p.rules[0].after, 100u);
    EXPECT_EQ(p.rules[1].kind, fault_kind::delay);
    EXPECT_EQ(p.rules[1].delay_ns, 5 * ms);
    EXPECT_EQ(p.rules[2].every, 10u);
    EXPECT_EQ(p.rules[3].code, DOCA_ERROR_IO_FAILED);
    EXPECT_EQ(p.rules[4].kind, fault_kind::kill_channel);
    const auto &h = p.rules[5];
    EXPECT_EQ(h.kind, fault_kind::hang);
    EXPECT_EQ(h.at_ns, 2000 * ms);
    EXPECT_EQ(h.for_ns, 250 * ms);
    EXPECT_EQ(h.server, "srv");
    EXPECT_EQ(h.side, "dpu");
    EXPECT_EQ(h.fabric, "f1");
    EXPECT_EQ(h.conn, 2u);
    EXPECT_EQ(h.text, "hang,at=2s,for=250ms,server=srv,side=dpu,fabric=f1,conn=2");
}

TEST(Faults, EmptyTextAndEmptyRulesAreNoPlan)
{
    EXPECT_TRUE(parse_ok("").empty());
    EXPECT_TRUE(parse_ok(" ; ;").empty());
}

TEST(Faults, MistakesSayWhatIsWrong)
{
    EXPECT_NE(parse_error("explode").find("unknown fault \"explode\""), std::string::npos);
    EXPECT_NE(parse_error("disconnect").find("exactly one of after=N and at=T"), std::string::npos);
    EXPECT_NE(parse_error("disconnect,after=1,at=1s").find("exactly one"), std::string::npos);
    EXPECT_NE(parse_error("delay").find("needs ms=N"), std::string::npos);
    EXPECT_NE(parse_error("submit-again,every=0").find("bad value \"0\" for every"),
              std::string::npos);
    EXPECT_NE(parse_error("kill-channel").find("needs after=N"), std::string::npos);
    EXPECT_NE(parse_error("hang,at=5").find("a duration such as 250ms"), std::string::npos);
    EXPECT_NE(parse_error("hang,at=5m").find("bad value"), std::string::npos);
    EXPECT_NE(parse_error("delay,every=3").find("takes no option \"every\""), std::string::npos);
    EXPECT_NE(parse_error("delay,ms").find("is not key=value"), std::string::npos);
    EXPECT_NE(parse_error("side=cpu,delay,ms=1").find("unknown fault"), std::string::npos);
    EXPECT_NE(parse_error("delay,ms=1,side=cpu").find("(host or dpu)"), std::string::npos);
    EXPECT_NE(parse_error("consumer-start-fail,code=DOCA_ERROR_NOPE").find("DOCA_ERROR_* name"),
              std::string::npos);
    // The rule is named, and the variable.
    EXPECT_NE(parse_error("delay,ms=1;hang").find("SOFTCOMCH_FAULTS: rule \"hang\""),
              std::string::npos);
}

TEST(Faults, FromEnvReadsTheVariableEachCall)
{
    fault_plan p;
    std::string why;
    ::unsetenv("SOFTCOMCH_FAULTS");
    ASSERT_EQ(softcomch::comch::faults_from_env(&p, &why), DOCA_SUCCESS);
    EXPECT_TRUE(p.empty());
    ::setenv("SOFTCOMCH_FAULTS", "delay,ms=2", 1);
    ASSERT_EQ(softcomch::comch::faults_from_env(&p, &why), DOCA_SUCCESS);
    EXPECT_EQ(p.rules.size(), 1u);
    ::setenv("SOFTCOMCH_FAULTS", "delay,ms=x", 1);
    EXPECT_EQ(softcomch::comch::faults_from_env(&p, &why), DOCA_ERROR_BAD_CONFIG);
    ::unsetenv("SOFTCOMCH_FAULTS");
}

TEST(Faults, RulesApplyOnlyWhereTheirScopeMatches)
{
    fault_plan p = parse_ok("delay,ms=7,server=a,side=dpu,fabric=f,conn=3");
    EXPECT_TRUE(connection_faults(p, {"f", "a", "dpu", 3}, 0).any());
    EXPECT_FALSE(connection_faults(p, {"g", "a", "dpu", 3}, 0).any());
    EXPECT_FALSE(connection_faults(p, {"f", "b", "dpu", 3}, 0).any());
    EXPECT_FALSE(connection_faults(p, {"f", "a", "host", 3}, 0).any());
    EXPECT_FALSE(connection_faults(p, {"f", "a", "dpu", 2}, 0).any());
    EXPECT_EQ(connection_faults(p, {"f", "a", "dpu", 3}, 0).delivery_delay_ns(), 7 * ms);
    EXPECT_EQ(connection_faults(p, {"f", "b", "dpu", 3}, 0).delivery_delay_ns(), 0u);
}

TEST(Faults, DisconnectAfterNSendsFiresOnceOnTheNth)
{
    connection_faults f(parse_ok("disconnect,after=3"), {}, 0);
    EXPECT_FALSE(f.on_send());
    EXPECT_FALSE(f.on_send());
    EXPECT_TRUE(f.on_send());
    EXPECT_FALSE(f.on_send());
}

TEST(Faults, DisconnectAtATimeIsDueOnceThen)
{
    connection_faults f(parse_ok("disconnect,at=100ms"), {}, 1000 * ms);
    EXPECT_FALSE(f.disconnect_due(1050 * ms));
    EXPECT_TRUE(f.disconnect_due(1100 * ms));
    EXPECT_FALSE(f.disconnect_due(1200 * ms));
    EXPECT_FALSE(f.on_send());
}

TEST(Faults, SubmitAgainEveryNth)
{
    connection_faults f(parse_ok("submit-again,every=3"), {}, 0);
    int again = 0;
    for (int i = 1; i <= 9; ++i) {
        const bool a = f.submit_again();
        EXPECT_EQ(a, i % 3 == 0) << i;
        again += a;
    }
    EXPECT_EQ(again, 3);
}

TEST(Faults, KillChannelOnTheNthFastPathSend)
{
    connection_faults f(parse_ok("kill-channel,after=2"), {}, 0);
    EXPECT_FALSE(f.kill_channel());
    EXPECT_TRUE(f.kill_channel());
    EXPECT_FALSE(f.kill_channel());
}

TEST(Faults, HangForAWhileThenServeAgain)
{
    connection_faults f(parse_ok("hang,after=2,for=50ms"), {}, 0);
    EXPECT_FALSE(f.hung(10 * ms));
    f.on_send();
    EXPECT_FALSE(f.hung(20 * ms));
    f.on_send();
    EXPECT_TRUE(f.hung(30 * ms));
    EXPECT_TRUE(f.hung(79 * ms));
    EXPECT_FALSE(f.hung(80 * ms));
}

TEST(Faults, HangForEver)
{
    connection_faults f(parse_ok("hang,at=1s"), {}, 0);
    EXPECT_FALSE(f.hung(999 * ms));
    EXPECT_TRUE(f.hung(1000 * ms));
    EXPECT_TRUE(f.hung(1'000'000 * ms));
}

TEST(Faults, ConsumerStartFailsWithTheCodeAsked)
{
    EXPECT_EQ(connection_faults(parse_ok("consumer-start-fail"), {}, 0).consumer_start(),
              DOCA_ERROR_DRIVER);
    EXPECT_EQ(connection_faults(parse_ok("consumer-start-fail,code=DOCA_ERROR_NO_MEMORY"), {}, 0)
                  .consumer_start(),
              DOCA_ERROR_NO_MEMORY);
    EXPECT_EQ(connection_faults(parse_ok("delay,ms=1"), {}, 0).consumer_start(), DOCA_SUCCESS);
}

TEST(Faults, TheNextTimerIsTheEarliestTimedFaultOrTheEndOfAHang)
{
    connection_faults f(parse_ok("disconnect,at=100ms;hang,at=50ms,for=20ms;delay,ms=3"), {},
                        1000 * ms);
    EXPECT_EQ(f.next_timer_ns(), 1050 * ms);
    EXPECT_TRUE(f.hung(1050 * ms));
    EXPECT_EQ(f.next_timer_ns(), 1070 * ms); // the hang's end
    EXPECT_FALSE(f.hung(1070 * ms));
    EXPECT_EQ(f.next_timer_ns(), 1100 * ms);
    EXPECT_TRUE(f.disconnect_due(1100 * ms));
    EXPECT_EQ(f.next_timer_ns(), 0u);
    // Counted faults and a hang for ever have no timer.
    connection_faults g(parse_ok("hang,after=1;disconnect,after=5"), {}, 0);
    EXPECT_EQ(g.next_timer_ns(), 0u);
    g.on_send();
    EXPECT_TRUE(g.hung(1 * ms));
    EXPECT_EQ(g.next_timer_ns(), 0u);
    EXPECT_TRUE(g.hung(1'000'000 * ms));
}
