// SPDX-License-Identifier: Apache-2.0
//
// The bounds' knobs (src/common/bounds.hpp): defaults, accepted values, refusals with a reason.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/bounds.hpp"

namespace b = softcomch::bounds;

namespace {

uint64_t read_ok(const b::knob &k, const char *value)
{
    if (value)
        ::setenv(k.env, value, 1);
    else
        ::unsetenv(k.env);
    uint64_t v = 12345;
    std::string why;
    EXPECT_TRUE(b::read(k, v, why)) << (value ? value : "(unset)") << ": " << why;
    ::unsetenv(k.env);
    return v;
}

std::string read_bad(const b::knob &k, const char *value)
{
    ::setenv(k.env, value, 1);
    uint64_t v = 12345;
    std::string why;
    EXPECT_FALSE(b::read(k, v, why)) << value;
    EXPECT_EQ(v, 12345u) << "the output is written on success only";
    ::unsetenv(k.env);
    return why;
}

} // namespace

TEST(Bounds, DefaultsWhenUnsetOrEmpty)
{
    for (const b::knob *k : b::all) {
        EXPECT_EQ(read_ok(*k, nullptr), k->fallback) << k->env;
        EXPECT_EQ(read_ok(*k, ""), k->fallback) << k->env;
    }
    EXPECT_EQ(b::handshake_timeout.fallback, 5000u);
    EXPECT_EQ(b::peer_timeout.fallback, 0u) << "disconnecting a stalled peer is opt-in";
}

TEST(Bounds, DecimalValuesInRange)
{
    EXPECT_EQ(read_ok(b::handshake_timeout, "300"), 300u);
    EXPECT_EQ(read_ok(b::handshake_timeout, "3600000"), 3'600'000u);
    EXPECT_EQ(read_ok(b::stop_linger, "0"), 0u);
    EXPECT_EQ(read_ok(b::peer_stall, "0"), 0u) << "0 is off";
    EXPECT_EQ(read_ok(b::peer_stall, "50"), 50u);
    EXPECT_EQ(read_ok(b::max_handshakes, "1"), 1u);
}

TEST(Bounds, RefusalsNameTheVariableAndTheRange)
{
    const std::string why = read_bad(b::peer_stall, "20");
    EXPECT_NE(why.find("SOFTCOMCH_PEER_STALL_MS=\"20\""), std::string::npos) << why;
    EXPECT_NE(why.find("0 (off) or 50..86400000 ms"), std::string::npos) << why;
    for (const char *v : {"abc", "-1", "1.5", "10ms", " 10", "99999999999999999999999", "3600001"})
        read_bad(b::handshake_timeout, v);
    read_bad(b::handshake_timeout, "0"); // a deadline cannot be off
    read_bad(b::max_handshakes, "0");
    read_bad(b::max_handshakes, "65537");
}
