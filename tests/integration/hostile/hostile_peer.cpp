// SPDX-License-Identifier: Apache-2.0
//
// The definitions of hostile_peer.hpp.
#include "hostile_peer.hpp"

#include "transport/unix_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace hostile {

namespace tp = softcomch::transport;

namespace {

using clock = std::chrono::steady_clock;

// Waits until `fd` is readable (or hung up); false on timeout.
bool wait_readable(int fd, std::chrono::milliseconds timeout)
{
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, int(timeout.count()));
    return n == 1;
}

enum class got { datagram, hangup, nothing };

got receive(int sock, datagram &d, std::chrono::milliseconds timeout)
{
    if (!wait_readable(sock, timeout))
        return got::nothing;
    uint8_t buf[wire::k_max_message_size];
    size_t len = 0;
    int fds[tp::k_max_msg_fds];
    size_t nfds = 0;
    doca_error_t rc = tp::recv_msg(sock, buf, sizeof buf, &len, fds, &nfds, tp::k_max_msg_fds);
    if (rc == DOCA_ERROR_CONNECTION_RESET) {
        // A reset is reported before what was queued behind it (the victim's REJECT).
        rc = tp::recv_msg(sock, buf, sizeof buf, &len, fds, &nfds, tp::k_max_msg_fds);
        if (rc != DOCA_SUCCESS)
            return got::hangup;
    }
    if (rc != DOCA_SUCCESS)
        return got::nothing;
    d.bytes.assign(buf, buf + len);
    d.fds.clear();
    for (size_t i = 0; i < nfds; ++i)
        d.fds.emplace_back(fds[i]);
    d.decode_rc = wire::decode_any(buf, len, &d.msg);
    return got::datagram;
}

} // namespace

bool channel::send_bytes(const void *buf, size_t len, std::initializer_list<int> fds)
{
    std::vector<int> v(fds);
    return tp::send_msg(sock.get(), buf, len, v.data(), v.size()) == DOCA_SUCCESS;
}

bool channel::recv(datagram &d, std::chrono::milliseconds timeout)
{
    return receive(sock.get(), d, timeout) == got::datagram;
}

bool channel::wait_hangup(std::chrono::milliseconds timeout, std::string *reject)
{
    if (reject != nullptr)
        reject->clear();
    const auto end = clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - clock::now());
        if (left.count() <= 0)
            return false;
        datagram d;
        switch (receive(sock.get(), d, left)) {
        case got::hangup:
            return true;
        case got::nothing:
            if (clock::now() >= end)
                return false;
            break;
        case got::datagram:
            if (auto *r = std::get_if<wire::reject_msg>(&d.msg); r && reject != nullptr)
                *reject = r->text;
            break;
        }
    }
}

wake_pair wake_pair::make()
{
    wake_pair w;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0) {
        w.mine.reset(sv[0]);
        w.send_end.reset(sv[1]);
    }
    return w;
}

unique_fd make_memfd(uint64_t size, bool sealed)
{
    unique_fd fd(::memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd || ::ftruncate(fd.get(), off_t(size)) != 0)
        return unique_fd();
    if (sealed)
        (void)::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    return fd;
}

bool find_endpoint(const std::string &name, tp::endpoint_info &out,
                   std::chrono::milliseconds timeout)
{
    const auto end = clock::now() + timeout;
    do {
        try {
            for (const tp::endpoint_info &e : tp::list_endpoints(tp::fabric_dir(tp::fabric_name())))
                if (e.key.name == name) {
                    out = e;
                    return true;
                }
        } catch (...) {
        }
        std::this_thread::sleep_for(5ms);
    } while (clock::now() < end);
    return false;
}

// ---- client ----

bool client::connect(const tp::endpoint_info &ep)
{
    endpoint = ep;
    return tp::connect_to(ep.socket_path, sock) == DOCA_SUCCESS;
}

wire::hello_msg client::hello(uint32_t queue, uint32_t max_msg) const
{
    wire::hello_msg h;
    h.client_pid = uint32_t(::getpid());
    h.max_msg_size = max_msg;
    h.recv_queue_size = queue;
    h.bluefield = endpoint.key.bluefield;
    h.host_function = endpoint.key.host_function;
    h.server_name = endpoint.key.name;
    return h;
}

bool client::handshake(const tp::endpoint_info &ep, uint32_t queue)
{
    if (!connect(ep))
        return false;
    wake = wake_pair::make();
    if (!send(hello(queue), {wake.send_end.get()}))
        return false;
    datagram d;
    if (!recv(d))
        return false;
    auto *a = std::get_if<wire::accept_msg>(&d.msg);
    if (d.decode_rc != DOCA_SUCCESS || a == nullptr || d.fds.size() != 3)
        return false;
    accepted = *a;
    if (shm::segment::attach(d.fds[0].get(), a->segment_size, seg, false) != DOCA_SUCCESS ||
        seg.producer(shm::c2s, tx) != DOCA_SUCCESS || seg.consumer(shm::s2c, rx) != DOCA_SUCCESS)
        return false;
    peer_wake = std::move(d.fds[1]);
    bell_page = std::move(d.fds[2]);
    return true;
}

