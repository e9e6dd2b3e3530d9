// SPDX-License-Identifier: Apache-2.0
//
// `softcomch doctor` as a user runs it: the built binary (<build>/bin/softcomch, <build> being
// $SOFTCOMCH_TEST_BIN_DIR) is started as a separate process with a controlled environment (every
// SOFTCOMCH_* variable removed, XDG_RUNTIME_DIR pointing at a scratch directory so the fabric is
// private) and judged by its exit status and output. The stale-endpoint case builds its endpoint
// files with the library's own fabric functions, and --json output is read back with the
// library's JSON parser (this test links the objects of common/ and transport/ for both, not
// libsoftcomch: tests/CMakeLists.txt).
//
// Suites:
//   CliDoctor           the build tree's softcomch
//   CliDoctorInstalled  `cmake --install` into a scratch prefix, then that tree's softcomch
//                       (skipped without pkg-config)
#include <gtest/gtest.h>

#include <fstream>

#include <doca_version.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.hpp"
#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"
#include "transport/unix_socket.hpp"

#include "build_tree.hpp"
#include "process_runner.hpp"

extern char **environ;

namespace {

namespace fs = std::filesystem;
namespace json = softcomch::json;
namespace transport = softcomch::transport;
using sc_test::bin_dir;
using sc_test::contains;
using sc_test::has_line;
using sc_test::proc_result;

// The environment of the child: ours without any SOFTCOMCH_* variable (nor those in `unset`),
// plus `set`.
using env_map = std::map<std::string, std::string>;
std::vector<std::string> child_env(const env_map &set, std::initializer_list<const char *> unset)
{
    std::vector<std::string> env;
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (name.starts_with("SOFTCOMCH_") || set.count(name) != 0)
            continue;
        bool drop = false;
        for (const char *u : unset)
            drop = drop || name == u;
        if (!drop)
            env.emplace_back(entry);
    }
    for (const auto &[k, v] : set)
        env.push_back(k + "=" + v);
    return env;
}

// Runs argv with exactly the environment `env`.
proc_result run_in(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                   double timeout_s = 60)
{
    return sc_test::run_process(argv, {.timeout_s = timeout_s, .env = &env});
}

// The check of a --json report named `check` (first one), or nullptr.
const json::value *find_check(const json::value &doc, const std::string &check)
{
    const json::value *checks = doc.find("checks");
    if (checks == nullptr || !checks->is_array())
        return nullptr;
    for (const auto &c : checks->elements())
        if (const json::value *name = c.find("check");
            name && name->is_string() && name->as_string() == check)
            return &c;
    return nullptr;
}

class CliDoctor : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_FALSE(bin_dir().empty()) << "set SOFTCOMCH_TEST_BIN_DIR to the build directory";
        ASSERT_EQ(access((bin_dir() + "/bin/softcomch").c_str(), X_OK), 0)
            << bin_dir() << "/bin/softcomch is missing: build the softcomch_cli target";
        char tmpl[] = "/tmp/softcomch-doctor-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        runtime_dir_ = tmpl;
        fabric_ = "doctor-" + std::to_string(getpid());
    }
    void TearDown() override
    {
        std::error_code ec;
        if (!runtime_dir_.empty())
            fs::remove_all(runtime_dir_, ec);
    }

    virtual std::string softcomch_path() const { return bin_dir() + "/bin/softcomch"; }

    // softcomch doctor ARGS in a clean environment plus `set`.
    proc_result doctor(std::vector<std::string> args, env_map set = {},
                       std::initializer_list<const char *> unset = {})
    {
        set.emplace("XDG_RUNTIME_DIR", runtime_dir_);
        set.emplace("SOFTCOMCH_FABRIC", fabric_);
        std::vector<std::string> argv{softcomch_path(), "doctor"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_in(argv, child_env(set, unset));
    }

    // The fabric directory the doctor (and the library) will use; created 0700.
    std::string make_fabric_dir()
    {
        const std::string dir = runtime_dir_ + "/softcomch/" + fabric_;
        fs::create_directories(dir);
        fs::permissions(runtime_dir_ + "/softcomch", fs::perms::owner_all);
        fs::permissions(dir, fs::perms::owner_all);
        return dir;
    }

    std::string runtime_dir_;
    std::string fabric_;
};

