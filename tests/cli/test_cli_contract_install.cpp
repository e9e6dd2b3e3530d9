// SPDX-License-Identifier: Apache-2.0
//
// DOCA's structured-tools contract from an installed tree: `cmake --install` into a scratch
// prefix, then the contract's detection probes (command -v doca-env, doca-capability-snapshot,
// doca-collect-host-state, doca-collect-dpu-state with PATH=<prefix>/bin; test -f
// <prefix>/share/version-matrix.json; DOCA's <prefix>/tools/doca_caps) succeed, and each entry
// point prints a document of its schema while a server and a client are connected. The prefix is
// then moved: the install is relocatable. Skipped without a POSIX shell.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "build_tree.hpp"
#include "cli_util.hpp"
#include "comch_harness.hpp"
#include "live_pair.hpp"

namespace {

namespace fs = std::filesystem;
using namespace sc_cli;
using sc_test::contains;

class CliContractInstalled : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (access("/bin/sh", X_OK) != 0)
            GTEST_SKIP() << "no /bin/sh for the probes";
        sc_test::use_private_fabric(
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        char tmpl[] = "/tmp/softcomch-contract-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        prefix_ = dir_ + "/prefix";
        auto r = run({sc_test::build_tree::cmake_command, "--install", sc_test::bin_dir(),
                      "--prefix", prefix_},
                     tool_env(), 120);
        ASSERT_EQ(r.status, 0) << r.out << r.err;
        for (const auto &e : fs::recursive_directory_iterator(prefix_))
            if (e.path().filename() == "doca-comch.pc" &&
                e.path().parent_path().filename() == "pkgconfig")
                pc_dir_ = e.path().parent_path().string();
        ASSERT_FALSE(pc_dir_.empty());
    }
    void TearDown() override
    {
        std::error_code ec;
        if (!dir_.empty())
            fs::remove_all(dir_, ec);
    }

    // A shell command line, with PATH=<prefix>/bin and pkg-config seeing only `pc_path`.
    proc_result shell(const std::string &command, const std::string &pc_path = "")
    {
        return run({"/bin/sh", "-c", command}, tool_env({{"PATH", prefix_ + "/bin:/usr/bin:/bin"},
                                                         {"PKG_CONFIG_LIBDIR", dir_ + "/none"},
                                                         {"PKG_CONFIG_PATH", pc_path}},
                                                        {"LD_LIBRARY_PATH"}));
    }

    std::string dir_, prefix_, pc_dir_;
};

TEST_F(CliContractInstalled, LiveProbesAndEntryPoints)
{
    live_pair pair("contract-live");
    ASSERT_TRUE(pair.wait_connected());

    // The probes, as the contract writes them.
    for (const char *t : {"doca-env", "doca-capability-snapshot", "doca-collect-host-state",
                          "doca-collect-dpu-state"}) {
        auto p = shell(std::string("command -v ") + t);
        EXPECT_EQ(p.status, 0) << t;
        EXPECT_EQ(p.out, prefix_ + "/bin/" + t + "\n") << t;
    }
    EXPECT_EQ(shell("test -f " + prefix_ + "/share/version-matrix.json").status, 0);
    EXPECT_EQ(shell("test -x " + prefix_ + "/tools/doca_caps").status, 0);

    // Each entry point prints its schema.
    auto env = shell("doca-env", pc_dir_);
    ASSERT_EQ(env.status, 0) << env.err;
    const json::value e = parse(env.out);
    ASSERT_TRUE(valid_doca_env(e)) << env.out;
    const json::value &install = *e.find("softcomch")->find("install");
    EXPECT_TRUE(install.find("installed")->as_bool());
    EXPECT_EQ(install.find("prefix")->as_string(), prefix_);
    for (const char *m :
         {"doca-common", "doca-comch", "doca-argp", "doca-dma", "doca-compress", "doca-sha"})
        for (const auto &l : e.find("libraries")->elements())
            if (l.find("pkg_config_name")->as_string() == m) {
                EXPECT_TRUE(l.find("installed")->as_bool()) << m;
                EXPECT_EQ(l.find("pc_path")->as_string(), pc_dir_ + "/" + m + ".pc");
            }
    EXPECT_EQ(e.find("version")->find("pkg_config")->as_string(), DOCA_VERSION_STRING);
    EXPECT_TRUE(e.find("version")->find("consistent")->as_bool());
    EXPECT_EQ((*e.find("sample_paths"))[0].find("path")->as_string(),
              prefix_ + "/share/softcomch/samples");
    EXPECT_EQ(e.find("softcomch")->find("hazards")->size(), 0u) << env.out;
    // Without its pkg-config directory on the search path, doca-env says how to fix it.
    auto bare = shell("doca-env");
    const json::value b = parse(bare.out);
    ASSERT_TRUE(valid_doca_env(b));
    bool hint = false;
    for (const auto &h : b.find("softcomch")->find("hazards")->elements())
        hint = hint || (h.find("check")->as_string() == "PKG_CONFIG_PATH" &&
                        contains(h.find("fix")->as_string(), "export PKG_CONFIG_PATH=" + pc_dir_));
    EXPECT_TRUE(hint) << bare.out;

    auto snap = shell("doca-capability-snapshot");
    ASSERT_EQ(snap.status, 0);
    EXPECT_TRUE(valid_snapshot(parse(snap.out))) << snap.out;
    auto host = shell("doca-collect-host-state");
    EXPECT_TRUE(valid_state(parse(host.out), "host")) << host.out;
    auto dpu = shell("doca-collect-dpu-state");
    EXPECT_TRUE(valid_state(parse(dpu.out), "dpu")) << dpu.out;
    auto caps = shell(prefix_ + "/tools/doca_caps");
    ASSERT_EQ(caps.status, 0);
    EXPECT_TRUE(doca_caps_layout(caps.out, true)) << caps.out;

    // The installed matrix is the installed tool's.
    std::ifstream in(prefix_ + "/share/version-matrix.json");
    std::stringstream file;
    file << in.rdbuf();
    const json::value matrix = parse(file.str());
    EXPECT_TRUE(valid_matrix(matrix));
    EXPECT_EQ(parse(shell("softcomch version-matrix --json").out), matrix);

    // Moved elsewhere, the install still works: the aliases are relative links.
    const std::string moved = dir_ + "/moved";
    fs::rename(prefix_, moved);
    auto after = run({moved + "/bin/doca-env"}, tool_env({}, {"LD_LIBRARY_PATH"}));
    ASSERT_EQ(after.status, 0) << after.err;
    const json::value m = parse(after.out);
    ASSERT_TRUE(valid_doca_env(m));
    EXPECT_EQ(m.find("softcomch")->find("install")->find("prefix")->as_string(), moved);
    EXPECT_EQ(run({moved + "/tools/doca_caps", "-p", "03:00.0"}, tool_env()).status, 0);

    EXPECT_TRUE(pair.finish());
}

} // namespace
