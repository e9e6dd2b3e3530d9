// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/link.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "transport/shm/shm.hpp"
#include "transport/unix_socket.hpp"
#include "transport/wire.hpp"

namespace softcomch::transport::shm {

namespace {

void close_fds(int *fds, size_t n) noexcept
{
    for (size_t i = 0; i < n; ++i)
        if (fds[i] >= 0)
            ::close(fds[i]);
}

// Encodes `m` and sends it on `sock` with `nfds` descriptors: the first error of the two.
template <class Msg>
doca_error_t send_wire(int sock, const Msg &m, const int *fds = nullptr, size_t nfds = 0) noexcept
{
    uint8_t buf[wire::k_max_message_size];
    size_t len = 0;
    doca_error_t rc = wire::encode(m, buf, sizeof buf, &len);
    if (rc == DOCA_SUCCESS)
        rc = send_msg(sock, buf, len, fds, nfds);
    return rc;
}

// One datagram received on a socket, with the descriptors that came with it (the caller's to
// close or keep).
struct datagram {
    uint8_t buf[wire::k_max_message_size];
    size_t len = 0;
    int fds[k_max_msg_fds];
    size_t nfds = 0;

    doca_error_t receive(int sock) noexcept
    {
        return recv_msg(sock, buf, sizeof buf, &len, fds, &nfds, k_max_msg_fds);
    }
    void close_all() noexcept { close_fds(fds, nfds); }
};

// The memory fields of a CONSUMER_ANNOUNCE are a memory_desc, flattened (wire.hpp): copies them
// from one to the other, either way.
template <class To, class From> void copy_memory_fields(To &to, const From &from) noexcept
{
    to.mechanism = from.mechanism;
    to.pid = from.pid;
    to.addr = from.addr;
    to.len = from.len;
    to.map_base = from.map_base;
    to.map_size = from.map_size;
    to.file_offset = from.file_offset;
}

} // namespace

// ---- link ----

link::link() : transport::link(traits::ops()) {}

link::~link() = default;

size_t watch_readable(watch_handle (&out)[k_max_handles], int fd) noexcept
{
    if (fd < 0)
        return 0;
    out[0] = watch_handle{fd, EPOLLIN};
    return 1;
}

size_t link::handles(watch_handle (&out)[k_max_handles]) const noexcept
{
    // EPOLLIN | EPOLLRDHUP on the socket: after the handshake it carries the slow channel's
    // messages, and its hang-up means the peer is gone.
    out[0] = watch_handle{sock_.get(), EPOLLIN | EPOLLRDHUP};
    out[1] = watch_handle{my_event_.fd(), EPOLLIN};
    return 2;
}

void link::on_ready(size_t index, uint32_t events) noexcept
{
    if (index == 1) {
        (void)my_event_.drain();
        return;
    }
    slow_pending_ = true;
    if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
        peer_gone_ = true;
}

void link::wake_peer() noexcept
{
    // A failure leaves nothing to do here: a peer whose descriptor broke is noticed dead on its
    // socket.
    (void)peer_event_.signal();
}

bool link::peer_alive() noexcept
{
    char c;
    ssize_t r = ::recv(sock_.get(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r == 0)
        return false; // orderly shutdown: the peer closed or its process ended
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        return false; // reset
    return true;
}

transport::link::peer_activity link::beat(uint64_t now_ns) noexcept
{
    segment_.beat(me_, now_ns != 0 ? now_ns : 1); // 0 means "never beat"
    const uint64_t peer = segment_.heartbeat(me_ == server_side ? client_side : server_side);
    if (peer == 0)
        return peer_activity::unknown;
    if (peer != peer_last_beat_) {
        peer_last_beat_ = peer;
        return peer_activity::progressed;
    }
    // Asleep: it armed the ring we write, so it waits on its eventfd for our next message.
    return tx_.consumer_armed() ? peer_activity::asleep : peer_activity::still;
}

// ---- the slow channel: consumer announce / ack / expire ----

unsigned link::service(link_handler &h)
{
    if (!slow_pending_)
        return 0;
    slow_pending_ = false;
    unsigned work = 0;
    for (;;) {
        datagram d;
        doca_error_t rc = d.receive(sock_.get());
        if (rc == DOCA_ERROR_AGAIN)
            break;
        if (rc != DOCA_SUCCESS) {
            // EOF or reset: the peer process closed its end (exit, crash, or close).
            peer_gone_ = true;
            break;
        }
        ++work;
        wire::message m;
        rc = wire::decode_any(d.buf, d.len, &m);
        if (rc == DOCA_SUCCESS && std::holds_alternative<wire::consumer_announce_msg>(m)) {
            receive_announce(h, std::get<wire::consumer_announce_msg>(m), d.fds, d.nfds);
            continue;
        }
        d.close_all();
        if (rc != DOCA_SUCCESS)
            h.message_dropped(rc);
        else if (auto *ack = std::get_if<wire::consumer_ack_msg>(&m))
            h.consumer_acknowledged(ack->consumer_id, doca_error_t(ack->status));
        else if (auto *exp = std::get_if<wire::consumer_expire_msg>(&m))
            h.consumer_expired(exp->consumer_id);
        else
            h.message_dropped(DOCA_SUCCESS); // a handshake message on an established link
    }
    return work;
}

void link::receive_announce(link_handler &h, const wire::consumer_announce_msg &m, int *fds,
                            size_t nfds)
{
    const bool shared = m.mechanism == uint32_t(memory_mechanism::shared);
    // Take ownership of every descriptor first, so each exits through one path.
    unique_fd chan_fd(nfds > 0 ? fds[0] : -1), event_fd(nfds > 1 ? fds[1] : -1),
        mem_fd(nfds > 2 ? fds[2] : -1);
    for (size_t i = 3; i < nfds; ++i)
        ::close(fds[i]);
    std::unique_ptr<transport::remote_consumer> r;
    doca_error_t rc = nfds == (shared ? 3u : 2u) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
    if (rc == DOCA_SUCCESS) {
        memory_desc d{};
        copy_memory_fields(d, m);
        rc = remote_consumer::attach(m.consumer_id, m.imm_data_len, chan_fd.get(), m.channel_size,
                                     mem_fd.get(), d, softcomch::event_fd(std::move(event_fd)), r);
    }
    h.consumer_announced(m.consumer_id, std::move(r), rc);
}

doca_error_t link::announce(const transport::consumer_endpoint &c,
                            const transport::memory_export &memory) noexcept
{
    // Objects of another transport cannot travel on this link.
    if (&c.ops() != &ops() || &memory.ops() != &ops())
        return DOCA_ERROR_INVALID_VALUE;
    const auto &ep = static_cast<const consumer_endpoint &>(c);
    const exported_memory &exp = static_cast<const memory_export &>(memory).exported();
    const memory_desc &d = exp.desc;
    if (d.mechanism == uint32_t(memory_mechanism::pvw) && peer_pid_ > 0)
        allow_peer_access(peer_pid_);
    wire::consumer_announce_msg m;
    m.consumer_id = ep.params().consumer_id;
    m.imm_data_len = ep.params().imm_data_len;
    m.channel_size = ep.channel().size();
    copy_memory_fields(m, d);
    const int fds[3] = {ep.channel().fd(), ep.event_handle(), exp.range.fd.get()};
    const size_t nfds = d.mechanism == uint32_t(memory_mechanism::shared) ? 3 : 2;
    return send_wire(sock_.get(), m, fds, nfds);
}

void link::acknowledge(uint32_t consumer_id, doca_error_t status) noexcept
{
    wire::consumer_ack_msg a;
    a.consumer_id = consumer_id;
    a.status = uint32_t(status);
    (void)send_wire(sock_.get(), a);
}

void link::expire(uint32_t consumer_id) noexcept
{
    wire::consumer_expire_msg m;
    m.consumer_id = consumer_id;
    (void)send_wire(sock_.get(), m);
}

// ---- server side ----

size_t pending::handles(watch_handle (&out)[k_max_handles]) const noexcept
{
    return watch_readable(out, sock_.get());
}

doca_error_t pending::read_hello(hello_info &hello)
{
    datagram d;
    doca_error_t rc = d.receive(sock_.get());
    if (rc != DOCA_SUCCESS)
        return rc;
    wire::hello_msg m;
    rc = wire::decode(d.buf, d.len, &m);
    if (rc != DOCA_SUCCESS || d.nfds != wire::fds_for(wire::msg_type::hello)) {
        d.close_all();
        return rc != DOCA_SUCCESS ? rc : DOCA_ERROR_INVALID_VALUE;
    }
    if (m.proto_min > wire::k_protocol_version || m.proto_max < wire::k_protocol_version) {
        d.close_all();
        reject(DOCA_ERROR_UNSUPPORTED_VERSION, "unsupported protocol version");
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    }
    peer_event_ = softcomch::event_fd(unique_fd(d.fds[0]));
    hello.pid = int(m.client_pid);
    hello.bluefield = std::move(m.bluefield);
    hello.host_function = std::move(m.host_function);
    hello.name = std::move(m.server_name);
    hello.params.max_msg_size = m.max_msg_size;
    hello.params.recv_queue_size = m.recv_queue_size;
    return DOCA_SUCCESS;
}

void pending::reject(doca_error_t reason, const std::string &text) noexcept
{
    wire::reject_msg m;
    m.reason = reason;
    m.text = text.substr(0, wire::k_max_text_len);
    (void)send_wire(sock_.get(), m);
}

doca_error_t pending::accept(const link_params &mine, const hello_info &hello, uint64_t id,
                             std::unique_ptr<transport::link> &out)
{
    const uint32_t max_msg = std::min(mine.max_msg_size, hello.params.max_msg_size);
    segment_params sp;
    // The server consumes client->server: that ring is sized by the server's receive queue.
    sp.rings[c2s] = ring_layout::params_for(mine.recv_queue_size, max_msg);
    sp.rings[s2c] = ring_layout::params_for(hello.params.recv_queue_size, max_msg);
    sp.generation = id;

    std::unique_ptr<link> l(new link());
    doca_error_t rc = segment::create(sp, l->segment_);
    if (rc != DOCA_SUCCESS) {
        reject(rc, "the server could not create the shared-memory segment");
        return rc;
    }
    if ((rc = softcomch::event_fd::create(l->my_event_)) != DOCA_SUCCESS) {
        reject(rc, "the server could not create an eventfd");
        return rc;
    }
    if ((rc = l->segment_.producer(s2c, l->tx_)) != DOCA_SUCCESS ||
        (rc = l->segment_.consumer(c2s, l->rx_)) != DOCA_SUCCESS)
        return rc;

    wire::accept_msg m;
    m.max_msg_size = max_msg;
    m.connection_id = id;
    m.c2s_capacity = sp.rings[c2s].capacity;
    m.s2c_capacity = sp.rings[s2c].capacity;
    m.c2s_limit = sp.rings[c2s].limit;
    m.s2c_limit = sp.rings[s2c].limit;
    m.max_record = sp.rings[c2s].max_record;
    m.segment_size = l->segment_.size();
    const int fds[2] = {l->segment_.fd(), l->my_event_.fd()};
    if ((rc = send_wire(sock_.get(), m, fds, 2)) != DOCA_SUCCESS)
        return rc;
    // The client holds its own descriptor now; the mapping keeps the memory alive for us.
    l->segment_.release_fd();
    l->sock_ = std::move(sock_);
    l->peer_event_ = std::move(peer_event_);
    l->max_msg_size_ = max_msg;
    l->id_ = id;
    l->peer_pid_ = hello.pid;
    out = std::move(l);
    return DOCA_SUCCESS;
}

doca_error_t listener::open(const endpoint_info &info, std::unique_ptr<listener> &out)
{
    std::unique_ptr<listener> l(new listener());
    doca_error_t rc = listen_at(info.socket_path, l->sock_);
    if (rc != DOCA_SUCCESS)
        return rc;
    l->reserve_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    l->info_ = info;
    try {
        write_endpoint_info(info);
    } catch (const std::system_error &e) {
        SC_LOG_ERR("cannot publish endpoint %s: %s", info.socket_path.c_str(), e.what());
        ::unlink(info.socket_path.c_str());
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    out = std::move(l);
    return DOCA_SUCCESS;
}

size_t listener::handles(watch_handle (&out)[k_max_handles]) const noexcept
{
    return watch_readable(out, sock_.get());
}

listener::~listener()
{
    if (sock_)
        remove_endpoint(info_);
}

doca_error_t listener::accept(std::unique_ptr<transport::pending> &out)
{
    if (!reserve_) // spent on the last refusal: take it back while a descriptor is free
        reserve_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    unique_fd s;
    doca_error_t rc = accept_from(sock_.get(), s);
    bool refuse = false;
    if (rc == DOCA_ERROR_NO_MEMORY && (errno == EMFILE || errno == ENFILE) && reserve_) {
        // Out of descriptors (the kernel says so before it looks at the backlog): a waiting
        // client would stay in the backlog, and the listener readable, for ever. If one waits,
        // free the reserve, accept it on that slot, and have it refused.
        pollfd p{sock_.get(), POLLIN, 0};
        if (::poll(&p, 1, 0) != 1)
            return DOCA_ERROR_AGAIN;
        reserve_.reset();
        rc = accept_from(sock_.get(), s);
        refuse = rc == DOCA_SUCCESS;
    }
    if (rc != DOCA_SUCCESS)
        return rc;
    out = std::make_unique<pending>(std::move(s));
    return refuse ? DOCA_ERROR_FULL : DOCA_SUCCESS;
}

// ---- client side ----

connector::connector(std::string fabric_dir, endpoint_key key, link_params params, int pid)
    : dir_(std::move(fabric_dir)), key_(std::move(key)), params_(params), pid_(pid)
{}

size_t connector::handles(watch_handle (&out)[k_max_handles]) const noexcept
{
    return watch_readable(out, sock_.get());
}

void connector::reset() noexcept
{
    sock_.reset();
    my_event_.reset();
    hello_sent_ = false;
}

connector::result connector::step(std::unique_ptr<transport::link> &out, std::string &why)
{
    if (!sock_) {
        doca_error_t rc = connect_to(endpoint_socket_path(dir_, key_), sock_);
        if (rc == DOCA_ERROR_NOT_FOUND || rc == DOCA_ERROR_AGAIN)
            return result::no_server;
        if (rc != DOCA_SUCCESS) {
            why = std::string("cannot connect to the server's endpoint: ") +
                  softcomch::error_name(rc);
            return result::failed;
        }
    }
    bool hello_failed = false;
    if (!hello_sent_) {
        if (softcomch::event_fd::create(my_event_) != DOCA_SUCCESS) {
            why = std::string("eventfd: ") + std::strerror(errno);
            return result::failed;
        }
        wire::hello_msg m;
        m.client_pid = uint32_t(pid_);
        m.max_msg_size = params_.max_msg_size;
        m.recv_queue_size = params_.recv_queue_size;
        m.bluefield = key_.bluefield;
        m.host_function = key_.host_function;
        m.server_name = key_.name;
        const int fd = my_event_.fd();
        // A failure: the server went away between connect and hello, or refused us at once
        // (its REJECT is then waiting, read below).
        hello_failed = send_wire(sock_.get(), m, &fd, 1) != DOCA_SUCCESS;
        hello_sent_ = true;
    }

    datagram d;
    doca_error_t rc = d.receive(sock_.get());
    // A server that refuses before reading our HELLO (busy, out of descriptors) closes with it
    // unread, which the kernel reports as a reset ahead of the REJECT queued behind it.
    if (rc == DOCA_ERROR_CONNECTION_RESET)
        rc = d.receive(sock_.get());
    if (hello_failed && rc != DOCA_SUCCESS) {
        reset(); // no answer: look for the server again later
        return result::no_server;
    }
    if (rc == DOCA_ERROR_AGAIN)
        return result::in_progress;
    if (rc == DOCA_ERROR_CONNECTION_RESET) {
        // The server stopped before answering (or was a stale endpoint): keep looking.
        reset();
        return result::no_server;
    }
    if (rc != DOCA_SUCCESS) {
        why = std::string("handshake failed: ") + softcomch::error_name(rc);
        reset();
        return result::failed;
    }
    wire::message msg;
    rc = wire::decode_any(d.buf, d.len, &msg);
    if (rc != DOCA_SUCCESS) {
        d.close_all();
        why = std::string("invalid handshake reply from the server: ") + softcomch::error_name(rc);
        reset();
        return result::failed;
    }
    if (auto *rej = std::get_if<wire::reject_msg>(&msg)) {
        d.close_all();
        why = rej->text + " (" + softcomch::error_name(rej->reason) + ")";
        reset();
        // AGAIN: the server is busy with other handshakes, not refusing this client.
        return rej->reason == DOCA_ERROR_AGAIN ? result::busy : result::rejected;
    }
    auto *acc = std::get_if<wire::accept_msg>(&msg);
    if (!acc || d.nfds != 2) {
        d.close_all();
        why = "unexpected handshake reply from the server";
        reset();
        return result::failed;
    }
    std::unique_ptr<link> l(new link());
    unique_fd seg_fd(d.fds[0]);
    l->peer_event_ = softcomch::event_fd(unique_fd(d.fds[1]));
    rc = segment::attach(seg_fd.get(), acc->segment_size, l->segment_);
    if (rc == DOCA_SUCCESS)
        rc = l->segment_.producer(c2s, l->tx_);
    if (rc == DOCA_SUCCESS)
        rc = l->segment_.consumer(s2c, l->rx_);
    if (rc == DOCA_SUCCESS &&
        (l->tx_.capacity() != acc->c2s_capacity || l->rx_.capacity() != acc->s2c_capacity))
        rc = DOCA_ERROR_INVALID_VALUE;
    if (rc != DOCA_SUCCESS) {
        why =
            std::string("cannot map the connection's shared memory: ") + softcomch::error_name(rc);
        reset();
        return result::failed;
    }
    l->segment_.release_fd(); // the mapping stays; the descriptor is not needed any more
    l->me_ = client_side;
    l->sock_ = std::move(sock_);
    l->my_event_ = std::move(my_event_);
    l->max_msg_size_ = acc->max_msg_size;
    l->id_ = acc->connection_id;
    pid_t ppid = 0;
    l->peer_pid_ = peer_pid(l->sock_.get(), &ppid) == DOCA_SUCCESS ? int(ppid) : 0;
    hello_sent_ = false;
    out = std::move(l);
    return result::connected;
}

} // namespace softcomch::transport::shm
