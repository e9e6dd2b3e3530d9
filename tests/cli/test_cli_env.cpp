// SPDX-License-Identifier: Apache-2.0
//
// `softcomch env` and `softcomch collect-state`, and their aliases doca-env,
// doca-collect-host-state and doca-collect-dpu-state: the JSON checked field by field against the
// contract's doca-env and collect-host-state / collect-dpu-state schemas, the emulated devices
// against the machine a server and a client process use, and the build hazards against a fake
// DOCA install (a second doca-comch.pc, a legacy doca-comm-channel.pc, a libdoca_comch the loader
// resolves elsewhere, versions that disagree). Tests named *Live* fork the server and client
// (label integration); the others run the tool alone (fast).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "live_pair.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sc_cli;
using sc_test::contains;
using sc_test::has_line;

class CliEnv : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_EQ(access(tool().c_str(), X_OK), 0) << tool() << " is missing";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        char tmpl[] = "/tmp/softcomch-env-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        fs::create_directories(dir_ + "/empty");
    }
    void TearDown() override
    {
        std::error_code ec;
        if (!dir_.empty())
            fs::remove_all(dir_, ec);
    }

    // An environment in which pkg-config sees only `pc_path` (nothing of the machine's own).
    env_map isolated(const std::string &pc_path = "") const
    {
        return {{"PKG_CONFIG_LIBDIR", dir_ + "/empty"}, {"PKG_CONFIG_PATH", pc_path}};
    }
    proc_result env_json(const env_map &set, const std::vector<std::string> &extra = {})
    {
        std::vector<std::string> args{"env", "--json", "--doca-root", dir_ + "/no-doca"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run(argv_of(args), tool_env(set, {"LD_LIBRARY_PATH"}));
    }
    static std::vector<std::string> argv_of(const std::vector<std::string> &args)
    {
        std::vector<std::string> argv{tool()};
        argv.insert(argv.end(), args.begin(), args.end());
        return argv;
    }

    // A DOCA install tree of another version: doca-common, doca-comch and the legacy
    // doca-comm-channel modules, libdoca_comch.so -> .so.2.9.0072, applications/VERSION and two
    // sample directories.
    std::string make_fake_doca()
    {
        const std::string root = dir_ + "/doca";
        const std::string lib = root + "/lib/x86_64-linux-gnu";
        fs::create_directories(lib + "/pkgconfig");
        fs::create_directories(root + "/applications");
        fs::create_directories(root + "/samples/doca_comch/comch_ctrl_path_server");
        fs::create_directories(root + "/samples/doca_dma");
        std::ofstream(root + "/applications/VERSION") << "2.9.0072\n";
        for (const char *m : {"doca-common", "doca-comch", "doca-comm-channel"}) {
            std::ofstream pc(lib + "/pkgconfig/" + m + ".pc");
            pc << "prefix=" << root << "\nlibdir=${prefix}/lib/x86_64-linux-gnu\n"
               << "Name: " << m << "\nDescription: DOCA " << m << "\nVersion: 2.9.0072\n"
               << "Libs: -L${libdir} -l" << m << "\n";
        }
        std::ofstream(lib + "/libdoca_comch.so.2.9.0072") << "not a library";
        fs::create_symlink("libdoca_comch.so.2.9.0072", lib + "/libdoca_comch.so");
        return root;
    }

    std::string dir_;
};

const json::value *hazard(const json::value &doc, const std::string &check)
{
    for (const auto &h : doc.find("softcomch")->find("hazards")->elements())
        if (h.find("check")->as_string() == check)
            return &h;
    return nullptr;
}

const json::value *library(const json::value &doc, const std::string &name)
{
    for (const auto &l : doc.find("libraries")->elements())
        if (l.find("pkg_config_name")->as_string() == name)
            return &l;
    return nullptr;
}

std::set<std::string> addresses(const json::value &devices, bool representors)
{
    std::set<std::string> out;
    for (const auto &d : devices.elements())
        if (d.find("representor_of")->is_null() != representors)
            out.insert(representors ? d.find("representor_of")->as_string()
                                    : d.find("pcie_address")->as_string());
    return out;
}

// ---------------------------------------------------------------------------------------------

