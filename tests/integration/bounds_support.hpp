// SPDX-License-Identifier: Apache-2.0
//
// What the bounds and liveness tests (test_bounds.cpp, test_liveness.cpp) share beside the
// public-API harness: the server's endpoint socket (so a test can be a peer that connects and
// says nothing), the process's descriptor count, environment knobs set for one test, SDK log
// lines captured and matched, and a pipe to say "go on" between processes.
#pragma once

#define DOCA_ALLOW_EXPERIMENTAL_API // the SDK log capture's buffer backend

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "comch_harness.hpp"
#include "sdk_log_capture.hpp"
#include "transport/fabric.hpp"

namespace bounds_test {

using namespace std::chrono_literals;
using sc_test::clock;

// Sets `name` for the life of the object (the forked children inherit it).
class env_knob {
public:
    env_knob(const char *name, const std::string &value) : name_(name)
    {
        ::setenv(name, value.c_str(), 1);
    }
    ~env_knob() { ::unsetenv(name_); }
    env_knob(const env_knob &) = delete;
    env_knob &operator=(const env_knob &) = delete;

private:
    const char *name_;
};

// The socket of the (one) server listening in this test's fabric, "" when there is none.
inline std::string endpoint_path()
{
    namespace fs = std::filesystem;
    const std::string dir = softcomch::transport::fabric_dir(softcomch::transport::fabric_name());
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.is_socket(ec))
            return e.path().string();
    return "";
}

// A raw connection to `path` that says nothing: the peer the handshake deadline is for.
inline int raw_connect(const std::string &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path.c_str(), sizeof sa.sun_path - 1);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof sa) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// What a raw connection saw from the server.
struct raw_state {
    bool answered = false; // a message (a REJECT: the server never accepts a silent peer)
    bool closed = false;   // end of file: the server closed its end
};
// Reads what is there without blocking.
inline void read_raw(int fd, raw_state &st)
{
    for (;;) {
        char buf[512];
        const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            st.answered = true;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            st.closed = true;
        return;
    }
}

// Descriptors this process has open.
inline size_t open_fds()
{
    size_t n = 0;
    if (DIR *d = ::opendir("/proc/self/fd")) {
        while (const dirent *e = ::readdir(d))
            n += e->d_name[0] != '.';
        ::closedir(d);
    }
    return n - 1; // the directory's own
}

// SDK lines captured since `mark` that contain `part`.
inline std::vector<std::string> lines_with(size_t mark, const std::string &part)
{
    std::lock_guard<std::mutex> g(sdk_log::mu);
    std::vector<std::string> out;
    for (size_t i = mark; i < sdk_log::lines.size(); ++i)
        if (sdk_log::lines[i].find(part) != std::string::npos)
            out.push_back(sdk_log::lines[i]);
    return out;
}

// A one-way "go on" between processes (tests/support/child_process.hpp).
using sc_test::gate;

// Milliseconds since `t`.
inline long ms_since(clock::time_point t)
{
    return long(std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t).count());
}

} // namespace bounds_test
