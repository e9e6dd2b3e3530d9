// SPDX-License-Identifier: Apache-2.0
//
// The shm transport's connection (transport::link and its set-up, transport.hpp): set up over
// the fabric's Unix socket (handshake in wire.hpp), then carried by a shared-memory segment
// holding one ring per direction, plus one wake-up socket per side (wake.hpp) and the socket
// itself as the slow channel (consumer announce/ack/expire, wire.hpp) and liveness channel.
// Everything the peer hands over is checked first (peer_checks.hpp): its uid and pid come from
// the kernel, its descriptors must be what they claim, its sizes are bounded by this side's
// caps; a violation closes the connection (protocol_violation).
//
//   server: listener::open -> listener::accept -> pending::read_hello -> pending::accept
//   client: connector::step (repeatedly, from progress) -> link
//
// The data-path calls of link (try_claim/commit/peek/release/arm) are inline and make no system
// call except the datagram that wakes a peer which armed its notifications.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"
#include "transport/shm/doorbell.hpp"
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/segment.hpp"
#include "transport/shm/wake.hpp"
#include "transport/transport.hpp"

namespace softcomch::transport::wire {
struct consumer_announce_msg;
}

namespace softcomch::transport::shm {

// A received message: payload pointer (into the shared ring record), length, type.
using message_view = record_view;

// handles() of a pollable that waits for one descriptor, `fd`, to become readable (no handle
// while `fd` is -1).
size_t watch_readable(watch_handle (&out)[k_max_handles], int fd) noexcept;

// Bytes of the peer's consumer memory one connection maps at most (the sum over its announced
// consumers). The mappings are pre-faulted only where the peer's files have pages (and at most
// k_peer_populate_budget each), so this bounds address space, not memory; an announce beyond it
// is refused with DOCA_ERROR_NO_MEMORY.
inline constexpr uint64_t k_peer_memory_budget = uint64_t(64) << 30;

class link final : public transport::link {
public:
    ~link() override;

    // ---- data path (transport::link_data_path) ----
    // Space for a message of `len` bytes in the peer's receive ring, or nullptr if it is full.
    void *try_claim(uint32_t len) noexcept;
    // Publishes the claimed message; wakes the peer if it armed its notifications.
    void commit(msg_type type, uint32_t len) noexcept;
    // Publishes the claimed message; wakes the peer if it is seen armed. True: the link then
    // owes one settle() before this side sleeps or stops (ring_producer::commit_deferred).
    bool commit_deferred(msg_type type, uint32_t len) noexcept;
    // The check commit_deferred() put off: wakes the peer (or rings its bell) if it armed.
    void settle() noexcept;
    // Oldest unread message, or nullptr. Valid until release().
    const message_view *peek() noexcept;
    void release() noexcept;
    // Arms wake-ups for this side; false if a message is already waiting (busy).
    bool arm() noexcept;
    // Server side: parks the link (transport::link::park; doorbell.hpp).
    bool park() noexcept override;
    bool has_message() noexcept override { return rx_.ready(); }

    // ---- slow path ----
    // [0] the socket (readable: a slow-channel message or the hang-up), [1] our eventfd.
    size_t handles(watch_handle (&out)[k_max_handles]) const noexcept override;
    void on_ready(size_t index, uint32_t events) noexcept override;
    unsigned service(link_handler &h) override;
    doca_error_t announce(const transport::consumer_endpoint &c,
                          const transport::memory_export &memory) noexcept override;
    void acknowledge(uint32_t consumer_id, doca_error_t status) noexcept override;
    void expire(uint32_t consumer_id) noexcept override;
    void protocol_violation(const char *what) noexcept override;
    // Reads the liveness socket without blocking; false once the peer has gone.
    bool peer_alive() noexcept;
    // Our side's heartbeat word in the segment, the peer's heartbeat and its armed word.
    peer_activity beat(uint64_t now_ns) noexcept override;
    // The two rings' fill: ours as the producer of the peer's, ours as the consumer of ours.
    queue_depths depths() noexcept override;
    // Faults on demand: shuts the socket down both ways (what the peer and this side see of a
    // process that died); the ring's counts.
    void drop() noexcept override;
    queue_counts receive_counts() noexcept override;
    // Signals the peer's wake-up socket (the peer armed its notifications).
    void wake_peer() noexcept { peer_wake_.signal(); }

private:
    friend class pending;
    friend class connector;
    link();
    // Maps the consumer a CONSUMER_ANNOUNCE describes and hands it (or why not) to `h`; owns
    // fds[0..nfds) from here on. A descriptor, size, count or pid that is not what it claims
    // is a protocol violation.
    void receive_announce(link_handler &h, const wire::consumer_announce_msg &m, int *fds,
                          size_t nfds);
    // What is wrong with the announce before anything is mapped (nullptr: nothing).
    const char *check_announce(const wire::consumer_announce_msg &m, int *fds, size_t nfds) const;
    // The data path found a corrupt record in the receive ring (cold).
    void ring_corrupted() noexcept;
    // Wakes the peer or rings its bell as `armed` (what the producer's check read) asks.
    void answer_arm(uint32_t armed) noexcept;

    // The peer's consumers this side has mapped: bounded in number and bytes (limits_).
    struct announced {
        uint32_t id;
        uint64_t bytes;
    };