TEST_F(CliEnv, DocaEnvSchemaOfTheEmulatedMachine)
{
    auto r = env_json(isolated());
    ASSERT_EQ(r.status, 0) << r.err;
    const json::value doc = parse(r.out);
    ASSERT_TRUE(valid_doca_env(doc)) << r.out;
    const auto &v = *doc.find("version");
    EXPECT_EQ(v.find("doca_caps")->as_string(), DOCA_VERSION_STRING);
    EXPECT_TRUE(v.find("pkg_config")->is_null()); // pkg-config finds nothing here
    EXPECT_TRUE(v.find("applications_version")->is_null());
    EXPECT_TRUE(v.find("consistent")->as_bool());
    EXPECT_EQ(doc.find("host_kind")->as_string(), "host");
    EXPECT_TRUE(doc.find("bf_mode")->is_null());
    // Five functions and three representors, each representor on its DPU-side PF.
    const auto &devices = *doc.find("devices");
    EXPECT_EQ(devices.size(), 8u);
    EXPECT_EQ(addresses(devices, false),
              (std::set<std::string>{"0000:b1:00.0", "0000:b1:00.1", "0000:b1:00.2", "0000:03:00.0",
                                     "0000:03:00.1"}));
    EXPECT_EQ(addresses(devices, true),
              (std::set<std::string>{"0000:b1:00.0", "0000:b1:00.1", "0000:b1:00.2"}));
    for (const auto &d : devices.elements())
        if (d.find("name")->as_string() == "pf0hpf") {
            EXPECT_EQ(d.find("pcie_address")->as_string(), "0000:03:00.0");
            EXPECT_EQ(d.find("representor_of")->as_string(), "0000:b1:00.0");
        }
    // SoftComch's libraries and the legacy module are listed; not found by pkg-config.
    for (const char *m : {"doca-common", "doca-comch", "doca-argp", "doca-dma", "doca-compress",
                          "doca-sha", "doca-comm-channel"}) {
        const json::value *l = library(doc, m);
        ASSERT_NE(l, nullptr) << m;
        EXPECT_FALSE(l->find("installed")->as_bool()) << m;
    }
    // The build tree's samples.
    ASSERT_GE(doc.find("sample_paths")->size(), 1u);
    EXPECT_EQ((*doc.find("sample_paths"))[0].find("library")->as_string(), "doca-comch");
    // The extension member, and no hazard in a clean environment.
    const json::value *ext = doc.find("softcomch");
    ASSERT_TRUE(ext && ext->is_object());
    EXPECT_EQ(ext->find("doca_api_version")->as_string(), DOCA_VERSION_STRING);
    EXPECT_FALSE(ext->find("doca_root")->find("present")->as_bool());
    EXPECT_EQ(ext->find("hazards")->size(), 0u) << r.out;

    // DPU side only: a BlueField in DPU mode.
    auto side = run(argv_of({"env", "--json"}), tool_env({{"SOFTCOMCH_SIDE", "dpu"}}));
    const json::value d = parse(side.out);
    ASSERT_TRUE(valid_doca_env(d)) << side.out;
    EXPECT_EQ(d.find("host_kind")->as_string(), "bluefield");
    EXPECT_EQ(d.find("bf_mode")->as_string(), "dpu");
}

TEST_F(CliEnv, TextReportAndBadCommandLines)
{
    auto r = run(argv_of({"env", "--doca-root", dir_ + "/no-doca"}), tool_env(isolated()));
    ASSERT_EQ(r.status, 0);
    for (const char *line : {"version", "  consistent            yes", "devices", "libraries",
                             "sample_paths", "hazards"})
        EXPECT_TRUE(has_line(r.out, line)) << line << "\n" << r.out;
    EXPECT_TRUE(has_line(r.out, "  0000:03:00.0  PF  pf0hpf", {"representor of 0000:b1:00.0"}))
        << r.out;
    EXPECT_EQ(sc({"env", "--bogus"}).status, 2);
    EXPECT_EQ(sc({"env", "extra"}).status, 2);
    auto bad = sc({"env", "--json"}, {{"SOFTCOMCH_SIDE", "arm"}});
    EXPECT_EQ(bad.status, 1); // reported, but no device could be listed
    EXPECT_TRUE(valid_doca_env(parse(bad.out))) << bad.out;
}

