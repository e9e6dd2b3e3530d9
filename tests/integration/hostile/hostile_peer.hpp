// SPDX-License-Identifier: Apache-2.0
//
// A hostile peer for the integration tests (tests/integration/test_hostile_*.cpp): it speaks
// the wire (src/transport/wire.hpp, with the transport's own encoders) and the ring and channel
// layouts (src/transport/shm) directly, so it can lie in every field, hand over any descriptor
// and write any byte of the shared memory it holds. Victims are real servers and clients over
// the public API in child processes (victim.hpp); the attacks and what each must cost the victim
// are listed in docs/failure-model.md, "Peer input".
//
// Internals on purpose: this is the one test code that includes src/transport.
#pragma once

#include "transport/fabric.hpp"
#include "transport/shm/doorbell.hpp"
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/segment.hpp"
#include "transport/wire.hpp"

#include "common/unique_fd.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace hostile {

using softcomch::unique_fd;
namespace wire = softcomch::transport::wire;
namespace shm = softcomch::transport::shm;
using namespace std::chrono_literals;

// One datagram received: its bytes, its descriptors and what it decodes to.
struct datagram {
    std::vector<uint8_t> bytes;
    std::vector<unique_fd> fds;
    doca_error_t decode_rc = DOCA_ERROR_UNKNOWN;
    wire::message msg;
};

// A connected SEQPACKET socket to (or from) the victim.
class channel {
public:
    unique_fd sock;

    // Encodes `m` with the transport's encoder and sends it with `fds` attached.
    template <class Msg> bool send(const Msg &m, std::initializer_list<int> fds = {})
    {
        uint8_t buf[wire::k_max_message_size];
        size_t len = 0;
        if (wire::encode(m, buf, sizeof buf, &len) != DOCA_SUCCESS)
            return false;
        return send_bytes(buf, len, fds);
    }
    bool send_bytes(const void *buf, size_t len, std::initializer_list<int> fds = {});
    // Waits up to `timeout` for one datagram. False on timeout or hang-up.
    bool recv(datagram &d, std::chrono::milliseconds timeout = 3000ms);
    // Waits for the victim to hang up. Datagrams before that are collected; the text of the
    // last REJECT among them goes to `*reject` (empty when none).
    bool wait_hangup(std::chrono::milliseconds timeout = 3000ms, std::string *reject = nullptr);
};

// A wake-up socket pair made as an honest peer makes it: `send_end` goes to the victim.
struct wake_pair {
    unique_fd mine, send_end;
    static wake_pair make();
};

// A sealed (or, for attacks, unsealed) memfd of `size` bytes.
unique_fd make_memfd(uint64_t size, bool sealed = true);

// The victim's server endpoint once it is published (waits up to `timeout`).
bool find_endpoint(const std::string &name, softcomch::transport::endpoint_info &out,
                   std::chrono::milliseconds timeout = 5000ms);

// A client that connects to a victim server.
class client : public channel {
public:
    bool connect(const softcomch::transport::endpoint_info &ep);
    // A HELLO as the real client writes it, for this process.
    wire::hello_msg hello(uint32_t queue = 16, uint32_t max_msg = 4080) const;
    // The whole honest handshake: HELLO with a wake pair, ACCEPT, segment attached, rings bound.
    bool handshake(const softcomch::transport::endpoint_info &ep, uint32_t queue = 16);

    softcomch::transport::endpoint_info endpoint;
    wake_pair wake;
    wire::accept_msg accepted{};
    shm::segment seg;
    shm::ring_producer tx; // client -> server
    shm::ring_consumer rx; // server -> client
    unique_fd peer_wake;   // the victim's wake-up socket
    unique_fd bell_page;   // the victim server's doorbell page (shm/doorbell.hpp)
};

// A server that a victim client connects to (it listens at the endpoint the client looks for).
class server : public channel {
public:
    // Listens at the socket of (bluefield, host function, name) in the current fabric.
    bool listen(const std::string &name, const std::string &host_function = "0000:b1:00.0",
                const std::string &bluefield = "bf0");
    // Accepts the victim's connection and reads its HELLO (its wake-up socket in `hello_fds`).
    bool accept_hello(std::chrono::milliseconds timeout = 5000ms);
    // Answers like the real server: a sealed segment sized from both HELLOs, its wake pair.
    bool accept_honestly();
    // The ACCEPT an honest server would send for the HELLO (segment not created).
    wire::accept_msg honest_accept() const;
    ~server();

    unique_fd listener;
    std::shared_ptr<shm::doorbell_owner> bells; // the page an honest server sends with ACCEPT
    std::string socket_path;
    wire::hello_msg hello{};
    std::vector<unique_fd> hello_fds;
    wake_pair wake;
    shm::segment seg;
    shm::ring_producer tx; // server -> client
    shm::ring_consumer rx; // client -> server
};

// A consumer the hostile side announces: a real channel in a sealed memfd (or not), a posted
// buffer, and a wake pair.
struct fake_consumer {
    shm::fast_channel ch;
    shm::fast_consumer q;
    wake_pair wake;
    bool make(uint32_t num_tasks = 4);
    // A CONSUMER_ANNOUNCE for shared memory of `map_size` bytes whose window is
    // [addr, addr + len) at map_base.
    wire::consumer_announce_msg shared(uint32_t id, uint64_t map_base, uint64_t map_size,
                                       uint64_t addr, uint64_t len) const;
    // One for process_vm_writev into `pid` at [addr, addr + len).
    wire::consumer_announce_msg pvw(uint32_t id, uint32_t pid, uint64_t addr, uint64_t len) const;
};

// Writes a record header straight into the data area of `ring_mem` (a ring of the segment) at
// byte position 0, with `len` and `kind` as given, then publishes it: the consumer must find a
// corrupt length or kind there.
void write_raw_record(void *ring_mem, uint32_t len, uint16_t type, uint32_t kind);

// Resident set of `pid` in KiB (VmRSS), 0 if unknown.
size_t rss_kib(pid_t pid);

// Whether the file at `path` contains `needle`, waiting up to `timeout` for it to appear.
bool file_contains(const std::string &path, const std::string &needle,
                   std::chrono::milliseconds timeout = 3000ms);
std::string file_text(const std::string &path);

} // namespace hostile
