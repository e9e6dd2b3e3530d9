// SPDX-License-Identifier: Apache-2.0
//
// The introspection API (src/introspect/): the fabric judged without being changed, the live
// endpoints as clients see them, the machine view, the policies and the log level as the library
// reads them. The doctor's own output is checked end to end by tests/integration/test_cli_doctor.
#include "introspect/fabric.hpp"
#include "introspect/log_level.hpp"
#include "introspect/memory.hpp"
#include "introspect/topology.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/unique_fd.hpp"
#include "core/topology.hpp"
#include "transport/fabric.hpp"

namespace {

namespace fs = std::filesystem;
namespace introspect = softcomch::introspect;
namespace transport = softcomch::transport;

// A scratch directory, removed at the end.
class scratch_dir {
public:
    scratch_dir()
    {
        char tmpl[] = "/tmp/sc-introspect-XXXXXX";
        path_ = ::mkdtemp(tmpl);
    }
    ~scratch_dir()
    {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string &path() const { return path_; }

private:
    std::string path_;
};

bool exists(const std::string &p)
{
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0;
}

// A bound SEQPACKET socket at `path`, listening or not.
softcomch::unique_fd bound_socket(const std::string &path, bool listening)
{
    softcomch::unique_fd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0);
    if (listening) {
        EXPECT_EQ(::listen(fd.get(), 4), 0);
    }
    return fd;
}

transport::endpoint_info info_of(const std::string &dir, const std::string &name, int pid)
{
    transport::endpoint_info e{
        {"bf0", "0000:b1:00.0", name}, {}, pid, "0000:03:00.0", "pf0hpf", 4080, 16};
    e.socket_path = transport::endpoint_socket_path(dir, e.key);
    return e;
}

TEST(unit_introspect, ScanJudgesWithoutChanging)
{
    scratch_dir d;
    const std::string dir = d.path();
    // A live server (us, with a listening socket), a dead one, an unreadable info file, a bare
    // socket nobody listens on, and a temporary info file of a dead writer.
    const auto live = info_of(dir, "live", int(::getpid()));
    auto live_fd = bound_socket(live.socket_path, true);
    transport::write_endpoint_info(live);
    const auto dead = info_of(dir, "dead", 999999);
    transport::write_endpoint_info(dead);
    std::ofstream(dir + "/bf0@0000:b1:00.0@2222222222222222.info") << "garbage\n";
    auto bare_fd = bound_socket(dir + "/bf0@0000:b1:00.0@3333333333333333.sock", false);
    std::ofstream(dir + "/bf0@0000:b1:00.0@4444444444444444.info.tmp.999998") << "x";

    const introspect::endpoint_scan scan = introspect::scan_endpoints(dir);
    ASSERT_EQ(scan.servers.size(), 3u);
    size_t alive = 0, stale = 0, unreadable = 0;
    for (const auto &s : scan.servers) {
        if (!s.readable) {
            ++unreadable;
            EXPECT_TRUE(s.ep.info_path.ends_with("2222222222222222.info"));
            continue;
        }
        EXPECT_EQ(s.ep.bluefield, "bf0");
        EXPECT_EQ(s.ep.representor, "pf0hpf");
        EXPECT_EQ(s.ep.max_msg_size, 4080u);
        if (s.alive) {
            ++alive;
            EXPECT_EQ(s.ep.name, "live");
            EXPECT_TRUE(s.process_alive);
        } else {
            ++stale;
            EXPECT_EQ(s.ep.name, "dead");
            EXPECT_FALSE(s.process_alive);
        }
    }
    EXPECT_EQ(alive, 1u);
    EXPECT_EQ(stale, 1u);
    EXPECT_EQ(unreadable, 1u);
    ASSERT_EQ(scan.bare_sockets.size(), 1u);
    EXPECT_FALSE(scan.bare_sockets[0].listening);
    ASSERT_EQ(scan.dead_tmps.size(), 1u);
    EXPECT_EQ(scan.dead_tmps[0].pid, 999998);
    // Nothing was removed.
    EXPECT_TRUE(exists(transport::endpoint_info_path(dead.socket_path)));
    EXPECT_TRUE(exists(dir + "/bf0@0000:b1:00.0@4444444444444444.info.tmp.999998"));

    // live_endpoints() is what a client sees: the live server only, the dead one's files gone.
    const auto eps = introspect::live_endpoints(dir);
    ASSERT_EQ(eps.size(), 1u);
    EXPECT_EQ(eps[0].name, "live");
    EXPECT_EQ(eps[0].pid, int(::getpid()));
    EXPECT_EQ(eps[0].info_path, transport::endpoint_info_path(live.socket_path));
    EXPECT_FALSE(exists(transport::endpoint_info_path(dead.socket_path)));
}

TEST(unit_introspect, MissingDirectoryScansEmpty)
{
    const auto scan = introspect::scan_endpoints("/nonexistent/softcomch/x");
    EXPECT_TRUE(scan.servers.empty());
    EXPECT_TRUE(scan.bare_sockets.empty());
    EXPECT_TRUE(scan.dead_tmps.empty());
    EXPECT_TRUE(introspect::live_endpoints("/nonexistent/softcomch/x").empty());
}

TEST(unit_introspect, FabricLocationAndState)
{
    const auto bad = introspect::locate_fabric("bad/name");
    EXPECT_FALSE(bad.valid);
    EXPECT_TRUE(bad.dir.empty());
    EXPECT_NE(bad.error.find("invalid fabric name 'bad/name'"), std::string::npos) << bad.error;
    EXPECT_FALSE(bad.error.starts_with("softcomch: ")) << bad.error;

    const auto good = introspect::locate_fabric("some-fabric");
    ASSERT_TRUE(good.valid) << good.error;
    EXPECT_TRUE(good.dir.ends_with("/some-fabric")) << good.dir;
    EXPECT_EQ(good.under_xdg, good.xdg_runtime_dir.has_value() &&
                                  good.dir.starts_with(*good.xdg_runtime_dir + "/softcomch/"));

    scratch_dir d;
    const auto missing = introspect::inspect_fabric_dir(d.path() + "/a/b");
    EXPECT_FALSE(missing.exists);
    EXPECT_EQ(missing.existing_ancestor, d.path());
    EXPECT_TRUE(missing.ancestor_writable);
    const auto here = introspect::inspect_fabric_dir(d.path());
    EXPECT_TRUE(here.exists);
    EXPECT_TRUE(here.is_directory);
    EXPECT_EQ(here.owner_uid, here.our_uid);
    EXPECT_TRUE(here.writable);
}

TEST(unit_introspect, BuiltInMachine)
{
    ::unsetenv("SOFTCOMCH_TOPOLOGY");
    ::unsetenv("SOFTCOMCH_SIDE");
    softcomch::core::reset_machine_for_testing();
    const introspect::machine_info m = introspect::machine();
    ASSERT_TRUE(m.loaded) << m.error;
    EXPECT_EQ(m.origin, "built-in default");
    EXPECT_TRUE(m.side_filter.empty());
    EXPECT_TRUE(m.host_visible && m.dpu_visible);
    ASSERT_EQ(m.bluefields.size(), 1u);
    EXPECT_EQ(m.bluefields[0].id, "bf0");
    EXPECT_EQ(m.bluefields[0].mode, "dpu");
    EXPECT_EQ(m.bluefields[0].caps.get("max_msg_size"), 4080u);
    ASSERT_EQ(m.devices.size(), 5u);
    EXPECT_EQ(m.devices[2].function, "VF0 of PF0");
    EXPECT_EQ(m.devices[2].kind, "VF");
    EXPECT_EQ(m.devices[2].iface, "ens1f0v0");
    EXPECT_EQ(m.devices[3].kind, "PF");
    EXPECT_EQ(m.devices[3].iface, "p0");
    EXPECT_TRUE(m.devices[2].client_capable);
    EXPECT_EQ(m.devices[3].side, "dpu");
    EXPECT_TRUE(m.devices[3].server_capable);
    ASSERT_EQ(m.devices[3].representors.size(), 2u);
    EXPECT_EQ(m.devices[3].representors[0].name, "pf0hpf");
    EXPECT_EQ(m.devices[3].representors[0].pci, "0000:b1:00.0");
    // No endpoint socket path of the built-in machine is too long in a short directory.
    EXPECT_FALSE(introspect::endpoint_path_problem("/tmp/x").has_value());
    EXPECT_TRUE(introspect::endpoint_path_problem("/tmp/" + std::string(100, 'a')).has_value());
}

TEST(unit_introspect, Capabilities)
{
    const auto caps = introspect::default_capabilities();
    EXPECT_EQ(caps.values.size(), 15u);
    EXPECT_EQ(caps.values.front().name, "max_msg_size");
    EXPECT_EQ(caps.get("max_msg_size"), 4080u);
    EXPECT_EQ(caps.get("max_clients"), softcomch::core::comch_caps{}.max_clients);
    EXPECT_EQ(caps.get("no_such_cap"), 0u);
}

TEST(unit_introspect, TopologyFileCheck)
{
    const auto missing = introspect::check_topology_file("/nonexistent/topo.json");
    EXPECT_FALSE(missing.valid);
    EXPECT_NE(missing.error.find("cannot open topology file"), std::string::npos);

    scratch_dir d;
    const std::string path = d.path() + "/t.json";
    std::ofstream(path) << softcomch::json::dump(softcomch::core::topology::builtin()->to_json(),
                                                 2);
    const auto ok = introspect::check_topology_file(path);
    ASSERT_TRUE(ok.valid) << ok.error;
    EXPECT_EQ(ok.bluefields, 1u);
    EXPECT_EQ(ok.devices, 5u);
    EXPECT_EQ(ok.representors, 3u);
}

TEST(unit_introspect, LogLevel)
{
    const auto debug = introspect::parse_log_level("debug");
    ASSERT_TRUE(debug.has_value());
    EXPECT_EQ(debug->value, 60u);
    EXPECT_EQ(debug->token, "DBG");
    EXPECT_FALSE(introspect::parse_log_level("loud").has_value());
}

TEST(unit_introspect, Policies)
{
    ::setenv(introspect::memory_env, "pvw", 1);
    ::setenv(introspect::copy_env, "streaming", 1);
    auto mem = introspect::memory_policy_setting();
    auto copy = introspect::copy_policy_setting();
    EXPECT_TRUE(mem.valid);
    EXPECT_EQ(mem.policy, introspect::memory_policy::pvw);
    EXPECT_EQ(mem.name, "pvw");
    EXPECT_EQ(introspect::active_memory_mechanism(), "pvw");
    EXPECT_TRUE(copy.valid);
    EXPECT_EQ(copy.policy, introspect::copy_policy::streaming);
    EXPECT_EQ(copy.cache_budget, introspect::last_level_cache_bytes() / 2);

    ::setenv(introspect::memory_env, "bogus", 1);
    ::setenv(introspect::copy_env, "bogus", 1);
    EXPECT_FALSE(introspect::memory_policy_setting().valid);
    EXPECT_FALSE(introspect::copy_policy_setting().valid);
    EXPECT_EQ(introspect::active_memory_mechanism(), "invalid");
    ::unsetenv(introspect::memory_env);
    ::unsetenv(introspect::copy_env);
    EXPECT_EQ(introspect::memory_policy_setting().name, "auto");
    EXPECT_EQ(introspect::min_streaming_bytes(), uint64_t(64) << 10);
}

TEST(unit_introspect, PvwProbe)
{
    const auto p = introspect::probe_pvw_on_child();
    EXPECT_EQ(p.succeeded, p.error.empty());
}

} // namespace
