// SPDX-License-Identifier: Apache-2.0
//
// Fabric directory: location rules, private creation, endpoint naming, info files and
// stale-endpoint cleanup.
#include "transport/fabric.hpp"
#include "transport/unix_socket.hpp"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <system_error>

using namespace softcomch;
using namespace softcomch::transport;

namespace {

void rm_rf(const std::string &path)
{
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        if (DIR *d = opendir(path.c_str())) {
            while (dirent *e = readdir(d)) {
                if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                    rm_rf(path + "/" + e->d_name);
            }
            closedir(d);
        }
        rmdir(path.c_str());
    } else {
        unlink(path.c_str());
    }
}

bool exists(const std::string &p)
{
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
}

// A private XDG_RUNTIME_DIR for each test; restores the environment afterwards.
class unit_transport_fabric : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (const char *x = getenv("XDG_RUNTIME_DIR"))
            saved_xdg_ = x, had_xdg_ = true;
        if (const char *f = getenv("SOFTCOMCH_FABRIC"))
            saved_fabric_ = f, had_fabric_ = true;
        char tmpl[] = "/tmp/sc-fab-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        xdg_ = tmpl;
        setenv("XDG_RUNTIME_DIR", xdg_.c_str(), 1);
    }
    void TearDown() override
    {
        rm_rf(xdg_);
        if (had_xdg_)
            setenv("XDG_RUNTIME_DIR", saved_xdg_.c_str(), 1);
        else
            unsetenv("XDG_RUNTIME_DIR");
        if (had_fabric_)
            setenv("SOFTCOMCH_FABRIC", saved_fabric_.c_str(), 1);
        else
            unsetenv("SOFTCOMCH_FABRIC");
    }
    endpoint_info make_info(const std::string &dir, const std::string &name, int pid)
    {
        endpoint_info e;
        e.key = {"bf0", "0000:b1:00.0", name};
        e.socket_path = endpoint_socket_path(dir, e.key);
        e.pid = pid;
        e.dpu_device = "0000:03:00.0";
        e.representor = "pf0hpf";
        e.max_msg_size = 4080;
        e.recv_queue_size = 16;
        return e;
    }
    std::string xdg_;
    std::string saved_xdg_, saved_fabric_;
    bool had_xdg_ = false, had_fabric_ = false;
};

} // namespace

TEST_F(unit_transport_fabric, names)
{
    unsetenv("SOFTCOMCH_FABRIC");
    EXPECT_EQ(fabric_name(), "default");
    setenv("SOFTCOMCH_FABRIC", "ci-job_7.a", 1);
    EXPECT_EQ(fabric_name(), "ci-job_7.a");
    EXPECT_TRUE(valid_fabric_name("default"));
    EXPECT_TRUE(valid_fabric_name(std::string(64, 'a')));
    EXPECT_FALSE(valid_fabric_name(std::string(65, 'a')));
    EXPECT_FALSE(valid_fabric_name(""));
    EXPECT_FALSE(valid_fabric_name("."));
    EXPECT_FALSE(valid_fabric_name(".."));
    EXPECT_FALSE(valid_fabric_name("a/b"));
    EXPECT_FALSE(valid_fabric_name("a b"));
    EXPECT_THROW(fabric_dir_path("../etc"), std::system_error);
    EXPECT_THROW(fabric_dir("a/b"), std::system_error);
}

