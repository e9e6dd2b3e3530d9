// SPDX-License-Identifier: Apache-2.0
//
// The text of the diagnostics (src/comch/diagnostics.hpp) from a given fabric view, and the
// hints for a device of the wrong side on the built-in machine. The integration tests
// (tests/integration/test_diagnostics.cpp) provoke each line between real processes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "comch/diagnostics.hpp"
#include "core/topology.hpp"

namespace diag = softcomch::comch::diag;
namespace transport = softcomch::transport;

namespace {

transport::endpoint_info server(const std::string &name, const std::string &function,
                                const std::string &rep, const std::string &bf = "bf0")
{
    transport::endpoint_info e;
    e.key = {bf, function, name};
    e.pid = 4242;
    e.dpu_device = "0000:03:00.0";
    e.representor = rep;
    return e;
}

const transport::endpoint_key k_client{"bf0", "0000:b1:00.0", "x"};

bool has(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(Diagnostics, NothingOnTheFabric)
{
    diag::fabric_view v;
    v.fabric = "default";
    const std::string s = diag::missing_server(k_client, v);
    EXPECT_EQ(s, "no server named 'x' for host function 0000:b1:00.0 on fabric 'default', and no "
                 "server listens on this fabric (start the DPU side's server first, with the "
                 "same SOFTCOMCH_FABRIC)");
}

TEST(Diagnostics, ListsTheServersThatExist)
{
    diag::fabric_view v;
    v.fabric = "default";
    v.here = {server("y", "0000:b1:00.1", "pf1hpf")};
    EXPECT_EQ(diag::missing_server(k_client, v),
              "no server named 'x' for host function 0000:b1:00.0 on fabric 'default'; servers on "
              "this fabric: 'y' bound to pf1hpf (0000:b1:00.1)");
    for (int i = 0; i < 10; ++i)
        // Appended, not "s" + std::string: g++ 12 warns falsely on that at -O3 (GCC bug 105651).
        v.here.push_back(
            server(std::string("s").append(std::to_string(i)), "0000:b1:00.0", "pf0hpf"));
    const std::string s = diag::missing_server(k_client, v);
    EXPECT_TRUE(has(s, "'s6' bound to pf0hpf (0000:b1:00.0) and 3 more")) << s;
    EXPECT_FALSE(has(s, "'s7'")) << s;
}

TEST(Diagnostics, DidYouMean)
{
    diag::fabric_view v;
    v.fabric = "f";
    const transport::endpoint_key key{"bf0", "0000:b1:00.0", "comch_ctrl_path_server"};
    v.here = {server("other", "0000:b1:00.0", "pf0hpf"),
              server("Comch_Ctrl_Path_Server", "0000:b1:00.0", "pf0hpf")};
    std::string s = diag::missing_server(key, v);
    EXPECT_TRUE(has(s, "; did you mean 'Comch_Ctrl_Path_Server'? (differs only in case)")) << s;
    v.here = {server("comch_ctrl_path_server ", "0000:b1:00.0", "pf0hpf")};
    s = diag::missing_server(key, v);
    EXPECT_TRUE(has(s, "did you mean 'comch_ctrl_path_server '? (differs in leading or trailing "
                       "spaces)"))
        << s;
    // A typo on another function: said too.
    v.here = {server("comch_ctrl_path_sever", "0000:b1:00.1", "pf1hpf")};
    s = diag::missing_server(key, v);
    EXPECT_TRUE(has(s, "did you mean 'comch_ctrl_path_sever'? (1 character apart, and bound to "
                       "pf1hpf (0000:b1:00.1))"))
        << s;
    // The same function wins over a nearer name elsewhere.
    v.here = {server("comch_ctrl_path_sever", "0000:b1:00.1", "pf1hpf"),
              server("comch_ctrl_pth_sever", "0000:b1:00.0", "pf0hpf")};
    s = diag::missing_server(key, v);
    EXPECT_TRUE(has(s, "did you mean 'comch_ctrl_pth_sever'? (2 characters apart)")) << s;
    // Nothing near: no suggestion.
    v.here = {server("data_path", "0000:b1:00.0", "pf0hpf")};
    EXPECT_FALSE(has(diag::missing_server(key, v), "did you mean")) << s;
}

TEST(Diagnostics, SameNameOnAnotherBlueField)
{
    diag::fabric_view v;
    v.fabric = "f";
    v.here = {server("x", "0000:c1:00.0", "pf0hpf", "bf1")};
    const std::string s = diag::missing_server(k_client, v);
    EXPECT_TRUE(has(s, "'x' bound to pf0hpf (0000:c1:00.0) of bf1")) << s;
    EXPECT_TRUE(has(s, "'x' serves 0000:c1:00.0 of bf1, not this client's device (0000:b1:00.0 "
                       "of bf0)"))
        << s;
}

TEST(Diagnostics, TheServerOnAnotherFabric)
{
    diag::fabric_view v;
    v.fabric = "mine";
    v.elsewhere = {{"theirs", server("x", "0000:b1:00.0", "pf0hpf")},
                   {"other", server("x", "0000:b1:00.1", "pf1hpf")}};
    const std::string s = diag::missing_server(k_client, v);
    EXPECT_TRUE(has(s, "; a server named 'x' for this host function listens on fabric 'theirs' "
                       "(pid 4242): start both sides with the same SOFTCOMCH_FABRIC"))
        << s;
    EXPECT_FALSE(has(s, "'other'")) << "another function's server is not this client's";
}

TEST(Diagnostics, QuotedNamesShowControlCharacters)
{
    EXPECT_EQ(diag::quoted("a b"), "'a b'");
    EXPECT_EQ(diag::quoted("a\nb\x7f"), "'a\\x0ab\\x7f'");
}

TEST(Diagnostics, WrongSideHints)
{
    unsetenv("SOFTCOMCH_TOPOLOGY");
    unsetenv("SOFTCOMCH_SIDE");
    const auto &m = softcomch::core::machine();
    ASSERT_NE(m.topo, nullptr) << m.error;
    const doca_devinfo *dpu = m.topo->find_device(softcomch::core::side::dpu, "0000:03:00.0");
    const doca_devinfo *host = m.topo->find_device(softcomch::core::side::host, "0000:b1:00.0");
    ASSERT_NE(dpu, nullptr);
    ASSERT_NE(host, nullptr);
    const std::string c = diag::wrong_side_hint(*dpu, false);
    EXPECT_TRUE(has(c, "0000:03:00.0 is on the DPU side of bf0, where the server runs; start the "
                       "client on the host, on a host function this device represents: "
                       "0000:b1:00.0 (pf0hpf)"))
        << c;
    const std::string s = diag::wrong_side_hint(*host, true);
    EXPECT_EQ(s, "0000:b1:00.0 is a host function of bf0, where the client runs; start the server "
                 "on the DPU side (device 0000:03:00.0 with representor pf0hpf, which stands for "
                 "0000:b1:00.0)");
}