TEST_F(CliEnv, HazardsOfAnotherDocaBesideSoftComch)
{
    const std::string root = make_fake_doca();
    const std::string fake_pc = root + "/lib/x86_64-linux-gnu/pkgconfig";
    const std::string ours_pc = sc_test::bin_dir() + "/pkgconfig/host";
    ASSERT_TRUE(fs::exists(ours_pc + "/doca-comch.pc"));
    // Another libdoca_comch.so.2 on LD_LIBRARY_PATH.
    fs::create_directories(dir_ + "/other");
    std::ofstream(dir_ + "/other/libdoca_comch.so.2") << "not a library";

    auto set = isolated(ours_pc + ":" + fake_pc);
    set["LD_LIBRARY_PATH"] = dir_ + "/other";
    auto r = run(argv_of({"env", "--json", "--doca-root", root}), tool_env(set));
    ASSERT_EQ(r.status, 0) << r.err;
    const json::value doc = parse(r.out);
    ASSERT_TRUE(valid_doca_env(doc)) << r.out;
    // Two doca-comch.pc: SoftComch's first, the other DOCA's shadowed.
    const json::value *two = hazard(doc, "doca-comch.pc");
    ASSERT_NE(two, nullptr) << r.out;
    EXPECT_TRUE(
        contains(two->find("finding")->as_string(), ours_pc + "/doca-comch.pc (SoftComch)"));
    EXPECT_TRUE(
        contains(two->find("finding")->as_string(), fake_pc + "/doca-comch.pc (another DOCA)"));
    EXPECT_EQ(doc.find("softcomch")->find("doca_comch_pc_files")->size(), 2u);
    // The legacy module.
    const json::value *legacy = hazard(doc, "doca-comm-channel.pc");
    ASSERT_NE(legacy, nullptr) << r.out;
    EXPECT_TRUE(contains(legacy->find("finding")->as_string(), fake_pc + "/doca-comm-channel.pc"));
    EXPECT_TRUE(library(doc, "doca-comm-channel")->find("installed")->as_bool());
    // applications/VERSION 2.9.0072 against doca_caps 3.0.0058.
    EXPECT_EQ(doc.find("version")->find("applications_version")->as_string(), "2.9.0072");
    EXPECT_FALSE(doc.find("version")->find("consistent")->as_bool());
    EXPECT_NE(hazard(doc, "version"), nullptr) << r.out;
    // The real install is reported beside the emulated machine, its samples too.
    const json::value *real = doc.find("softcomch")->find("doca_root");
    EXPECT_TRUE(real->find("present")->as_bool());
    EXPECT_FALSE(real->find("softcomch")->as_bool());
    EXPECT_EQ(real->find("doca_comch_pc_version")->as_string(), "2.9.0072");
    bool dma = false;
    for (const auto &s : doc.find("sample_paths")->elements())
        dma = dma || (s.find("library")->as_string() == "doca-dma" &&
                      s.find("path")->as_string() == root + "/samples/doca_dma");
    EXPECT_TRUE(dma) << r.out;

    // pkg-config picks the other DOCA's doca-comch; the loader resolves its soname through
    // LD_LIBRARY_PATH to another file.
    set["PKG_CONFIG_PATH"] = fake_pc;
    auto l = run(argv_of({"env", "--json", "--doca-root", root}), tool_env(set));
    const json::value ldoc = parse(l.out);
    ASSERT_TRUE(valid_doca_env(ldoc)) << l.out;
    EXPECT_EQ(ldoc.find("version")->find("pkg_config")->as_string(), "2.9.0072");
    const json::value *loader = hazard(ldoc, "libdoca_comch.so");
    ASSERT_NE(loader, nullptr) << l.out;
    EXPECT_TRUE(contains(loader->find("finding")->as_string(), "libdoca_comch.so.2 to " + dir_ +
                                                                   "/other/libdoca_comch.so.2 "
                                                                   "(LD_LIBRARY_PATH)"))
        << loader->find("finding")->as_string();
    EXPECT_EQ(ldoc.find("softcomch")->find("loader")->find("soname")->as_string(),
              "libdoca_comch.so.2");
    EXPECT_EQ(hazard(ldoc, "doca-comch.pc"), nullptr); // one doca-comch.pc now

    // The text names the same hazards.
    auto t = run(argv_of({"env", "--doca-root", root}), tool_env(set));
    EXPECT_TRUE(has_line(t.out, "  warn  libdoca_comch.so", {"-- fix: remove"})) << t.out;
    EXPECT_TRUE(has_line(t.out, "  warn  doca-comm-channel.pc")) << t.out;
}