TEST_F(unit_transport_fabric, directory_location_and_mode)
{
    EXPECT_EQ(fabric_dir_path("f1"), xdg_ + "/softcomch/f1");
    EXPECT_FALSE(exists(xdg_ + "/softcomch")); // _path creates nothing
    const std::string dir = fabric_dir("f1");
    EXPECT_EQ(dir, xdg_ + "/softcomch/f1");
    struct stat st;
    ASSERT_EQ(stat(dir.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(stat((xdg_ + "/softcomch").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    // Idempotent; loose permissions are tightened.
    ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
    EXPECT_EQ(fabric_dir("f1"), dir);
    ASSERT_EQ(stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);

    // Unusable XDG_RUNTIME_DIR (missing, relative, unset): /tmp/softcomch-<uid>.
    const std::string fallback = "/tmp/softcomch-" + std::to_string(geteuid()) + "/f1";
    setenv("XDG_RUNTIME_DIR", (xdg_ + "/missing").c_str(), 1);
    EXPECT_EQ(fabric_dir_path("f1"), fallback);
    setenv("XDG_RUNTIME_DIR", "relative/dir", 1);
    EXPECT_EQ(fabric_dir_path("f1"), fallback);
    unsetenv("XDG_RUNTIME_DIR");
    EXPECT_EQ(fabric_dir_path("f1"), fallback);
}

TEST_F(unit_transport_fabric, refuses_foreign_or_symlinked_directories)
{
    // A symlink in place of the fabric directory.
    ASSERT_EQ(mkdir((xdg_ + "/softcomch").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((xdg_ + "/elsewhere").c_str(), 0700), 0);
    ASSERT_EQ(symlink((xdg_ + "/elsewhere").c_str(), (xdg_ + "/softcomch/sym").c_str()), 0);
    EXPECT_THROW(fabric_dir("sym"), std::system_error);
    // A file in place of it.
    {
        unique_fd f(open((xdg_ + "/softcomch/file").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    }
    EXPECT_THROW(fabric_dir("file"), std::system_error);
    // Owned by another uid (needs the privilege to chown).
    const std::string foreign = xdg_ + "/softcomch/foreign";
    ASSERT_EQ(mkdir(foreign.c_str(), 0700), 0);
    if (chown(foreign.c_str(), 12345, 12345) != 0)
        GTEST_SKIP() << "cannot chown (not root): foreign-owner case not exercised";
    try {
        fabric_dir("foreign");
        ADD_FAILURE() << "a directory owned by another uid was accepted";
    } catch (const std::system_error &e) {
        EXPECT_NE(std::string(e.what()).find("owned by uid 12345"), std::string::npos) << e.what();
    }
}

TEST_F(unit_transport_fabric, endpoint_socket_path_format)
{
    EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
    const std::string dir = fabric_dir("f2");
    const endpoint_key key{"bf0", "0000:b1:00.0", "foobar"};
    const std::string p = endpoint_socket_path(dir, key);
    EXPECT_EQ(p, dir + "/bf0@0000:b1:00.0@85944171f73967e8.sock");
    EXPECT_EQ(endpoint_info_path(p), dir + "/bf0@0000:b1:00.0@85944171f73967e8.info");
    EXPECT_THROW(endpoint_info_path(dir + "/x.info"), std::system_error);
    // Names with any bytes hash fine; ids must be file-name safe.
    EXPECT_NO_THROW(endpoint_socket_path(dir, {"bf0", "0000:b1:00.0", "a/b\n c"}));
    EXPECT_THROW(endpoint_socket_path(dir, {"bf/0", "0000:b1:00.0", "x"}), std::system_error);
    EXPECT_THROW(endpoint_socket_path(dir, {"", "0000:b1:00.0", "x"}), std::system_error);
    // Too long for sockaddr_un: a clear error.
    try {
        endpoint_socket_path("/" + std::string(90, 'd'), key);
        ADD_FAILURE() << "expected a length error";
    } catch (const std::system_error &e) {
        EXPECT_EQ(e.code().value(), ENAMETOOLONG);
    }
}

TEST_F(unit_transport_fabric, info_file_round_trip)
{
    const std::string dir = fabric_dir("f3");
    endpoint_info e = make_info(dir, "weird=name%\nwith\tcontrol \xc3\xa9", getpid());
    write_endpoint_info(e);
    const std::string ip = endpoint_info_path(e.socket_path);
    ASSERT_TRUE(exists(ip));
    struct stat st;
    ASSERT_EQ(stat(ip.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    endpoint_info r;
    ASSERT_TRUE(read_endpoint_info(ip, r));
    EXPECT_EQ(r.key.name, e.key.name);
    EXPECT_EQ(r.key.bluefield, "bf0");
    EXPECT_EQ(r.key.host_function, "0000:b1:00.0");
    EXPECT_EQ(r.socket_path, e.socket_path);
    EXPECT_EQ(r.pid, getpid());
    EXPECT_EQ(r.dpu_device, "0000:03:00.0");
    EXPECT_EQ(r.representor, "pf0hpf");
    EXPECT_EQ(r.max_msg_size, 4080u);
    EXPECT_EQ(r.recv_queue_size, 16u);
    // No temporary file is left behind.
    int files = 0;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *de = readdir(d))
            files += de->d_name[0] != '.';
        closedir(d);
    }
    EXPECT_EQ(files, 1);
    remove_endpoint(e);
    EXPECT_FALSE(exists(ip));
}

TEST_F(unit_transport_fabric, the_last_endpoint_takes_the_fabric_directory_with_it)
{
    const std::string dir = fabric_dir("f5");
    endpoint_info a = make_info(dir, "a", getpid());
    endpoint_info b = make_info(dir, "b", getpid());
    unique_fd fa, fb;
    ASSERT_EQ(listen_at(a.socket_path, fa), DOCA_SUCCESS);
    write_endpoint_info(a);
    ASSERT_EQ(listen_at(b.socket_path, fb), DOCA_SUCCESS);
    write_endpoint_info(b);
    // Another endpoint is left: the directory stays, with it.
    remove_endpoint(a);
    ASSERT_TRUE(exists(dir));
    EXPECT_TRUE(exists(b.socket_path));
    // The last one: nothing of the fabric is left behind.
    remove_endpoint(b);
    EXPECT_FALSE(exists(dir));
    // A server that bound into the old directory's name now finds it gone (the race it retries
    // after making the directory again); fabric_dir() makes it again.
    unique_fd late;
    EXPECT_EQ(listen_at(a.socket_path, late), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(fabric_dir("f5"), dir);
    EXPECT_EQ(listen_at(a.socket_path, late), DOCA_SUCCESS);
    // A file of someone else's in the directory keeps it (rmdir only removes an empty one).
    const std::string other = dir + "/not-ours";
    unique_fd f(open(other.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    ASSERT_TRUE(f);
    ::unlink(a.socket_path.c_str());
    release_fabric_dir(dir);
    EXPECT_TRUE(exists(other));
    ::unlink(other.c_str());
    release_fabric_dir(dir);
    EXPECT_FALSE(exists(dir));
}

TEST_F(unit_transport_fabric, list_endpoints_cleans_stale_entries)
{
    const std::string dir = fabric_dir("f4");
    EXPECT_TRUE(list_endpoints(dir + "-missing").empty());

    // A live server: our pid, a listening socket.
    endpoint_info live = make_info(dir, "live", getpid());
    unique_fd lfd;
    ASSERT_EQ(listen_at(live.socket_path, lfd), DOCA_SUCCESS);
    write_endpoint_info(live);

    // A dead server: a child that bound, wrote its info and exited (socket left behind).
    endpoint_info dead = make_info(dir, "dead", 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        unique_fd f;
        if (listen_at(dead.socket_path, f) != DOCA_SUCCESS)
            _exit(1);
        dead.pid = getpid();
        try {
            write_endpoint_info(dead);
        } catch (...) {
            _exit(2);
        }
        // Leave a temporary info file behind too, as a writer killed mid-write would.
        unique_fd t(open((dir + "/x.info.tmp." + std::to_string(getpid())).c_str(),
                         O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    ASSERT_TRUE(exists(dead.socket_path));
    ASSERT_TRUE(exists(endpoint_info_path(dead.socket_path)));

    // Alive process but its socket file is gone.
    endpoint_info nosock = make_info(dir, "nosock", getpid());
    write_endpoint_info(nosock);

    // A malformed info file: skipped, left alone.
    const std::string junk = dir + "/junk.info";
    {
        unique_fd f(open(junk.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
        ASSERT_EQ(write(f.get(), "garbage\n", 8), 8);
    }

    const auto eps = list_endpoints(dir);
    ASSERT_EQ(eps.size(), 1u);
    EXPECT_EQ(eps[0].key.name, "live");
    EXPECT_EQ(eps[0].pid, getpid());
    EXPECT_EQ(eps[0].socket_path, live.socket_path);
    EXPECT_FALSE(exists(dead.socket_path));
    EXPECT_FALSE(exists(endpoint_info_path(dead.socket_path)));
    EXPECT_FALSE(exists(endpoint_info_path(nosock.socket_path)));
    EXPECT_FALSE(exists(dir + "/x.info.tmp." + std::to_string(child)));
    EXPECT_TRUE(exists(junk));
    EXPECT_TRUE(exists(live.socket_path));

    // The dead server's name can be taken again.
    unique_fd again;
    EXPECT_EQ(listen_at(dead.socket_path, again), DOCA_SUCCESS);
}
