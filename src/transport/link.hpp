// SPDX-License-Identifier: Apache-2.0
//
// A link is the transport half of one Comch connection: set up over the fabric's Unix socket
// (handshake in wire.hpp), then carried by a shared-memory segment holding one ring per
// direction, plus one eventfd per side for wake-ups and the socket itself as liveness channel.
//
//   server: listener::open -> listener::accept -> pending_link::read_hello -> pending_link::accept
//   client: connector::step (repeatedly, from progress) -> link
//
// The data-path calls of link (try_claim/commit/peek/release/arm) make no system call except
// the eventfd write that wakes a peer which armed its notifications.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>
#include <string>

#include "common/event_fd.hpp"
#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/segment.hpp"

namespace softcomch::transport {

// What one side asks for; the handshake negotiates the link from both sides' wishes.
struct link_params {
    uint32_t max_msg_size = 0;    // largest message this side sends and accepts
    uint32_t recv_queue_size = 0; // messages this side can have waiting in its receive ring
};

// Message types carried in ring records. Values are part of the shared-memory protocol.
enum class msg_type : uint16_t {
    data = 1,       // a control-path message of the program
    disconnect = 2, // the sender closes the connection; nothing follows
};

// A received message: payload pointer (into the shared ring record), length, type.
using message_view = shm::record_view;

class link {
public:
    ~link();
    link(const link &) = delete;
    link &operator=(const link &) = delete;

    // ---- data path ----
    // Space for a message of `len` bytes in the peer's receive ring, or nullptr if it is full.
    void *try_claim(uint32_t len) noexcept;
    // Publishes the claimed message; wakes the peer if it armed its notifications.
    void commit(msg_type type, uint32_t len) noexcept;
    // Oldest unread message, or nullptr. Valid until release().
    const message_view *peek() noexcept;
    void release() noexcept;
    // Arms wake-ups for this side; false if a message is already waiting (busy).
    bool arm() noexcept;

    // ---- slow path ----
    int socket_fd() const noexcept { return sock_.get(); }
    int event_fd() const noexcept { return my_event_.fd(); }
    void drain_event() noexcept;
    // Reads the liveness socket without blocking; false once the peer has gone.
    bool peer_alive() noexcept;
    // Writes the peer's eventfd (the peer armed its notifications).
    void wake_peer() noexcept;
    uint32_t max_msg_size() const noexcept { return max_msg_size_; }
    uint64_t id() const noexcept { return id_; }
    int peer_pid() const noexcept { return peer_pid_; }

private:
    friend class pending_link;
    friend class connector;
    link() = default;

    unique_fd sock_;
    softcomch::event_fd my_event_;   // the peer signals it to wake us
    softcomch::event_fd peer_event_; // we signal it to wake the peer
    shm::segment segment_;
    shm::ring_producer tx_;
    shm::ring_consumer rx_;
    uint32_t max_msg_size_ = 0;
    uint64_t id_ = 0;
    int peer_pid_ = 0;
};

// Server side: a handshake in progress on an accepted socket.
class pending_link {
public:
    explicit pending_link(unique_fd sock) : sock_(std::move(sock)) {}
    int fd() const noexcept { return sock_.get(); }

    struct hello_info {
        int pid = 0;
        std::string bluefield;
        std::string host_function;
        std::string name;
        link_params params;
    };
    // DOCA_SUCCESS (hello filled), DOCA_ERROR_AGAIN (nothing yet), other: drop this peer.
    doca_error_t read_hello(hello_info &hello);
    // Refuses the client with a reason it will log.
    void reject(doca_error_t reason, const std::string &text) noexcept;
    // Creates the segment sized from both sides' parameters and sends it to the client.
    doca_error_t accept(const link_params &mine, const hello_info &hello, uint64_t id,
                        std::unique_ptr<link> &out);

private:
    unique_fd sock_;
    softcomch::event_fd peer_event_;
};

// Server side: the listening endpoint of one server.
class listener {
public:
    // Binds the endpoint socket and publishes its info file. DOCA_ERROR_ALREADY_EXIST if a live
    // server already owns the same (BlueField, host function, name).
    static doca_error_t open(const endpoint_info &info, std::unique_ptr<listener> &out);
    ~listener();
    int fd() const noexcept { return sock_.get(); }
    // DOCA_SUCCESS with a new pending link, DOCA_ERROR_AGAIN when none is waiting.
    doca_error_t accept(std::unique_ptr<pending_link> &out);
    const endpoint_info &info() const noexcept { return info_; }

private:
    listener() = default;
    unique_fd sock_;
    endpoint_info info_;
};

// Client side: finds the server and performs the handshake, one non-blocking step at a time.
class connector {
public:
    connector(std::string fabric_dir, endpoint_key key, link_params params, int pid);
    enum class result {
        in_progress, // call step() again later
        no_server,   // nothing listens yet (retry later)
        connected,   // `out` holds the link
        rejected,    // the server refused; `why` says why
        failed,      // transport error; `why` says why
    };
    result step(std::unique_ptr<link> &out, std::string &why);
    int fd() const noexcept { return sock_.get(); }
    void reset() noexcept;

private:
    std::string dir_;
    endpoint_key key_;
    link_params params_;
    int pid_;
    unique_fd sock_;
    softcomch::event_fd my_event_;
    bool hello_sent_ = false;
};

// ---- data path, inline ----

inline void *link::try_claim(uint32_t len) noexcept
{
    return tx_.try_claim(len);
}

inline void link::commit(msg_type type, uint32_t len) noexcept
{
    if (tx_.commit(uint16_t(type), len))
        wake_peer();
}

inline const message_view *link::peek() noexcept
{
    return rx_.peek();
}

inline void link::release() noexcept
{
    rx_.release();
}

inline bool link::arm() noexcept
{
    return rx_.arm();
}

} // namespace softcomch::transport