// A Unix socket file at `path` with nobody listening (the server that made it is gone).
bool make_stale_socket(const std::string &path)
{
    softcomch::unique_fd s(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (!s || path.size() >= sizeof addr.sun_path)
        return false;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return ::bind(s.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof addr) == 0;
}

// The pid of a process that has exited and been reaped.
int dead_pid()
{
    const pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    return int(pid);
}

// ---------------------------------------------------------------------------------------------

TEST_F(CliDoctor, HelpListsDoctor)
{
    auto r = run_in({softcomch_path(), "--help"}, child_env({}, {}));
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(has_line(r.out, "  doctor ")) << r.out;
    auto h = run_in({softcomch_path(), "help", "doctor"}, child_env({}, {}));
    EXPECT_EQ(h.status, 0);
    for (const char *text : {"Usage: softcomch doctor", "--json", "--fabric NAME", "Exit status"})
        EXPECT_TRUE(contains(h.out, text)) << text << "\n" << h.out;
    auto bad = doctor({"--bogus"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_TRUE(contains(bad.err, "unknown option '--bogus'")) << bad.err;
}

TEST_F(CliDoctor, CleanEnvironmentPasses)
{
    auto r = doctor({});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has_line(r.out, "ok    version ", {"softcomch ", "DOCA API "})) << r.out;
    for (const char *var : {"SOFTCOMCH_FABRIC", "SOFTCOMCH_SIDE", "SOFTCOMCH_TOPOLOGY",
                            "SOFTCOMCH_LOG_LEVEL", "SOFTCOMCH_MEMORY", "SOFTCOMCH_COPY"})
        EXPECT_TRUE(has_line(r.out, std::string("ok    ") + var + " ")) << var << "\n" << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    fabric ", {fabric_, runtime_dir_})) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    endpoints ", {"none"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    devices ", {"5 devices visible"})) << r.out;
    EXPECT_TRUE(contains(r.out, "dpu   0000:03:00.0")) << r.out;
    EXPECT_TRUE(contains(r.out, "pf0hpf=0000:b1:00.0")) << r.out;
    EXPECT_TRUE(has_line(r.out, "", {"fast-path memory"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "", {"RLIMIT_NOFILE"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "", {"library ", "libsoftcomch.so"})) << r.out;
    EXPECT_FALSE(has_line(r.out, "FAIL")) << r.out;
    EXPECT_TRUE(has_line(r.out, "", {" ok, ", " warn, 0 FAIL"})) << r.out;
    // Read-only: not even the fabric directory is created.
    EXPECT_FALSE(fs::exists(runtime_dir_ + "/softcomch"));
}

TEST_F(CliDoctor, SideFilterShowsOneSide)
{
    auto r = doctor({}, {{"SOFTCOMCH_SIDE", "host"}});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    devices ", {"3 devices visible (host side only)"})) << r.out;
    EXPECT_FALSE(contains(r.out, "0000:03:00.0")) << r.out;
}

TEST_F(CliDoctor, BadMemoryPolicyFails)
{
    auto r = doctor({}, {{"SOFTCOMCH_MEMORY", "bogus"}});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(
        has_line(r.out, "FAIL  SOFTCOMCH_MEMORY ", {"\"bogus\"", "auto, shared, pvw", "fix:"}))
        << r.out;
}

TEST_F(CliDoctor, BadCopyPolicyFails)
{
    auto r = doctor({}, {{"SOFTCOMCH_COPY", "bogus"}});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(
        has_line(r.out, "FAIL  SOFTCOMCH_COPY ", {"\"bogus\"", "auto, cached, streaming", "fix:"}))
        << r.out;
    // The memory mechanism is unaffected.
    EXPECT_FALSE(has_line(r.out, "FAIL  fast-path memory")) << r.out;
}

TEST_F(CliDoctor, BadSideAndTopologyFail)
{
    auto side = doctor({}, {{"SOFTCOMCH_SIDE", "arm"}});
    EXPECT_EQ(side.status, 1);
    EXPECT_TRUE(has_line(side.out, "FAIL  SOFTCOMCH_SIDE ", {"\"arm\"", "fix:"})) << side.out;

    const std::string file = runtime_dir_ + "/topo.json";
    FILE *f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{\"bluefields\": [}\n", f);
    std::fclose(f);
    auto topo = doctor({}, {{"SOFTCOMCH_TOPOLOGY", file}});
    EXPECT_EQ(topo.status, 1);
    EXPECT_TRUE(has_line(topo.out, "FAIL  SOFTCOMCH_TOPOLOGY ", {file + ":1:"})) << topo.out;
    EXPECT_TRUE(has_line(topo.out, "FAIL  devices ")) << topo.out;
}

TEST_F(CliDoctor, UnknownVariablesAreWarnings)
{
    auto r = doctor({}, {{"SOFTCOMCH_MEMROY", "pvw"},
                         {"SOFTCOMCH_WHATEVER", "1"},
                         {"SOFTCOMCH_LOG_LEVEL", "loud"}});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn  SOFTCOMCH_MEMROY ", {"fix: did you mean SOFTCOMCH_MEMORY?"}))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "warn  SOFTCOMCH_WHATEVER ", {"fix:"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "warn  SOFTCOMCH_LOG_LEVEL ", {"\"loud\""})) << r.out;
}

// Every variable of the README's table is one the doctor knows: none of them is called a typo.
TEST_F(CliDoctor, EveryDocumentedVariableIsKnown)
{
    std::ifstream readme(std::string(sc_test::build_tree::source_dir) + "/README.md");
    ASSERT_TRUE(readme) << "README.md not found under " << sc_test::build_tree::source_dir;
    env_map set;
    std::string line;
    while (std::getline(readme, line))
        if (line.rfind("| `SOFTCOMCH_", 0) == 0) {
            const size_t end = line.find('`', 3);
            ASSERT_NE(end, std::string::npos) << line;
            set[line.substr(3, end - 3)] = "1";
        }
    ASSERT_GE(set.size(), 10u) << "the README's table of variables was not found";
    auto r = doctor({}, set);
    for (const auto &[name, value] : set)
        EXPECT_FALSE(has_line(r.out, "warn  " + name + " ", {"reads no such variable"}))
            << name << " is documented in README.md but unknown to softcomch doctor\n"
            << r.out;
}

TEST_F(CliDoctor, JsonReport)
{
    auto r = doctor({"--json"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::string error;
    json::value doc = json::parse(r.out, &error);
    ASSERT_TRUE(error.empty()) << error << "\n" << r.out;
    ASSERT_TRUE(doc.is_object()) << r.out;
    const json::value *mech = doc.find("mechanism");
    ASSERT_NE(mech, nullptr) << r.out;
    ASSERT_TRUE(mech->is_string());
    EXPECT_TRUE(mech->as_string() == "shared" || mech->as_string() == "pvw") << mech->as_string();
    ASSERT_NE(doc.find("status"), nullptr);
    EXPECT_NE(doc.find("status")->as_string(), "FAIL");
    EXPECT_EQ(doc.find("fail")->as_int(), 0);
    EXPECT_EQ(doc.find("softcomch_version")->as_string(), SOFTCOMCH_VERSION_STRING);
    EXPECT_TRUE(doc.find("cache_budget_bytes")->as_int() > 0);
    const json::value *fabric = doc.find("fabric");
    ASSERT_TRUE(fabric && fabric->is_object());
    EXPECT_EQ(fabric->find("name")->as_string(), fabric_);
    const json::value *devices = doc.find("devices");
    ASSERT_TRUE(devices && devices->is_array());
    EXPECT_EQ(devices->size(), 5u);
    const json::value *version = find_check(doc, "version");
    ASSERT_NE(version, nullptr);
    EXPECT_EQ(version->find("status")->as_string(), "ok");

    auto bad = doctor({"--json"}, {{"SOFTCOMCH_MEMORY", "bogus"}});
    EXPECT_EQ(bad.status, 1);
    doc = json::parse(bad.out, &error);
    ASSERT_TRUE(error.empty()) << error << "\n" << bad.out;
    EXPECT_EQ(doc.find("mechanism")->as_string(), "invalid");
    EXPECT_EQ(doc.find("status")->as_string(), "FAIL");
    const json::value *memory = find_check(doc, "SOFTCOMCH_MEMORY");
    ASSERT_NE(memory, nullptr) << bad.out;
    EXPECT_EQ(memory->find("status")->as_string(), "FAIL");
    EXPECT_TRUE(memory->find("fix") != nullptr);
}

TEST_F(CliDoctor, StaleEndpointIsReportedNotRemoved)
{
    const std::string dir = make_fabric_dir();
    // A server that died: its socket file is left with nobody listening, its pid is gone.
    transport::endpoint_info dead;
    dead.key = {"bf0", "0000:b1:00.0", "crashed-server"};
    dead.socket_path = transport::endpoint_socket_path(dir, dead.key);
    dead.pid = dead_pid();
    dead.dpu_device = "0000:03:00.0";
    dead.representor = "pf0hpf";
    ASSERT_TRUE(make_stale_socket(dead.socket_path));
    transport::write_endpoint_info(dead);
    const std::string info = transport::endpoint_info_path(dead.socket_path);

    // A live one: this test process, listening.
    transport::endpoint_info live = dead;
    live.key.name = "live-server";
    live.socket_path = transport::endpoint_socket_path(dir, live.key);
    live.pid = int(getpid());
    softcomch::unique_fd listener;
    ASSERT_EQ(transport::listen_at(live.socket_path, listener), DOCA_SUCCESS);
    transport::write_endpoint_info(live);

    auto r = doctor({});
    EXPECT_EQ(r.status, 0) << r.out; // a warning, not a failure
    EXPECT_TRUE(has_line(r.out, "warn  endpoint ",
                         {"stale \"crashed-server\"", "pid " + std::to_string(dead.pid), "is gone",
                          "fix:", "rm -f " + dead.socket_path + " " + info}))
        << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    endpoint ",
                         {"\"live-server\"", "pid " + std::to_string(getpid()), "listening"}))
        << r.out;
    // Reported, not removed.
    EXPECT_TRUE(fs::exists(dead.socket_path));
    EXPECT_TRUE(fs::exists(info));

    auto j = doctor({"--json"});
    std::string error;
    json::value doc = json::parse(j.out, &error);
    ASSERT_TRUE(error.empty()) << error << "\n" << j.out;
    const json::value *fabric = doc.find("fabric");
    ASSERT_TRUE(fabric && fabric->is_object()) << j.out;
    EXPECT_EQ(fabric->find("stale_endpoints")->as_int(), 1);
    EXPECT_EQ(fabric->find("live_endpoints")->as_int(), 1);

    // --fabric looks at another fabric: this one's endpoints are not listed there.
    auto other = doctor({"--fabric", "elsewhere"});
    EXPECT_EQ(other.status, 0) << other.out;
    EXPECT_TRUE(has_line(other.out, "ok    endpoints ", {"none", "\"elsewhere\""})) << other.out;
}

// A live endpoint in `dir` as a started server publishes it: its socket listening in this
// process (kept open by `listener`) and its info file.
void publish(const std::string &dir, const std::string &name, const std::string &function,
             const std::string &representor, softcomch::unique_fd &listener)
{
    transport::endpoint_info e;
    e.key = {"bf0", function, name};
    e.socket_path = transport::endpoint_socket_path(dir, e.key);
    e.pid = int(getpid());
    e.dpu_device = function == "0000:b1:00.1" ? "0000:03:00.1" : "0000:03:00.0";
    e.representor = representor;
    ASSERT_EQ(transport::listen_at(e.socket_path, listener), DOCA_SUCCESS);
    transport::write_endpoint_info(e);
}

// `--client NAME --pci ADDR`: "why does my client not connect?" The servers of the fabric, a
// near name, the wrong representor, the client's device on the wrong side, the server in
// another fabric; the other checks and their JSON stay as they are.
TEST_F(CliDoctor, ClientCheckSaysWhyAClientWouldNotConnect)
{
    const std::string dir = make_fabric_dir();
    softcomch::unique_fd l1, l2;
    publish(dir, "comch_ctrl_path_Server", "0000:b1:00.0", "pf0hpf", l1);
    publish(dir, "y", "0000:b1:00.1", "pf1hpf", l2);
    const std::string pid = std::to_string(getpid());

    // A near name: the client waits; the line says what exists and what was meant.
    auto r = doctor({"--client", "comch_ctrl_path_server", "--pci", "b1:00.0"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(
        has_line(r.out, "FAIL  client ",
                 {"client \"comch_ctrl_path_server\" on 0000:b1:00.0 waits: no server named "
                  "\"comch_ctrl_path_server\" for host function 0000:b1:00.0 in fabric \"" +
                      fabric_ + "\"",
                  "did you mean \"comch_ctrl_path_Server\"? (differs only in case)",
                  "fix: use the same name on both sides"}))
        << r.out;
    EXPECT_TRUE(contains(r.out, "server 'comch_ctrl_path_Server' (pid " + pid +
                                    ") bound to pf0hpf (0000:b1:00.0) of bf0: near name: differs "
                                    "only in case"))
        << r.out;
    EXPECT_TRUE(
        contains(r.out, "server 'y' (pid " + pid + ") bound to pf1hpf (0000:b1:00.1) of bf0"))
        << r.out;
    // The checks without --client are all still there, in order.
    auto plain = doctor({});
    EXPECT_EQ(plain.status, 0) << plain.out;
    EXPECT_FALSE(has_line(plain.out, "FAIL  client ")) << plain.out;
    EXPECT_TRUE(has_line(r.out, "ok    endpoint ", {"\"y\"", "listening"})) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    devices ")) << r.out;

    // The same name on another representor: refused, with both functions.
    r = doctor({"--client", "y", "--pci", "b1:00.0"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "FAIL  client ",
                         {"client \"y\" on 0000:b1:00.0 is refused: server \"y\" (pid " + pid +
                              ") is bound to pf1hpf (0000:b1:00.1) of bf0, and that representor "
                              "does not stand for 0000:b1:00.0",
                          "fix: start the server with the representor of 0000:b1:00.0 or run the "
                          "client on 0000:b1:00.1"}))
        << r.out;
    // The right function: it connects.
    r = doctor({"--client", "y", "--pci", "0000:B1:00.1"});
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has_line(r.out, "ok    client ",
                         {"client \"y\" on 0000:b1:00.1 connects: server pid " + pid +
                          " listens bound to pf1hpf (0000:b1:00.1) of bf0"}))
        << r.out;
    // A DPU-side device: a client cannot run there.
    r = doctor({"--client", "y", "--pci", "03:00.0"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "FAIL  client ",
                         {"0000:03:00.0 is on the DPU side of bf0: a client cannot run there",
                          "fix: start the client on the host, on a host function this device "
                          "represents: 0000:b1:00.0 (pf0hpf), 0000:b1:00.2 (pf0vf0)"}))
        << r.out;
    // Not a PCI address; --pci alone.
    r = doctor({"--client", "y", "--pci", "b1:0"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "FAIL  client ", {"\"b1:0\" is not a PCI address"})) << r.out;
    EXPECT_EQ(doctor({"--pci", "b1:00.0"}).status, 2);

    // JSON: the "client" object beside the other facts.
    auto j = doctor({"--json", "--client", "comch_ctrl_path_server", "--pci", "b1:00.0"});
    std::string error;
    json::value doc = json::parse(j.out, &error);
    ASSERT_TRUE(error.empty()) << error << "\n" << j.out;
    EXPECT_EQ(doc.find("status")->as_string(), "FAIL");
    ASSERT_NE(doc.find("fabric"), nullptr);
    ASSERT_NE(doc.find("devices"), nullptr);
    const json::value *client = doc.find("client");
    ASSERT_TRUE(client && client->is_object()) << j.out;
    EXPECT_EQ(client->find("name")->as_string(), "comch_ctrl_path_server");
    EXPECT_EQ(client->find("pci")->as_string(), "0000:b1:00.0");
    EXPECT_FALSE(client->find("connects")->as_bool());
    const json::value *servers = client->find("servers");
    ASSERT_TRUE(servers && servers->is_array());
    ASSERT_EQ(servers->size(), 2u);
    size_t near = 0;
    for (const auto &sv : servers->elements())
        near += sv.find("relation")->as_string() == "near name: differs only in case";
    EXPECT_EQ(near, 1u) << j.out;
    const json::value *check = find_check(doc, "client");
    ASSERT_NE(check, nullptr);
    EXPECT_EQ(check->find("status")->as_string(), "FAIL");
}

// The server is there but its process is stopped (SIGSTOP, a debugger): the client would wait.
TEST_F(CliDoctor, ClientCheckSeesAStoppedServer)
{
    const std::string dir = make_fabric_dir();
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t srv = fork();
    if (srv == 0) {
        softcomch::unique_fd l;
        publish(dir, "frozen", "0000:b1:00.0", "pf0hpf", l);
        (void)!::write(ready[1], "r", 1);
        for (;;)
            ::pause();
    }
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    ::close(ready[0]);
    ::close(ready[1]);
    ASSERT_EQ(::kill(srv, SIGSTOP), 0);
    int st = 0;
    ASSERT_EQ(::waitpid(srv, &st, WUNTRACED), srv);
    auto r = doctor({"--client", "frozen", "--pci", "b1:00.0"});
    ::kill(srv, SIGKILL);
    ::waitpid(srv, &st, 0);
    EXPECT_EQ(r.status, 0) << r.out; // a warning
    EXPECT_TRUE(has_line(
        r.out, "warn  client ",
        {"client \"frozen\" on 0000:b1:00.0 waits: server pid " + std::to_string(srv) + " listens",
         "but that process is stopped (SIGSTOP)",
         "fix: let it run (kill -CONT " + std::to_string(srv)}))
        << r.out;
}

// The client's fabric has no server, another fabric of the same runtime directory has it.
TEST_F(CliDoctor, ClientCheckFindsTheServerInAnotherFabric)
{
    make_fabric_dir();
    const std::string other = runtime_dir_ + "/softcomch/" + fabric_ + "-other";
    fs::create_directories(other);
    fs::permissions(other, fs::perms::owner_all);
    softcomch::unique_fd l;
    publish(other, "x", "0000:b1:00.0", "pf0hpf", l);
    auto r = doctor({"--client", "x", "--pci", "b1:00.0"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_TRUE(has_line(r.out, "FAIL  client ",
                         {"waits: no server named \"x\"",
                          "fix: a server of that name listens in fabric \"" + fabric_ +
                              "-other\": start both sides with the same SOFTCOMCH_FABRIC"}))
        << r.out;
    EXPECT_TRUE(contains(r.out, "no live server in fabric \"" + fabric_ + "\"")) << r.out;
    auto j = doctor({"--json", "--client", "x"});
    std::string error;
    json::value doc = json::parse(j.out, &error);
    ASSERT_TRUE(error.empty()) << error;
    const json::value *others = doc.find("client")->find("other_fabrics");
    ASSERT_TRUE(others && others->size() == 1) << j.out;
    EXPECT_EQ(others->elements()[0].find("fabric")->as_string(), fabric_ + "-other");
}

// ---------------------------------------------------------------------------------------------
// From an installed tree: the pkg-config check.

class CliDoctorInstalled : public CliDoctor {
protected:
    void SetUp() override
    {
        CliDoctor::SetUp();
        if (system("pkg-config --version >/dev/null 2>&1") != 0)
            GTEST_SKIP() << "pkg-config is not installed";
        prefix_ = runtime_dir_ + "/prefix";
        auto r = run_in(
            {sc_test::build_tree::cmake_command, "--install", bin_dir(), "--prefix", prefix_},
            child_env({}, {}), 120);
        ASSERT_EQ(r.status, 0) << r.out << r.err;
        ASSERT_EQ(access(softcomch_path().c_str(), X_OK), 0);
        // The host flavour's pkg-config directory, wherever CMAKE_INSTALL_LIBDIR put it.
        for (const auto &e : fs::recursive_directory_iterator(prefix_))
            if (e.path().filename() == "doca-comch.pc" &&
                e.path().parent_path().filename() == "pkgconfig")
                pc_dir_ = e.path().parent_path().string();
        ASSERT_FALSE(pc_dir_.empty());
    }
    std::string softcomch_path() const override { return prefix_ + "/bin/softcomch"; }

    std::string prefix_;
    std::string pc_dir_;
};

TEST_F(CliDoctorInstalled, PkgConfigPathIsChecked)
{
    auto without = doctor({}, {{"PKG_CONFIG_PATH", runtime_dir_ + "/nowhere"}},
                          {"PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR", "LD_LIBRARY_PATH"});
    EXPECT_EQ(without.status, 0) << without.out;
    EXPECT_TRUE(has_line(without.out, "ok    library ", {prefix_, "installed tree"}))
        << without.out;
    // The prefix itself, not the multiarch library directory (lib/x86_64-linux-gnu) or its lib/.
    EXPECT_TRUE(has_line(without.out, "ok    library ", {"(installed tree " + prefix_ + ")"}))
        << without.out;
    // Unless the machine has another doca-comch on pkg-config's default path, it is not found.
    EXPECT_TRUE(
        has_line(without.out, "warn  pkg-config ", {"fix: export PKG_CONFIG_PATH=" + pc_dir_}))
        << without.out;

    auto with = doctor({}, {{"PKG_CONFIG_PATH", pc_dir_}},
                       {"PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR", "LD_LIBRARY_PATH"});
    EXPECT_EQ(with.status, 0) << with.out;
    EXPECT_TRUE(has_line(with.out, "ok    pkg-config ", {"host flavour"})) << with.out;
}

} // namespace