TEST_F(CliEnv, CollectStateSchemaAndSides)
{
    auto host = run(argv_of({"collect-state", "--side", "host", "--json"}), tool_env());
    ASSERT_EQ(host.status, 0) << host.err;
    const json::value h = parse(host.out);
    ASSERT_TRUE(valid_state(h, "host")) << host.out;
    EXPECT_EQ(h.find("doca_version")->as_string(), DOCA_VERSION_STRING);
    EXPECT_EQ(h.find("bf_mode")->as_string(), "dpu"); // the BlueField the host sees
    EXPECT_EQ(addresses(*h.find("devices"), false),
              (std::set<std::string>{"0000:b1:00.0", "0000:b1:00.1", "0000:b1:00.2"}));
    EXPECT_TRUE(addresses(*h.find("devices"), true).empty());

    // --side wins over SOFTCOMCH_SIDE: what a process on the DPU side sees.
    auto dpu = run(argv_of({"collect-state", "--side", "dpu", "--json"}),
                   tool_env({{"SOFTCOMCH_SIDE", "host"}}));
    const json::value d = parse(dpu.out);
    ASSERT_TRUE(valid_state(d, "dpu")) << dpu.out;
    EXPECT_EQ(addresses(*d.find("devices"), false),
              (std::set<std::string>{"0000:03:00.0", "0000:03:00.1"}));
    // Symmetric: every representor on the DPU side names a host function the host side lists.
    EXPECT_EQ(addresses(*d.find("devices"), true), addresses(*h.find("devices"), false));

    // Without --side, SOFTCOMCH_SIDE decides; with neither, it is a usage error.
    auto from_env =
        run(argv_of({"collect-state", "--json"}), tool_env({{"SOFTCOMCH_SIDE", "dpu"}}));
    EXPECT_TRUE(valid_state(parse(from_env.out), "dpu"));
    EXPECT_EQ(sc({"collect-state"}).status, 2);
    EXPECT_EQ(sc({"collect-state", "--side", "arm"}).status, 2);
    auto text = sc({"collect-state", "--side", "dpu"});
    EXPECT_EQ(text.status, 0);
    EXPECT_TRUE(has_line(text.out, "side              dpu")) << text.out;
    EXPECT_TRUE(has_line(text.out, "  0000:03:00.0  PF  active", {"representor of 0000:b1:00.0"}))
        << text.out;
}

// The aliases print what their subcommands print, while a server and a client are connected,
// and the devices the two use are in the reports.
TEST_F(CliEnv, LiveAliasesOverAConnectedPair)
{
    live_pair pair("env-live");
    ASSERT_TRUE(pair.wait_connected());
    const auto env = tool_env(isolated(), {"LD_LIBRARY_PATH"});

    auto alias = run({tool("doca-env")}, env);
    ASSERT_EQ(alias.status, 0) << alias.err;
    const json::value a = parse(alias.out);
    ASSERT_TRUE(valid_doca_env(a)) << alias.out;
    auto direct = run(argv_of({"env", "--json"}), env);
    EXPECT_EQ(parse(direct.out), a);
    EXPECT_EQ(a.find("softcomch")->find("fabric")->as_string(), std::getenv("SOFTCOMCH_FABRIC"));
    const auto functions = addresses(*a.find("devices"), false);
    EXPECT_TRUE(functions.count(pair.server_pci) && functions.count(pair.client_pci));
    EXPECT_TRUE(addresses(*a.find("devices"), true).count(pair.client_pci)); // pf0hpf

    auto host = run({tool("doca-collect-host-state")}, env);
    auto dpu = run({tool("doca-collect-dpu-state")}, env);
    ASSERT_EQ(host.status, 0);
    ASSERT_EQ(dpu.status, 0);
    const json::value h = parse(host.out), d = parse(dpu.out);
    ASSERT_TRUE(valid_state(h, "host")) << host.out;
    ASSERT_TRUE(valid_state(d, "dpu")) << dpu.out;
    EXPECT_EQ(h, parse(run(argv_of({"collect-state", "--side", "host", "--json"}), env).out));
    EXPECT_TRUE(addresses(*h.find("devices"), false).count(pair.client_pci));
    EXPECT_TRUE(addresses(*d.find("devices"), false).count(pair.server_pci));
    EXPECT_TRUE(addresses(*d.find("devices"), true).count(pair.client_pci));
    // An alias takes the subcommand's options after its own.
    EXPECT_EQ(run({tool("doca-collect-host-state"), "--side", "dpu"}, env).status, 2);
    auto help = run({tool("doca-env"), "--help"}, env);
    EXPECT_EQ(help.status, 0);
    EXPECT_TRUE(contains(help.out, "Usage: softcomch env"));

    EXPECT_TRUE(pair.finish());
}

} // namespace
