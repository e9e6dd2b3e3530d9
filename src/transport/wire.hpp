// SPDX-License-Identifier: Apache-2.0
//
// Versioned control messages of the rendezvous handshake, exchanged over the Unix SEQPACKET
// socket (unix_socket.hpp). One message = one datagram:
//
//   offset  size  field
//   0       4     magic    "SCWM" (0x4d574353 little-endian)
//   4       2     version  wire format version (k_wire_version)
//   6       2     type     msg_type
//   8       4     length   total bytes including this header; must equal the datagram size
//   12      4     flags    zero in v1
//   16      ...   body     fixed layout per type (below), all integers little-endian
//
// Every message type has one fixed size in v1; strings are stored as a length plus a fixed,
// zero-padded byte array. Decoding trusts nothing: the datagram size, magic, version, type,
// length, flags, every length field, every padding byte and every value range are checked
// before anything is returned (this is the fuzz surface: tests/fuzz/fuzz_wire.cpp).
//
// Messages (and the fds that travel with them as SCM_RIGHTS; see fds_for()):
//   HELLO  client -> server  (1 fd: the client's wake-up socket, the end the server signals)
//   ACCEPT server -> client  (2 fds: the segment memfd, then the server's wake-up socket)
//   REJECT server -> client  (no fd): the handshake is refused;
//          either way on an established connection: the sender found a protocol violation
//          (text: what) and closes the connection
// Every memfd is sealed (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) and every wake-up socket is
// one end of an AF_UNIX SOCK_DGRAM pair the sender created; receivers check both and refuse
// anything else (transport/shm/peer_checks.hpp). Pids in messages are checked against the
// kernel's (SO_PEERCRED), never used in its place.
// Extending the set: add a msg_type value, a struct, encode/decode and a row in the type table
// in wire.cpp. Receivers answer an unknown type (decode_header() -> DOCA_ERROR_NOT_SUPPORTED)
// with REJECT and close the connection. A changed layout of an existing type needs a new k_wire_version. Reserved type
// numbers for the fast path: 16.. (MMAP_EXPORT carrying a memfd, ...).
//
// All functions are reentrant and never allocate except for the std::string fields of decoded
// messages (bad_alloc -> DOCA_ERROR_NO_MEMORY). Outputs are written on success only.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

