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
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/fast_path.hpp"
#include "transport/shm/peer_limits.hpp"
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
        const doca_error_t rc = recv_msg(sock, buf, sizeof buf, &len, fds, &nfds, k_max_msg_fds);
        if (rc != DOCA_ERROR_CONNECTION_RESET)
            return rc;
        // A peer that closed with our data unread makes the first read report ECONNRESET (and
        // clears it); what it sent before closing (its REJECT) is still queued behind it.
        return recv_msg(sock, buf, sizeof buf, &len, fds, &nfds, k_max_msg_fds) == DOCA_SUCCESS
                   ? DOCA_SUCCESS
                   : rc;
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

link::~link()
{
    if (bells_)
        bells_->release(bell_);
}

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
    out[1] = watch_handle{my_wake_.fd(), EPOLLIN};
    return 2;
}

void link::on_ready(size_t index, uint32_t events) noexcept
{
    if (index == 1) {
        (void)my_wake_.drain();
        return;
    }
    slow_pending_ = true;
    if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
        peer_gone_ = true;
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
    // Asleep: it armed the ring we write, so it waits on its wake-up socket for our next message.
    return tx_.consumer_armed() ? peer_activity::asleep : peer_activity::still;
}

transport::link::queue_depths link::depths() noexcept
{
    queue_depths d;
    if (tx_.attached()) {
        d.send_in_flight = tx_.in_flight();
        d.send_limit = tx_.limit();
    }
    if (rx_.attached()) {
        d.recv_waiting = rx_.pending();
        d.recv_limit = rx_.limit();
    }
    return d;
}

void link::protocol_violation(const char *what) noexcept
{
    if (violation_ != nullptr)
        return; // the first one is the reason; nothing is read after it
    violation_ = what;
    peer_gone_ = true;
    rx_.poison(); // nothing more is delivered, however much the peer keeps writing
    // Tell the peer why (REJECT on an established link, wire.hpp), then hang up: it sees the
    // reason, then the end of the connection. Best effort: a peer that does not read loses it.
    wire::reject_msg r;
    r.reason = DOCA_ERROR_INVALID_VALUE;
    r.text = std::string("protocol violation: ") + what;
    (void)send_wire(sock_.get(), r);
    (void)::shutdown(sock_.get(), SHUT_RDWR);
}

void link::drop() noexcept
{
    // Only the socket, which a dying process's kernel closes too: the peer reads its end of file
    // and the hang-up, this side its own shutdown's (both through service(), as any hang-up).
    // The shared segment stays mapped on both sides until each closes the connection.
    (void)::shutdown(sock_.get(), SHUT_RDWR);
}

transport::link::queue_counts link::receive_counts() noexcept
{
    const uint64_t taken = rx_.position();
    return queue_counts{taken, taken + rx_.pending()};
}

void link::ring_corrupted() noexcept
{
    protocol_violation("a corrupt record in the receive ring (length, kind or placement)");
}

// ---- the slow channel: consumer announce / ack / expire ----

