// SPDX-License-Identifier: Apache-2.0
//
// `softcomch caps`, its alias <build>/tools/doca_caps and doca-capability-snapshot (= caps
// --json), run as a user runs them: a separate process in a controlled environment. The text is
// checked against doca_caps' layout, the JSON field by field against the contract's
// capability-snapshot schema, and the values against what a DPU-side server process and a
// host-side client process, connected over the real transport, read through the public API.
// Tests named *Live* fork that pair (label integration); the others run the tool alone (fast).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "live_pair.hpp"

namespace {

using namespace sc_cli;
using sc_test::contains;
using sc_test::has_line;

class CliCaps : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(access(tool().c_str(), X_OK), 0) << tool() << " is missing";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
};

// The flags of library `lib` of the snapshot's device at `pci`.
std::vector<std::string> flags_of(const json::value &snap, const std::string &pci,
                                  const std::string &lib)
{
    std::vector<std::string> out;
    for (const auto &d : snap.find("devices")->elements())
        if (d.find("pcie_address")->as_string() == pci)
            if (const json::value *f = d.find("library_capabilities")->find(lib))
                for (const auto &s : f->elements())
                    out.push_back(s.as_string());
    return out;
}

size_t count_lines(const std::string &text, const std::string &prefix)
{
    size_t n = 0, pos = 0;
    while (pos < text.size()) {
        const size_t end = text.find('\n', pos);
        if (text.compare(pos, prefix.size(), prefix) == 0)
            ++n;
        if (end == std::string::npos)
            break;
        pos = end + 1;
    }
    return n;
}

// ---------------------------------------------------------------------------------------------