    unique_fd sock_;
    wake_listener my_wake_; // the peer signals it to wake us
    wake_target peer_wake_; // we signal it to wake the peer
    peer_identity peer_;    // who the kernel says is at the other end
    link_params limits_;    // this side's caps on what the peer asks for
    std::vector<announced> remote_;
    uint64_t remote_bytes_ = 0;
    segment segment_;
    ring_producer tx_;
    ring_consumer rx_;
    std::shared_ptr<doorbell_owner> bells_; // server side: the listener's page, for bell_
    doorbell_ringer peer_bell_;             // client side: the server's page and our bit
    side me_ = server_side;                 // whose heartbeat word is ours
    uint64_t peer_last_beat_ = 0;           // the peer's heartbeat at the last beat()
};

// Server side: a handshake in progress on an accepted socket.
class pending final : public transport::pending {
public:
    pending(unique_fd sock, peer_identity peer, std::shared_ptr<doorbell_owner> bells)
        : sock_(std::move(sock)), peer_(std::move(peer)), bells_(std::move(bells))
    {}
    int fd() const noexcept { return sock_.get(); }

    size_t handles(watch_handle (&out)[k_max_handles]) const noexcept override;
    void on_ready(size_t, uint32_t) noexcept override {}
    doca_error_t read_hello(hello_info &hello) override;
    void reject(doca_error_t reason, const std::string &text) noexcept override;
    // Reads and drops what the client sent so far (before closing after a REJECT: a socket
    // closed with unread data makes the client's first read a reset instead of the REJECT).
    void discard_input() noexcept;
    // Creates the segment sized from both sides' parameters and sends it to the client.
    doca_error_t accept(const link_params &mine, const hello_info &hello, uint64_t id,
                        std::unique_ptr<transport::link> &out) override;

private:
    // Refuses the client with `text` (also in hello.why) and returns DOCA_ERROR_INVALID_VALUE.
    doca_error_t refuse(hello_info &hello, const char *text) noexcept;

    unique_fd sock_;
    peer_identity peer_;
    wake_target peer_wake_;
    std::shared_ptr<doorbell_owner> bells_;
};

// Server side: the listening endpoint of one server.
class listener final : public transport::listener {
public:
    // Binds the endpoint socket and publishes its info file. DOCA_ERROR_ALREADY_EXIST if a live
    // server already owns the same (BlueField, host function, name).
    static doca_error_t open(const endpoint_info &info, std::unique_ptr<listener> &out);
    ~listener() override;
    int fd() const noexcept { return sock_.get(); }
    size_t handles(watch_handle (&out)[k_max_handles]) const noexcept override;
    void on_ready(size_t, uint32_t) noexcept override {}
    // DOCA_SUCCESS with a new pending link, DOCA_ERROR_AGAIN when none is waiting. A client of
    // another uid (peer_uid_allowed) is refused here, with a REJECT and a log line.
    doca_error_t accept(std::unique_ptr<transport::pending> &out) override;
    void take_bells(void (*f)(void *arg, uint32_t bell), void *arg) noexcept override
    {
        bells_->take([&](uint32_t b) { f(arg, b); });
    }
    const endpoint_info &info() const noexcept { return info_; }

private:
    listener() = default;
    unique_fd sock_;
    // Opened on /dev/null and closed to accept one client when the process is out of
    // descriptors, so that it can be refused instead of left waiting (accept()).
    unique_fd reserve_;
    endpoint_info info_;
    std::shared_ptr<doorbell_owner> bells_; // the page every client of this server rings
};

// Client side: finds the server and performs the handshake, one non-blocking step at a time.
class connector final : public transport::connector {
public:
    connector(std::string fabric_dir, endpoint_key key, link_params params, int pid);
    result step(std::unique_ptr<transport::link> &out, std::string &why) override;
    // The socket while one is open.
    size_t handles(watch_handle (&out)[k_max_handles]) const noexcept override;
    void on_ready(size_t, uint32_t) noexcept override {}
    int fd() const noexcept { return sock_.get(); }
    void reset() noexcept;

private:
    std::string dir_;
    endpoint_key key_;
    link_params params_;
    int pid_;
    unique_fd sock_;
    peer_identity server_;  // the kernel's word on who listens there
    wake_listener my_wake_; // we sleep on it; its other end travels in HELLO
    bool hello_sent_ = false;
};

// ---- data path, inline ----

inline void *link::try_claim(uint32_t len) noexcept
{
    return tx_.try_claim(len);
}

inline void link::answer_arm(uint32_t armed) noexcept
{
    // What the peer armed: nothing (it polls this ring), its bell (it parked the ring and polls
    // its doorbell), or a wake-up (it sleeps). Any other value, which only a broken peer
    // writes, wakes it: harmless.
    if (armed == 0) [[likely]]
        return;
    if (armed == k_armed_bell)
        peer_bell_.ring();
    else
        wake_peer();
}

inline void link::commit(msg_type type, uint32_t len) noexcept
{
    answer_arm(tx_.commit(uint16_t(type), len));
}

inline bool link::commit_deferred(msg_type type, uint32_t len) noexcept
{
    const uint32_t armed = tx_.commit_deferred(uint16_t(type), len);
    answer_arm(armed);
    return armed == 0;
}

inline void link::settle() noexcept
{
    answer_arm(tx_.wake_needed());
}

inline const message_view *link::peek() noexcept
{
    const message_view *m = rx_.peek();
    if (m == nullptr && rx_.corrupted() && violation_ == nullptr) [[unlikely]]
        ring_corrupted();
    return m;
}

inline void link::release() noexcept
{
    rx_.release();
}

inline bool link::park() noexcept
{
    if (bell_ == k_no_bell)
        return false;
    if (!rx_.park())
        return false;
    if (rx_.corrupted() && violation_ == nullptr) [[unlikely]] {
        ring_corrupted();
        return false;
    }
    return true;
}

inline bool link::arm() noexcept
{
    if (!rx_.arm())
        return false;
    if (rx_.corrupted() && violation_ == nullptr) [[unlikely]] {
        ring_corrupted(); // the check before sleeping found the corrupt record
        return false;
    }
    return true;
}

} // namespace softcomch::transport::shm