unsigned link::service(link_handler &h)
{
    if (!slow_pending_)
        return 0;
    slow_pending_ = false;
    unsigned work = 0;
    while (violation_ == nullptr) {
        datagram d;
        doca_error_t rc = d.receive(sock_.get());
        if (rc == DOCA_ERROR_AGAIN)
            break;
        if (rc != DOCA_SUCCESS) {
            // EOF or reset: the peer process closed its end (exit, crash, or close). A message
            // too long, or whose descriptors did not all arrive (too many, or none left here:
            // EMFILE), cannot be used either: the connection ends with that reason.
            if (rc == DOCA_ERROR_INVALID_VALUE)
                protocol_violation("a message too long, or whose descriptors could not be taken");
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
        const size_t nfds = d.nfds;
        d.close_all();
        if (rc == DOCA_ERROR_NOT_SUPPORTED) {
            protocol_violation("a message of an unknown type");
        } else if (rc != DOCA_SUCCESS) {
            protocol_violation("a message that does not decode");
        } else if (std::holds_alternative<wire::hello_msg>(m) ||
                   std::holds_alternative<wire::accept_msg>(m)) {
            protocol_violation("a handshake message on an established connection");
        } else if (nfds != 0) {
            protocol_violation("descriptors attached to a message that carries none");
        } else if (auto *ack = std::get_if<wire::consumer_ack_msg>(&m)) {
            h.consumer_acknowledged(ack->consumer_id, doca_error_t(ack->status));
        } else if (auto *exp = std::get_if<wire::consumer_expire_msg>(&m)) {
            // The consumer is gone on the peer's side: it no longer counts against the caps.
            for (size_t i = 0; i < remote_.size(); ++i) {
                if (remote_[i].id == exp->consumer_id) {
                    remote_bytes_ -= remote_[i].bytes;
                    remote_.erase(remote_.begin() + long(i));
                    break;
                }
            }
            h.consumer_expired(exp->consumer_id);
        } else if (auto *rej = std::get_if<wire::reject_msg>(&m)) {
            // The peer found a violation on our side and hangs up.
            peer_gone_ = true;
            h.peer_rejected(rej->reason, rej->text);
            break;
        }
    }
    return work;
}

void link::receive_announce(link_handler &h, const wire::consumer_announce_msg &m, int *fds,
                            size_t nfds)
{
    // Take ownership of every descriptor first, so each exits through one path.
    unique_fd owned[k_max_msg_fds];
    for (size_t i = 0; i < nfds; ++i)
        owned[i].reset(fds[i]);
    if (const char *why = check_announce(m, fds, nfds)) {
        protocol_violation(why);
        return;
    }
    const bool shared = m.mechanism == uint32_t(memory_mechanism::shared);
    std::unique_ptr<transport::remote_consumer> r;
    doca_error_t rc = DOCA_SUCCESS;
    const uint64_t bytes = shared ? m.map_size : 0;
    // Peer memory is pre-faulted only where its file has pages: the budget bounds address
    // space (link.hpp).
    if (bytes > k_peer_memory_budget - remote_bytes_)
        rc = DOCA_ERROR_NO_MEMORY;
    wake_target wake;
    if (rc == DOCA_SUCCESS)
        (void)wake_target::adopt(std::move(owned[1]), peer_.pid, wake); // checked above
    if (rc == DOCA_SUCCESS) {
        memory_desc d{};
        copy_memory_fields(d, m);
        d.pid = uint32_t(peer_.pid); // the kernel's, in our namespace
        const unique_fd pidfd = shared ? unique_fd() : peer_pidfd(sock_.get(), peer_.pid);
        rc = remote_consumer::attach(m.consumer_id, m.imm_data_len, owned[0].get(), m.channel_size,
                                     shared ? owned[2].get() : -1, d, std::move(wake), pidfd.get(),
                                     r);
    }
    if (rc == DOCA_SUCCESS) {
        remote_.push_back(announced{m.consumer_id, bytes});
        remote_bytes_ += bytes;
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
    const int fds[3] = {ep.channel().fd(), ep.wake_send_handle(), exp.range.fd.get()};
    const size_t nfds = d.mechanism == uint32_t(memory_mechanism::shared) ? 3 : 2;
    const doca_error_t rc = send_wire(sock_.get(), m, fds, nfds);
    if (rc == DOCA_SUCCESS)
        ep.wake_send_handle_sent(); // one descriptor less per consumer on this side
    return rc;
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

doca_error_t pending::refuse(hello_info &hello, const char *text) noexcept
{
    try {
        hello.why = text;
    } catch (...) {
    }
    reject(DOCA_ERROR_INVALID_VALUE, text);
    return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t pending::read_hello(hello_info &hello)
{
    datagram d;
    doca_error_t rc = d.receive(sock_.get());
    if (rc == DOCA_ERROR_AGAIN || rc == DOCA_ERROR_CONNECTION_RESET)
        return rc;
    if (rc != DOCA_SUCCESS)
        return refuse(hello, "the HELLO is too long or carries too many descriptors");
    wire::hello_msg m;
    rc = wire::decode(d.buf, d.len, &m);
    if (rc != DOCA_SUCCESS || d.nfds != wire::fds_for(wire::msg_type::hello)) {
        d.close_all();
        return refuse(hello, rc != DOCA_SUCCESS
                                 ? "the HELLO does not decode"
                                 : "the HELLO carries the wrong number of descriptors");
    }
    if (m.proto_min > wire::k_protocol_version || m.proto_max < wire::k_protocol_version) {
        d.close_all();
        hello.why = "unsupported protocol version";
        reject(DOCA_ERROR_UNSUPPORTED_VERSION, "unsupported protocol version");
        return DOCA_ERROR_UNSUPPORTED_VERSION;
    }
    // The pid is only ever the kernel's; a HELLO naming another process is a lie.
    if (!claimed_pid_matches(peer_.pid, m.client_pid)) {
        d.close_all();
        return refuse(hello, "the pid in the HELLO is not the connecting process's");
    }
    if (const char *why = wake_target::adopt(unique_fd(d.fds[0]), peer_.pid, peer_wake_))
        return refuse(hello, why);
    hello.pid = int(peer_.pid);
    hello.bluefield = std::move(m.bluefield);
    hello.host_function = std::move(m.host_function);
    hello.name = std::move(m.server_name);
    hello.params.max_msg_size = m.max_msg_size;
    hello.params.recv_queue_size = m.recv_queue_size;
    return DOCA_SUCCESS;
}

void pending::discard_input() noexcept
{
    for (int i = 0; i < 4; ++i) {
        datagram d;
        if (d.receive(sock_.get()) != DOCA_SUCCESS)
            break;
        d.close_all();
    }
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
    // The client's queue sizes the server->client ring: bounded by this side's cap, whatever
    // the HELLO asked (an honest client cannot ask for more: its caps are the same device's).
    const uint32_t queue_cap = cap_or(mine.max_peer_recv_queue_size, k_ring_max_limit);
    uint32_t client_queue = hello.params.recv_queue_size;
    if (client_queue > queue_cap) {
        SC_LOG_WARN("client pid %d asked for a receive queue of %u messages; using the maximum, %u",
                    hello.pid, client_queue, queue_cap);
        client_queue = queue_cap;
    }
    segment_params sp;
    // The server consumes client->server: that ring is sized by the server's receive queue.
    sp.rings[c2s] = ring_layout::params_for(mine.recv_queue_size, max_msg);
    sp.rings[s2c] = ring_layout::params_for(client_queue, max_msg);
    sp.generation = id;

    std::unique_ptr<link> l(new link());
    doca_error_t rc = segment::create(sp, l->segment_);
    if (rc != DOCA_SUCCESS) {
        reject(rc, "the server could not create the shared-memory segment");
        return rc;
    }
    unique_fd wake_end;
    if ((rc = wake_listener::create(l->my_wake_, wake_end)) != DOCA_SUCCESS) {
        reject(rc, "the server could not create its wake-up socket");
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
    // A bit of the server's doorbell (the listener always has one), when one is free; else the
    // link is never parked.
    l->bells_ = bells_;
    l->bell_ = bells_->allocate();
    m.bell = l->bell_;
    const int fds[3] = {l->segment_.fd(), wake_end.get(), bells_->fd()};
    if ((rc = send_wire(sock_.get(), m, fds, 3)) != DOCA_SUCCESS)
        return rc;
    // The client holds its own descriptor now; the mapping keeps the memory alive for us.
    l->segment_.release_fd();
    l->sock_ = std::move(sock_);
    l->peer_wake_ = std::move(peer_wake_);
    l->max_msg_size_ = max_msg;
    l->id_ = id;
    l->peer_pid_ = int(peer_.pid);
    l->peer_ = std::move(peer_);
    l->limits_ = mine;
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
    if (doca_error_t err = doorbell_owner::create(l->bells_); err != DOCA_SUCCESS) {
        SC_LOG_ERR("cannot create the server's doorbell page: %s", softcomch::error_name(err));
        ::unlink(info.socket_path.c_str());
        return err;
    }
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
    for (;;) {
        unique_fd s;
        doca_error_t rc = accept_from(sock_.get(), s);
        if (rc == DOCA_ERROR_NO_MEMORY && (errno == EMFILE || errno == ENFILE) && reserve_) {
            // Out of descriptors (the kernel says so before it looks at the backlog): a waiting
            // client would stay in the backlog, and the listener readable, for ever. If one
            // waits, free the reserve, accept it on that slot, and have it refused (unidentified:
            // the refusal reads nothing from it and needs no descriptor for its process).
            pollfd p{sock_.get(), POLLIN, 0};
            if (::poll(&p, 1, 0) != 1)
                return DOCA_ERROR_AGAIN;
            reserve_.reset();
            if ((rc = accept_from(sock_.get(), s)) != DOCA_SUCCESS)
                return rc;
            out = std::make_unique<pending>(std::move(s), peer_identity{}, bells_);
            return DOCA_ERROR_FULL;
        }
        if (rc != DOCA_SUCCESS)
            return rc;
        peer_identity peer;
        if (identify_peer(s.get(), peer) != DOCA_SUCCESS)
            continue; // no credentials: not a local peer we can talk to
        if (!peer_uid_allowed(peer.uid)) {
            // Only our own uid (or root) may connect; the hardware analogue is that only the
            // PCIe peer reaches a server. Told why, then dropped before a byte is read.
            SC_LOG_WARN("server endpoint %s: refused a client of uid %u (pid %d): not our uid %u",
                        info_.socket_path.c_str(), unsigned(peer.uid), int(peer.pid),
                        unsigned(::geteuid()));
            pending refused(std::move(s), std::move(peer), nullptr);
            refused.reject(DOCA_ERROR_NOT_PERMITTED, "the server runs as another user");
            refused.discard_input(); // so that the client reads the REJECT, not a reset
            continue;
        }
        out = std::make_unique<pending>(std::move(s), std::move(peer), bells_);
        return DOCA_SUCCESS;
    }
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
    server_ = peer_identity();
    my_wake_.reset();
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
        if (identify_peer(sock_.get(), server_) != DOCA_SUCCESS) {
            reset();
            why = "the server's endpoint has no credentials";
            return result::failed;
        }
        if (!peer_uid_allowed(server_.uid)) {
            why = "the server's endpoint belongs to uid " + std::to_string(server_.uid) +
                  ", not ours (" + std::to_string(::geteuid()) + ")";
            reset();
            return result::failed;
        }
    }
    bool hello_failed = false;
    if (!hello_sent_) {
        unique_fd wake_end;
        if (doca_error_t rc = wake_listener::create(my_wake_, wake_end); rc != DOCA_SUCCESS) {
            why = std::string("wake-up socket: ") + softcomch::error_name(rc);
            return result::failed;
        }
        wire::hello_msg m;
        m.client_pid = uint32_t(pid_);
        m.max_msg_size = params_.max_msg_size;
        m.recv_queue_size = params_.recv_queue_size;
        m.bluefield = key_.bluefield;
        m.host_function = key_.host_function;
        m.server_name = key_.name;
        const int fd = wake_end.get();
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
    if (!acc || d.nfds != 3) {
        d.close_all();
        why = "unexpected handshake reply from the server";
        reset();
        return result::failed;
    }
    unique_fd seg_fd(d.fds[0]), wake_fd(d.fds[1]), bell_fd(d.fds[2]);
    const char *bad = check_accept(*acc, params_);
    if (bad == nullptr)
        bad = check_sealed_memfd(seg_fd.get(), nullptr);
    std::unique_ptr<link> l(new link());
    if (bad == nullptr)
        bad = wake_target::adopt(std::move(wake_fd), server_.pid, l->peer_wake_);
    if (bad == nullptr)
        bad = l->peer_bell_.attach(std::move(bell_fd), acc->bell);
    if (bad != nullptr) {
        why = std::string("the server broke the protocol: ") + bad;
        reset();
        return result::failed;
    }
    // The server's memory (its size bounded by check_accept), pre-faulted where the server
    // allocated it (segment::attach).
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
    l->my_wake_ = std::move(my_wake_);
    l->max_msg_size_ = acc->max_msg_size;
    l->id_ = acc->connection_id;
    l->peer_pid_ = int(server_.pid);
    l->peer_ = std::move(server_);
    l->limits_ = params_;
    hello_sent_ = false;
    out = std::move(l);
    return result::connected;
}

} // namespace softcomch::transport::shm