TEST_F(CliCaps, HelpAndBadCommandLines)
{
    auto h = sc({"caps", "--help"});
    EXPECT_EQ(h.status, 0);
    for (const char *o : {"--list-devs", "--list-rep-devs", "--list-libs", "-p, --pci-addr PCI",
                          "-v, --version", "--json", "Exit status"})
        EXPECT_TRUE(contains(h.out, o)) << o << "\n" << h.out;
    EXPECT_EQ(sc({"caps", "--bogus"}).status, 2);
    EXPECT_EQ(sc({"caps", "--json", "--list-devs"}).status, 2);
    auto bad = sc({"caps", "-p", "not-an-address"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_TRUE(contains(bad.err, "not a PCI address")) << bad.err;
    auto none = sc({"caps", "-p", "ee:00.0"});
    EXPECT_EQ(none.status, 1);
    EXPECT_TRUE(contains(none.err, "no device at 0000:ee:00.0")) << none.err;
    EXPECT_TRUE(contains(none.err, "0000:03:00.0")) << none.err; // lists the visible ones
    auto topo = sc({"caps"}, {{"SOFTCOMCH_TOPOLOGY", "/nonexistent/topology.json"}});
    EXPECT_EQ(topo.status, 1);
    EXPECT_TRUE(contains(topo.err, "DOCA_ERROR_INITIALIZATION")) << topo.err;
}

TEST_F(CliCaps, EveryDeviceInDocaCapsLayout)
{
    auto r = sc({"caps"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(doca_caps_layout(r.out, true)) << r.out;
    EXPECT_EQ(count_lines(r.out, "PCI: "), 5u) << r.out;
    for (const char *pci :
         {"0000:b1:00.0", "0000:b1:00.1", "0000:b1:00.2", "0000:03:00.0", "0000:03:00.1"})
        for (const char *block : {"common", "comch", "comch_consumer", "comch_producer", "dma",
                                  "mmap", "sync_event", "mmap_advise", "compress", "sha"})
            EXPECT_FALSE(block_rows(r.out, pci, block).empty()) << pci << " " << block;
    // The built-in BlueField-3: deflate and LZ4 decompression, no compression, no SHA.
    auto compress = block_rows(r.out, "0000:03:00.0", "compress");
    EXPECT_EQ(compress["compress_deflate_is_supported"], "unsupported");
    EXPECT_EQ(compress["decompress_deflate_is_supported"], "supported");
    EXPECT_EQ(compress["decompress_lz4_stream_is_supported"], "supported");
    EXPECT_EQ(block_rows(r.out, "0000:03:00.0", "sha")["hash_sha256_supported"], "unsupported");
    EXPECT_EQ(block_rows(r.out, "0000:03:00.0", "dma")["memcpy_is_supported"], "supported");
    // The roles follow the side: servers on the DPU side, clients on the host side.
    auto dpu = block_rows(r.out, "0000:03:00.0", "comch");
    EXPECT_EQ(dpu["server_is_supported"], "supported");
    EXPECT_EQ(dpu["client_is_supported"], "unsupported");
    EXPECT_EQ(dpu["max_msg_size"], "4080");
    auto host = block_rows(r.out, "0000:b1:00.0", "comch");
    EXPECT_EQ(host["server_is_supported"], "unsupported");
    EXPECT_EQ(host["client_is_supported"], "supported");
    for (const char *row :
         {"max_name_len", "max_msg_size", "max_recv_queue_size", "max_clients", "max_send_tasks"})
        EXPECT_EQ(host.count(row), 1u) << row;
    auto consumer = block_rows(r.out, "0000:b1:00.0", "comch_consumer");
    for (const char *row : {"is_supported", "max_num_tasks", "max_buf_size", "max_buf_list_len",
                            "max_consumers", "max_imm_data_len"})
        EXPECT_EQ(consumer.count(row), 1u) << row;
    auto producer = block_rows(r.out, "0000:b1:00.0", "comch_producer");
    for (const char *row :
         {"is_supported", "max_num_tasks", "max_buf_size", "max_buf_list_len", "max_producers"})
        EXPECT_EQ(producer.count(row), 1u) << row;

    // -p narrows to one device, in either address form.
    auto one = sc({"caps", "-p", "03:00.0"});
    ASSERT_EQ(one.status, 0);
    EXPECT_EQ(count_lines(one.out, "PCI: "), 1u);
    EXPECT_EQ(one.out, sc({"caps", "--pci-addr", "0000:03:00.0"}).out);
}

TEST_F(CliCaps, ListDevsRepDevsLibsVersion)
{
    auto devs = sc({"caps", "--list-devs"});
    ASSERT_EQ(devs.status, 0);
    EXPECT_TRUE(doca_caps_layout(devs.out, false)) << devs.out;
    auto rows =
        block_rows("PCI: x\n    all\n" + devs.out.substr(devs.out.find('\n') + 1), "x", "all");
    EXPECT_EQ(rows["ibdev_name"], "mlx5_0");
    EXPECT_EQ(rows["iface_name"], "ens1f0np0");
    EXPECT_EQ(rows["pci_func_type"], "PF");
    EXPECT_EQ(rows["side"], "host");
    EXPECT_TRUE(has_line(devs.out, "        mac_addr", {"02:5c:00:00:00:00"})) << devs.out;

    auto reps = sc({"caps", "--list-rep-devs"});
    ASSERT_EQ(reps.status, 0);
    EXPECT_TRUE(doca_caps_layout(reps.out, false)) << reps.out;
    EXPECT_EQ(count_lines(reps.out, "PCI: "), 2u) << reps.out; // the two DPU-side PFs
    auto pf0hpf = block_rows(reps.out, "0000:03:00.0", "pf0hpf");
    EXPECT_EQ(pf0hpf["pci_addr"], "0000:b1:00.0");
    EXPECT_EQ(pf0hpf["pci_func_type"], "PF");
    EXPECT_EQ(pf0hpf["open_permitted"], "yes");
    EXPECT_EQ(block_rows(reps.out, "0000:03:00.0", "pf0vf0")["pci_func_type"], "VF");
    EXPECT_EQ(block_rows(reps.out, "0000:03:00.1", "pf1hpf")["pci_addr"], "0000:b1:00.1");
    // The host side has none.
    auto host_reps = sc({"caps", "--list-rep-devs"}, {{"SOFTCOMCH_SIDE", "host"}});
    EXPECT_EQ(host_reps.status, 0);
    EXPECT_EQ(count_lines(host_reps.out, "PCI: "), 0u);
    EXPECT_TRUE(contains(host_reps.err, "none of these devices has representors"));

    auto libs = sc({"caps", "--list-libs"});
    ASSERT_EQ(libs.status, 0);
    EXPECT_TRUE(has_line(libs.out, "comch ", {"supported"})) << libs.out;
    EXPECT_TRUE(has_line(libs.out, "comch_msgq ", {"unsupported"})) << libs.out;

    auto v = sc({"caps", "-v"});
    ASSERT_EQ(v.status, 0);
    EXPECT_TRUE(contains(v.out, DOCA_VERSION_STRING)) << v.out;
}

TEST_F(CliCaps, DocaCapsAliasIsCaps)
{
    ASSERT_EQ(access(tool("doca_caps").c_str(), X_OK), 0) << tool("doca_caps");
    for (std::vector<std::string> args :
         {std::vector<std::string>{}, {"--list-devs"}, {"--list-rep-devs"}, {"-p", "b1:00.2"}}) {
        std::vector<std::string> argv{tool("doca_caps")};
        argv.insert(argv.end(), args.begin(), args.end());
        auto alias = run(argv, tool_env());
        args.insert(args.begin(), "caps");
        auto direct = sc(args);
        EXPECT_EQ(alias.status, 0);
        EXPECT_EQ(alias.out, direct.out);
    }
    auto help = run({tool("doca_caps"), "--help"}, tool_env());
    EXPECT_EQ(help.status, 0);
    EXPECT_TRUE(contains(help.out, "Usage: softcomch caps"));
}

TEST_F(CliCaps, SnapshotSchemaBothSidesAndOne)
{
    auto r = sc({"caps", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json::value snap = parse(r.out);
    ASSERT_TRUE(valid_snapshot(snap)) << r.out;
    EXPECT_EQ(snap.find("doca_version")->as_string(), DOCA_VERSION_STRING);
    EXPECT_EQ(snap.find("host_kind")->as_string(), "host");
    ASSERT_EQ(snap.find("devices")->size(), 5u);
    for (const auto &d : snap.find("devices")->elements()) {
        const auto &libs = *d.find("library_capabilities");
        ASSERT_NE(libs.find("doca-comch"), nullptr);
        ASSERT_NE(libs.find("doca-common"), nullptr);
        for (const auto &[lib, flags] : libs.items())
            for (const auto &f : flags.elements())
                EXPECT_NE(f.as_string().find('='), std::string::npos)
                    << lib << ": " << f.as_string();
    }
    // The alias prints the same document (up to the time stamp).
    auto alias = run({tool("doca-capability-snapshot")}, tool_env());
    ASSERT_EQ(alias.status, 0);
    json::value other = parse(alias.out);
    ASSERT_TRUE(valid_snapshot(other));
    other.set("snapshot_at", *snap.find("snapshot_at"));
    EXPECT_EQ(other, snap);

    // A process on the DPU side: a BlueField, its devices only.
    auto dpu = sc({"caps", "--json"}, {{"SOFTCOMCH_SIDE", "dpu"}});
    const json::value d = parse(dpu.out);
    ASSERT_TRUE(valid_snapshot(d)) << dpu.out;
    EXPECT_EQ(d.find("host_kind")->as_string(), "bluefield");
    ASSERT_EQ(d.find("devices")->size(), 2u);
    EXPECT_EQ((*d.find("devices"))[0].find("pcie_address")->as_string(), "0000:03:00.0");
}

// The values printed are those a DPU-side and a host-side program read through the API, with a
// topology whose capability values are not the defaults, while the two are connected.
TEST_F(CliCaps, LiveValuesAreWhatProgramsRead)
{
    char dir[] = "/tmp/softcomch-caps-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string topo = std::string(dir) + "/topology.json";
    std::ofstream(topo) << R"({"bluefields": [
      {"id": "bf0", "comch_caps": {"max_msg_size": 2048, "max_clients": 7, "max_consumers": 3,
                                   "producer_max_buf_size": 65536},
       "host": [{"pci": "b1:00.0"}],
       "dpu": [{"pci": "03:00.0", "representors": [{"host_function": "b1:00.0"}]}]},
      {"id": "bf1", "model": "BlueField-2", "mode": "nic", "host": [{"pci": "ca:00.0"}],
       "dpu": [{"pci": "04:00.0"}]}]})";
    ::setenv("SOFTCOMCH_TOPOLOGY", topo.c_str(), 1);
    live_pair pair("caps-live");
    ASSERT_TRUE(pair.wait_connected());
    ASSERT_FALSE(pair.server_caps.empty());
    ASSERT_FALSE(pair.client_caps.empty());
    EXPECT_NE(std::find(pair.server_caps.begin(), pair.server_caps.end(), "max_msg_size=2048"),
              pair.server_caps.end());

    const env_map env{{"SOFTCOMCH_TOPOLOGY", topo}};
    auto j = sc({"caps", "--json"}, env);
    ASSERT_EQ(j.status, 0) << j.err;
    const json::value snap = parse(j.out);
    ASSERT_TRUE(valid_snapshot(snap)) << j.out;
    ASSERT_EQ(snap.find("devices")->size(), 4u);
    const auto server_flags = flags_of(snap, pair.server_pci, "doca-comch");
    const auto client_flags = flags_of(snap, pair.client_pci, "doca-comch");
    EXPECT_EQ(server_flags, pair.server_caps);
    EXPECT_EQ(client_flags, pair.client_caps);
    // The NIC-mode BlueField's devices run no Comch.
    const auto nic = flags_of(snap, "0000:04:00.0", "doca-comch");
    EXPECT_NE(std::find(nic.begin(), nic.end(), "server_is_supported=unsupported"), nic.end());
    EXPECT_NE(std::find(nic.begin(), nic.end(), "consumer_is_supported=unsupported"), nic.end());
    // A BlueField-2: SHA and deflate compression, no LZ4.
    const auto sha = flags_of(snap, "0000:04:00.0", "doca-sha");
    EXPECT_NE(std::find(sha.begin(), sha.end(), "hash_sha256_supported=supported"), sha.end());
    EXPECT_NE(std::find(sha.begin(), sha.end(), "min_dst_buf_size_sha512=64"), sha.end());
    const auto cmp = flags_of(snap, "0000:04:00.0", "doca-compress");
    EXPECT_NE(std::find(cmp.begin(), cmp.end(), "compress_deflate_is_supported=supported"),
              cmp.end());
    EXPECT_NE(std::find(cmp.begin(), cmp.end(), "decompress_lz4_block_is_supported=unsupported"),
              cmp.end());

    // The text shows the same values.
    auto t = sc({"caps"}, env);
    ASSERT_EQ(t.status, 0);
    EXPECT_TRUE(doca_caps_layout(t.out, true)) << t.out;
    EXPECT_EQ(block_rows(t.out, pair.server_pci, "comch")["max_msg_size"], "2048");
    EXPECT_EQ(block_rows(t.out, pair.server_pci, "comch")["max_clients"], "7");
    EXPECT_EQ(block_rows(t.out, pair.client_pci, "comch_consumer")["max_consumers"], "3");
    EXPECT_EQ(block_rows(t.out, pair.client_pci, "comch_producer")["max_buf_size"], "65536");
    auto reps = sc({"caps", "--list-rep-devs"}, env);
    EXPECT_EQ(count_lines(reps.out, "PCI: "), 1u) << reps.out;

    // Looking at the machine disturbed nothing: the connection still carries a message.
    EXPECT_TRUE(pair.finish());
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
}

} // namespace