// ---- server ----

bool server::listen(const std::string &name, const std::string &host_function,
                    const std::string &bluefield)
{
    try {
        socket_path = tp::endpoint_socket_path(tp::fabric_dir(tp::fabric_name()),
                                               tp::endpoint_key{bluefield, host_function, name});
    } catch (...) {
        return false;
    }
    return shm::doorbell_owner::create(bells) == DOCA_SUCCESS &&
           tp::listen_at(socket_path, listener) == DOCA_SUCCESS;
}

server::~server()
{
    if (listener)
        ::unlink(socket_path.c_str());
}

bool server::accept_hello(std::chrono::milliseconds timeout)
{
    const auto end = clock::now() + timeout;
    while (!sock) {
        if (clock::now() >= end)
            return false;
        if (!wait_readable(listener.get(), 50ms))
            continue;
        (void)tp::accept_from(listener.get(), sock);
    }
    datagram d;
    if (!recv(d, std::chrono::duration_cast<std::chrono::milliseconds>(end - clock::now())))
        return false;
    auto *h = std::get_if<wire::hello_msg>(&d.msg);
    if (d.decode_rc != DOCA_SUCCESS || h == nullptr)
        return false;
    hello = *h;
    hello_fds = std::move(d.fds);
    return true;
}

wire::accept_msg server::honest_accept() const
{
    const uint32_t max_msg = std::min<uint32_t>(4080, hello.max_msg_size);
    const shm::ring_params c = shm::ring_layout::params_for(16, max_msg);
    const shm::ring_params s = shm::ring_layout::params_for(hello.recv_queue_size, max_msg);
    wire::accept_msg a;
    a.max_msg_size = max_msg;
    a.connection_id = 1;
    a.c2s_capacity = c.capacity;
    a.s2c_capacity = s.capacity;
    a.c2s_limit = c.limit;
    a.s2c_limit = s.limit;
    a.max_record = c.max_record;
    a.segment_size = shm::segment::size_for(c, s);
    a.bell = 0;
    return a;
}

bool server::accept_honestly()
{
    const wire::accept_msg a = honest_accept();
    shm::segment_params sp;
    sp.rings[shm::c2s] = shm::ring_layout::params_for(a.c2s_limit, a.max_msg_size);
    sp.rings[shm::s2c] = shm::ring_layout::params_for(a.s2c_limit, a.max_msg_size);
    sp.generation = a.connection_id;
    if (shm::segment::create(sp, seg) != DOCA_SUCCESS)
        return false;
    wake = wake_pair::make();
    if (!send(a, {seg.fd(), wake.send_end.get(), bells->fd()}))
        return false;
    return seg.producer(shm::s2c, tx) == DOCA_SUCCESS && seg.consumer(shm::c2s, rx) == DOCA_SUCCESS;
}

// ---- fake consumer ----

bool fake_consumer::make(uint32_t num_tasks)
{
    shm::fast_channel_params p;
    p.num_tasks = num_tasks;
    if (shm::fast_channel::create(p, ch) != DOCA_SUCCESS || q.attach(ch) != DOCA_SUCCESS)
        return false;
    wake = wake_pair::make();
    return bool(wake.send_end);
}

wire::consumer_announce_msg fake_consumer::shared(uint32_t id, uint64_t map_base, uint64_t map_size,
                                                  uint64_t addr, uint64_t len) const
{
    wire::consumer_announce_msg m;
    m.consumer_id = id;
    m.channel_size = ch.size();
    m.mechanism = 1;
    m.pid = uint32_t(::getpid());
    m.addr = addr;
    m.len = len;
    m.map_base = map_base;
    m.map_size = map_size;
    return m;
}

wire::consumer_announce_msg fake_consumer::pvw(uint32_t id, uint32_t pid, uint64_t addr,
                                               uint64_t len) const
{
    wire::consumer_announce_msg m;
    m.consumer_id = id;
    m.channel_size = ch.size();
    m.mechanism = 2;
    m.pid = pid;
    m.addr = addr;
    m.len = len;
    return m;
}

void write_raw_record(void *ring_mem, uint32_t len, uint16_t type, uint32_t kind)
{
    auto *h = reinterpret_cast<shm::record_header *>(static_cast<uint8_t *>(ring_mem) +
                                                     shm::k_ring_ctrl_size);
    h->len = len;
    h->type = type;
    h->flags = 0;
    h->kind = kind;
    h->seq.store(shm::record_mark(0), std::memory_order_release);
}

size_t rss_kib(pid_t pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("VmRSS:", 0) == 0)
            return size_t(std::strtoull(line.c_str() + 6, nullptr, 10));
    }
    return 0;
}

std::string file_text(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool file_contains(const std::string &path, const std::string &needle,
                   std::chrono::milliseconds timeout)
{
    const auto end = clock::now() + timeout;
    do {
        if (file_text(path).find(needle) != std::string::npos)
            return true;
        std::this_thread::sleep_for(10ms);
    } while (clock::now() < end);
    return false;
}

} // namespace hostile
