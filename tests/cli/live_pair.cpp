// SPDX-License-Identifier: Apache-2.0
//
// The definitions of live_pair.hpp.
#include "live_pair.hpp"

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_dev.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "comch_harness.hpp"

namespace sc_cli {

namespace {

using namespace std::chrono_literals;

std::string supported(doca_error_t rc)
{
    return rc == DOCA_SUCCESS               ? "supported"
           : rc == DOCA_ERROR_NOT_SUPPORTED ? "unsupported"
                                            : "error";
}

std::string value(doca_error_t rc, uint32_t v)
{
    return rc == DOCA_SUCCESS               ? std::to_string(v)
           : rc == DOCA_ERROR_NOT_SUPPORTED ? "unsupported"
                                            : "error";
}

bool write_line(int fd, const std::string &line)
{
    const std::string text = line + "\n";
    return ::write(fd, text.data(), text.size()) == ssize_t(text.size());
}

std::string joined(const std::vector<std::string> &flags)
{
    std::string out;
    for (const auto &f : flags)
        out += (out.empty() ? "" : " ") + f;
    return out;
}

std::vector<std::string> split(const std::string &line)
{
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < line.size()) {
        const size_t sp = line.find(' ', pos);
        out.push_back(line.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos));
        if (sp == std::string::npos)
            break;
        pos = sp + 1;
    }
    return out;
}

// Reads what is available on `fd` into `buf`; false at EOF or on an error.
bool drain(int fd, std::string &buf)
{
    char chunk[4096];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0)
        return false;
    buf.append(chunk, size_t(n));
    return true;
}