namespace softcomch::transport::wire {

inline constexpr uint32_t k_magic = 0x4d574353u; // "SCWM"
inline constexpr uint16_t k_wire_version = 1;
// The SoftComch connection protocol spoken on top (negotiated by HELLO/ACCEPT).
// 2: rings of variable-size records (shm layout 2), ACCEPT's capacities in bytes.
// 3: wake-up descriptors are datagram sockets instead of eventfds; memfds must be sealed.
inline constexpr uint16_t k_protocol_version = 4;
inline constexpr size_t k_header_size = 16;
// Every message of this version fits; use as the receive buffer size.
inline constexpr size_t k_max_message_size = 512;

// Field limits (bytes, without any terminating NUL).
inline constexpr size_t k_max_id_len = 31;    // BlueField id, host-function PCI string
inline constexpr size_t k_max_name_len = 255; // server name
inline constexpr size_t k_max_text_len = 255; // REJECT text

enum class msg_type : uint16_t {
    hello = 1,
    accept = 2,
    reject = 3,
    // Fast path, on an established connection's socket (either direction):
    consumer_announce = 16, // a consumer was created: its channel, memory and eventfd follow
    consumer_ack = 17,      // the peer mapped the announced consumer (or refused it)
    consumer_expire = 18,   // the consumer is gone; producers must stop using it
};

// The decoded common header.
struct header {
    uint32_t magic = 0;
    uint16_t version = 0;
    uint16_t type = 0;
    uint32_t length = 0;
    uint32_t flags = 0;
};

// HELLO (360 bytes): the client introduces itself and asks for `server_name`.
struct hello_msg {
    uint16_t proto_min = k_protocol_version; // range of protocol versions the client speaks
    uint16_t proto_max = k_protocol_version; //   (1 <= min <= max)
    uint32_t client_pid = 0;                 // > 0
    uint32_t max_msg_size = 0;               // client's max message size, > 0
    uint32_t recv_queue_size = 0;            // client's receive queue size, > 0
    std::string bluefield;                   // 1..31 printable ASCII bytes, e.g. "bf0"
    std::string host_function;               // 1..31 printable ASCII, e.g. "0000:b1:00.0"
    std::string server_name;                 // 1..255 bytes, no NUL
};

// ACCEPT (64 bytes): the server's answer; the segment memfd, the server's wake-up socket and its
// doorbell page (shm/doorbell.hpp) travel with it.
struct accept_msg {
    uint16_t proto_version = k_protocol_version; // chosen version, >= 1
    uint32_t max_msg_size = 0;                   // negotiated, > 0
    uint64_t connection_id = 0;                  // server-chosen, unique per server
    uint32_t c2s_capacity = 0;                   // ring client->server: data bytes, power of two,
                                                 //   >= 2 * max_record
    uint32_t s2c_capacity = 0;                   // ring server->client: likewise
    uint32_t c2s_limit = 0;                      // messages in flight client->server, >= 1
    uint32_t s2c_limit = 0;                      // messages in flight server->client, >= 1
    uint32_t max_record = 0;     // largest record, multiple of 64, >= 16 + max_msg_size
    uint64_t segment_size = 0;   // bytes of the memfd; multiple of 4096, > 0
    uint32_t bell = 0xffffffffu; // the client's bit of the server's doorbell (the third
                                 //   descriptor), < 4096, or 0xffffffff: none
};

// REJECT (280 bytes): why the server refused.
struct reject_msg {
    doca_error_t reason = DOCA_ERROR_UNKNOWN; // a DOCA error code, DOCA_ERROR_UNKNOWN (1) ..
                                              // DOCA_ERROR_SKIPPED (30); never DOCA_SUCCESS
    std::string text;                         // 0..255 bytes, no NUL
};

// CONSUMER_ANNOUNCE: fds = [channel memfd, consumer wake-up socket] plus [memory memfd] when
// the memory is shared. The memory fields are shm::memory_desc (shared_memory.hpp), flattened.
struct consumer_announce_msg {
    uint32_t consumer_id = 0;  // > 0, unique among this side's consumers on the connection
    uint32_t imm_data_len = 0; // the consumer's immediate-data length, <= 32
    uint64_t channel_size = 0; // bytes of the channel memfd, > 0
    uint32_t mechanism = 0;    // 1 shared (memfd follows), 2 process_vm_writev
    uint32_t pid = 0;          // the consumer's pid (its own namespace's view), > 0
    uint64_t addr = 0;         // registered range in the consumer's address space
    uint64_t len = 0;          //   (producers write only inside it), len > 0
    uint64_t map_base = 0;     // shared: consumer address of the first shared byte
    uint64_t map_size = 0;     // shared: bytes to map; [addr, addr+len) lies inside
    uint64_t file_offset = 0;  // shared: offset of map_base in the memfd
};

// CONSUMER_ACK: the producer side attached (status 0) or refused (a DOCA error code).
struct consumer_ack_msg {
    uint32_t consumer_id = 0;
    uint32_t status = 0;
};

// CONSUMER_EXPIRE: the consumer stopped or was destroyed.
struct consumer_expire_msg {
    uint32_t consumer_id = 0;
};

using message = std::variant<hello_msg, accept_msg, reject_msg, consumer_announce_msg,
                             consumer_ack_msg, consumer_expire_msg>;

// Size of a message of `type` in this version, 0 if the type is unknown.
size_t message_size(msg_type type) noexcept;
// Number of fds that travel with a message of `type` (SCM_RIGHTS), 0 if unknown.
size_t fds_for(msg_type type) noexcept;
// "HELLO", "ACCEPT", "REJECT" or "UNKNOWN".
const char *type_name(msg_type type) noexcept;

// Encoders: write the message into `buf` (`cap` bytes) and its size into `*len`.
// DOCA_ERROR_INVALID_VALUE when a field breaks the rules above (nothing is written);
// DOCA_ERROR_TOO_BIG when `cap` is too small.
doca_error_t encode(const hello_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;
doca_error_t encode(const accept_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;
doca_error_t encode(const reject_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;
doca_error_t encode(const consumer_announce_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;
doca_error_t encode(const consumer_ack_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;
doca_error_t encode(const consumer_expire_msg &m, uint8_t *buf, size_t cap, size_t *len) noexcept;

// Validates the header of the datagram `buf` (`len` bytes: the whole datagram).
// DOCA_ERROR_INVALID_VALUE: too short, bad magic, flags, or length != len, or the length does not
// match the type's size. DOCA_ERROR_UNSUPPORTED_VERSION: another wire version.
// DOCA_ERROR_NOT_SUPPORTED: well-formed header of an unknown type (*out is filled in that case
// too, so the receiver can log the type and answer with REJECT).
doca_error_t decode_header(const uint8_t *buf, size_t len, header *out) noexcept;

// Full decoders: header + body. DOCA_ERROR_INVALID_VALUE also when the datagram is of another
// type, or any body field breaks the rules; DOCA_ERROR_NO_MEMORY if a string cannot be allocated.
doca_error_t decode(const uint8_t *buf, size_t len, hello_msg *out) noexcept;
doca_error_t decode(const uint8_t *buf, size_t len, accept_msg *out) noexcept;
doca_error_t decode(const uint8_t *buf, size_t len, reject_msg *out) noexcept;
doca_error_t decode(const uint8_t *buf, size_t len, consumer_announce_msg *out) noexcept;
doca_error_t decode(const uint8_t *buf, size_t len, consumer_ack_msg *out) noexcept;
doca_error_t decode(const uint8_t *buf, size_t len, consumer_expire_msg *out) noexcept;
// Decodes whatever known message `buf` holds.
doca_error_t decode_any(const uint8_t *buf, size_t len, message *out) noexcept;

} // namespace softcomch::transport::wire