int server_side(const std::string &name, int out)
{
    const std::vector<std::string> caps = api_caps("03:00.0");
    sc_test::server s(name);
    CHILD_CHECK(s.ok());
    std::string got;
    bool echoed = false;
    s.on_recv = [&](sc_test::side &self, doca_comch_connection *c, const uint8_t *b, uint32_t n) {
        got.assign(reinterpret_cast<const char *>(b), n);
        echoed = self.send(c, b, n) == DOCA_SUCCESS;
    };
    CHILD_CHECK(s.start() == DOCA_SUCCESS);
    CHILD_CHECK(s.progress_until([&] { return s.connections.size() == 1; }, 20000ms));
    CHILD_CHECK(write_line(out, "connected " + joined(caps)));
    CHILD_CHECK(s.progress_until([&] { return !s.disconnected.empty(); }, 60000ms));
    CHILD_CHECK(got == "ping" && echoed);
    CHILD_CHECK(s.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

int client_side(const std::string &name, int out, int go)
{
    const std::vector<std::string> caps = api_caps("b1:00.0");
    sc_test::client c(name);
    CHILD_CHECK(c.ok());
    CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(c.wait_running(20000ms));
    CHILD_CHECK(write_line(out, "connected " + joined(caps)));
    // Keep the connection alive (progressing) until the test says go.
    bool told = false;
    CHILD_CHECK(c.progress_until(
        [&] {
            pollfd p{go, POLLIN, 0};
            told = told || ::poll(&p, 1, 0) == 1;
            return told;
        },
        60000ms));
    CHILD_CHECK(c.send(c.connection(), std::string("ping")) == DOCA_SUCCESS);
    CHILD_CHECK(c.progress_until([&] { return !c.received.empty(); }, 10000ms));
    CHILD_CHECK(c.received.front().data == "ping");
    CHILD_CHECK(c.stop_and_wait() == DOCA_SUCCESS);
    return 0;
}

} // namespace

std::vector<std::string> api_caps(const char *pci)
{
    std::vector<std::string> flags;
    doca_dev *dev = sc_test::open_dev(pci);
    if (dev == nullptr)
        return flags;
    const doca_devinfo *d = doca_dev_as_devinfo(dev);
    uint32_t v = 0;
    doca_error_t rc;
    flags.push_back("server_is_supported=" + supported(doca_comch_cap_server_is_supported(d)));
    flags.push_back("client_is_supported=" + supported(doca_comch_cap_client_is_supported(d)));
    rc = doca_comch_cap_get_max_name_len(d, &v);
    flags.push_back("max_name_len=" + value(rc, v));
    rc = doca_comch_cap_get_max_msg_size(d, &v);
    flags.push_back("max_msg_size=" + value(rc, v));
    rc = doca_comch_cap_get_max_recv_queue_size(d, &v);
    flags.push_back("max_recv_queue_size=" + value(rc, v));
    rc = doca_comch_cap_get_max_clients(d, &v);
    flags.push_back("max_clients=" + value(rc, v));
    rc = doca_comch_cap_get_max_send_tasks(d, &v);
    flags.push_back("max_send_tasks=" + value(rc, v));
    flags.push_back("consumer_is_supported=" + supported(doca_comch_consumer_cap_is_supported(d)));
    rc = doca_comch_consumer_cap_get_max_num_tasks(d, &v);
    flags.push_back("consumer_max_num_tasks=" + value(rc, v));
    rc = doca_comch_consumer_cap_get_max_buf_size(d, &v);
    flags.push_back("consumer_max_buf_size=" + value(rc, v));
    rc = doca_comch_consumer_cap_get_max_buf_list_len(d, &v);
    flags.push_back("consumer_max_buf_list_len=" + value(rc, v));
    rc = doca_comch_consumer_cap_get_max_consumers(d, &v);
    flags.push_back("consumer_max_consumers=" + value(rc, v));
    rc = doca_comch_consumer_cap_get_max_imm_data_len(d, &v);
    flags.push_back("consumer_max_imm_data_len=" + value(rc, v));
    flags.push_back("producer_is_supported=" + supported(doca_comch_producer_cap_is_supported(d)));
    rc = doca_comch_producer_cap_get_max_num_tasks(d, &v);
    flags.push_back("producer_max_num_tasks=" + value(rc, v));
    rc = doca_comch_producer_cap_get_max_buf_size(d, &v);
    flags.push_back("producer_max_buf_size=" + value(rc, v));
    rc = doca_comch_producer_cap_get_max_buf_list_len(d, &v);
    flags.push_back("producer_max_buf_list_len=" + value(rc, v));
    rc = doca_comch_producer_cap_get_max_producers(d, &v);
    flags.push_back("producer_max_producers=" + value(rc, v));
    doca_dev_close(dev);
    return flags;
}

live_pair::live_pair(const std::string &server_name)
{
    int s[2], c[2], g[2];
    if (pipe2(s, O_CLOEXEC) != 0 || pipe2(c, O_CLOEXEC) != 0 || pipe2(g, O_CLOEXEC) != 0)
        return;
    server_ = sc_test::spawn([&] {
        ::close(s[0]);
        return server_side(server_name, s[1]);
    });
    client_ = sc_test::spawn([&] {
        ::close(c[0]);
        ::close(g[1]);
        return client_side(server_name, c[1], g[0]);
    });
    ::close(s[1]);
    ::close(c[1]);
    ::close(g[0]);
    server_out_ = s[0];
    client_out_ = c[0];
    client_go_ = g[1];
}

live_pair::~live_pair()
{
    for (pid_t p : {server_, client_})
        if (p > 0) {
            ::kill(p, SIGKILL);
            int st = 0;
            ::waitpid(p, &st, 0);
        }
    for (int fd : {server_out_, client_out_, client_go_})
        if (fd >= 0)
            ::close(fd);
}

bool live_pair::wait_connected(int timeout_ms)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    auto line_of = [](const std::string &buf) {
        return buf.find('\n');
    };
    while (line_of(server_buf_) == std::string::npos || line_of(client_buf_) == std::string::npos) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            end - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd p[2] = {{server_out_, POLLIN, 0}, {client_out_, POLLIN, 0}};
        if (::poll(p, 2, int(left.count())) <= 0)
            continue;
        if ((p[0].revents & (POLLIN | POLLHUP)) && !drain(server_out_, server_buf_) &&
            line_of(server_buf_) == std::string::npos)
            return false; // the server exited before connecting
        if ((p[1].revents & (POLLIN | POLLHUP)) && !drain(client_out_, client_buf_) &&
            line_of(client_buf_) == std::string::npos)
            return false;
    }
    auto flags_of = [](const std::string &buf) {
        std::vector<std::string> words = split(buf.substr(0, buf.find('\n')));
        if (!words.empty() && words.front() == "connected")
            words.erase(words.begin());
        return words;
    };
    server_caps = flags_of(server_buf_);
    client_caps = flags_of(client_buf_);
    return true;
}

bool live_pair::finish()
{
    if (client_go_ < 0 || ::write(client_go_, "g", 1) != 1)
        return false;
    const int c = sc_test::wait_child(client_, 30000ms);
    const int s = sc_test::wait_child(server_, 30000ms);
    client_ = server_ = -1;
    return c == 0 && s == 0;
}

} // namespace sc_cli
