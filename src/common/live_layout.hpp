// SPDX-License-Identifier: Apache-2.0
//
// The live-figures file (docs/shm_layout.md, section 11): how a process shows `softcomch top`
// its Comch servers, clients and connections, and its DOCA engine contexts (DMA, compress, SHA,
// mmap advise) and the memory it exported to or imported from other processes. Each process that starts a Comch context keeps one
// such file per fabric, `<fabric dir>/stats/<pid>.stats`, a regular file it maps MAP_SHARED and
// writes with plain relaxed atomic stores: counters on the data path (no system call, no lock,
// one cache line per connection written by its owner only), everything else on the slow path
// (claim at start or connect, the engine's tick, release at close or destroy). Readers map it
// read-only and trust nothing in it.
//
// The writer is src/transport/live_publisher.* (the file and its slots) with the Comch glue in
// src/comch/live_stats.* (what goes into a slot); the reader is src/introspect/live.*. Both sides
// include this header, which holds standard types only.
//
// Layout version 2 (bump k_live_version on any change of a byte's meaning or place):
//   [0, 256)                          file_header
//   [256, 256 + 128 * 256)            context_slot x k_live_context_slots
//   [33024, 33024 + 2048 * 128)       connection_slot x k_live_connection_slots
//   [295168, 295168 + 256 * 128)      resource_slot x k_live_resource_slots
// Every slot has a `gen` word: even while free, odd while it describes a live object. Every
// field of a slot is an atomic word. The writer fills a free slot with release stores, then makes
// `gen` odd (release); it releases the slot by making `gen` even again (release). A reader loads
// `gen`, then every field it copies, with acquire loads, then `gen` again, and keeps the copy only
// when both loads of `gen` gave the same odd value: a reader that loaded a word of a later claim
// loads that claim's `gen` too. (No fences: ThreadSanitizer builds do not take them.)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace softcomch::live {

// "SCLV" in little-endian byte order.
inline constexpr uint32_t k_live_magic = 0x564C4353u;
inline constexpr uint32_t k_live_version = 2;
inline constexpr uint32_t k_live_header_size = 256;
inline constexpr uint32_t k_live_context_slot_size = 256;
inline constexpr uint32_t k_live_connection_slot_size = 128;
inline constexpr uint32_t k_live_context_slots = 128;
inline constexpr uint32_t k_live_connection_slots = 2048;
inline constexpr uint32_t k_live_resource_slot_size = 128;
inline constexpr uint32_t k_live_resource_slots = 256;
inline constexpr uint64_t k_live_context_offset = k_live_header_size;
inline constexpr uint64_t k_live_connection_offset =
    k_live_context_offset + uint64_t(k_live_context_slots) * k_live_context_slot_size;
inline constexpr uint64_t k_live_resource_offset =
    k_live_connection_offset + uint64_t(k_live_connection_slots) * k_live_connection_slot_size;
inline constexpr uint64_t k_live_file_size =
    k_live_resource_offset + uint64_t(k_live_resource_slots) * k_live_resource_slot_size;
static_assert(k_live_connection_offset == 33024 && k_live_connection_offset % 64 == 0);
static_assert(k_live_resource_offset == 295168 && k_live_resource_offset % 64 == 0);
static_assert(k_live_file_size == 327936);

// The file's place in a fabric directory: <fabric dir>/<k_live_dir>/<pid><k_live_suffix>, written
// as <pid><k_live_suffix><k_live_tmp_suffix> first and renamed into place once complete.
inline constexpr std::string_view k_live_dir = "stats";
inline constexpr std::string_view k_live_suffix = ".stats";
inline constexpr std::string_view k_live_tmp_suffix = ".tmp";

// context_slot::kind
inline constexpr uint32_t k_kind_server = 1;
inline constexpr uint32_t k_kind_client = 2;
// connection_slot::state (a closed connection gives its slot back)
inline constexpr uint32_t k_conn_open = 1;
inline constexpr uint32_t k_conn_closing = 2;
// connection_slot::flags
inline constexpr uint32_t k_flag_peer_stalled = 1u << 0; // alive, not progressing (reported)
inline constexpr uint32_t k_flag_peer_asleep = 1u << 1;  // waits for a wake-up (notifications)
inline constexpr uint32_t k_flag_peer_gone = 1u << 2;    // closed or died; the ring drains
// resource_slot::kind
inline constexpr uint32_t k_res_engine = 1; // a DOCA engine context (DMA, compress, SHA, ...)
inline constexpr uint32_t k_res_export = 2; // memory or a sync event this process exported
inline constexpr uint32_t k_res_import = 3; // another process's, imported by this one

static_assert(std::atomic<uint64_t>::is_always_lock_free, "live words must be address-free");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "live words must be address-free");
static_assert(sizeof(std::atomic<uint64_t>) == 8 && sizeof(std::atomic<uint32_t>) == 4);

// At offset 0. Written once by its creator before the file gets its name; `version` last.
struct file_header {
    uint32_t magic;                // k_live_magic
    std::atomic<uint32_t> version; // k_live_version, stored last (release)
    uint32_t header_size;          // k_live_header_size
    uint32_t context_slot_size;    // k_live_context_slot_size
    uint32_t connection_slot_size; // k_live_connection_slot_size
    uint32_t context_slots;        // k_live_context_slots
    uint32_t connection_slots;     // k_live_connection_slots
    int32_t pid;                   // the writer (also the file's name)
    uint64_t start_time;           // its /proc/<pid>/stat start time (clock ticks since boot)
    uint64_t created_unix_ns;      // CLOCK_REALTIME when the file was made
    std::atomic<uint32_t> contexts_unpublished;    // contexts that found no free slot
    std::atomic<uint32_t> connections_unpublished; // connections that found no free slot
    uint64_t context_offset;                       // k_live_context_offset
    uint64_t connection_offset;                    // k_live_connection_offset
    char fabric[72];                               // NUL-terminated fabric name
    char comm[16];                                 // /proc/self/comm, NUL-terminated
    char cmdline[72];            // /proc/self/cmdline, arguments joined by spaces, truncated
    uint64_t resource_offset;    // k_live_resource_offset
    uint32_t resource_slot_size; // k_live_resource_slot_size
    uint32_t resource_slots;     // k_live_resource_slots
    std::atomic<uint32_t> resources_unpublished; // engines and memory that found no free slot
    uint32_t reserved;                           // zero
};
static_assert(sizeof(file_header) == k_live_header_size);
static_assert(offsetof(file_header, magic) == 0);
static_assert(offsetof(file_header, version) == 4);
static_assert(offsetof(file_header, header_size) == 8);
static_assert(offsetof(file_header, context_slot_size) == 12);
static_assert(offsetof(file_header, connection_slot_size) == 16);
static_assert(offsetof(file_header, context_slots) == 20);
static_assert(offsetof(file_header, connection_slots) == 24);
static_assert(offsetof(file_header, pid) == 28);
static_assert(offsetof(file_header, start_time) == 32);
static_assert(offsetof(file_header, created_unix_ns) == 40);
static_assert(offsetof(file_header, contexts_unpublished) == 48);
static_assert(offsetof(file_header, connections_unpublished) == 52);
static_assert(offsetof(file_header, context_offset) == 56);
static_assert(offsetof(file_header, connection_offset) == 64);
static_assert(offsetof(file_header, fabric) == 72);
static_assert(offsetof(file_header, comm) == 144);
static_assert(offsetof(file_header, cmdline) == 160);
static_assert(offsetof(file_header, resource_offset) == 232);
static_assert(offsetof(file_header, resource_slot_size) == 240);
static_assert(offsetof(file_header, resource_slots) == 244);
static_assert(offsetof(file_header, resources_unpublished) == 248);

// A NUL-terminated text of at most N - 1 bytes in a slot, held in 8-byte words so that both
// sides access it atomically like every other slot field (section 11.6 of docs/shm_layout.md):
// byte i of the text is byte i of the field in memory.
template <size_t N> struct text_field {
    static_assert(N % 8 == 0);
    std::atomic<uint64_t> words[N / 8];
};

// One Comch server or client. Written by the thread that starts, stops and progresses it.
struct context_slot {
    std::atomic<uint32_t> gen;             // odd: in use (see the top of this file)
    std::atomic<uint32_t> id;              // the process's number for the context: 1, 2, ...
    std::atomic<uint32_t> kind;            // k_kind_server or k_kind_client
    std::atomic<uint32_t> state;           // doca_ctx_states: 0 IDLE .. 3 STOPPING
    std::atomic<uint32_t> max_msg_size;    // as configured (a connection's may be smaller)
    std::atomic<uint32_t> recv_queue_size; // as configured
    std::atomic<uint32_t> connections;     // published connections (open or closing)
    std::atomic<uint32_t> name_len;        // the name's full length (name may be truncated)
    std::atomic<uint64_t> last_tick_ns;    // CLOCK_MONOTONIC of its last slow-path tick
    std::atomic<uint64_t> claimed_unix_ns; // CLOCK_REALTIME of the claim (first start)
    text_field<16> bluefield;              // topology id of the BlueField, "bf0"
    text_field<16> device;                 // its device's PCI address, "0000:03:00.0"
    text_field<16> host_function;          // server: its representor's host function; client:
                                           // its own device
    text_field<32> representor;            // server: the representor's name, "pf0hpf"
    text_field<128> name;                  // the server name, NUL-terminated, maybe truncated
};
static_assert(sizeof(context_slot) == k_live_context_slot_size);
static_assert(offsetof(context_slot, gen) == 0);
static_assert(offsetof(context_slot, id) == 4);
static_assert(offsetof(context_slot, kind) == 8);
static_assert(offsetof(context_slot, state) == 12);
static_assert(offsetof(context_slot, max_msg_size) == 16);
static_assert(offsetof(context_slot, recv_queue_size) == 20);
static_assert(offsetof(context_slot, connections) == 24);
static_assert(offsetof(context_slot, name_len) == 28);
static_assert(offsetof(context_slot, last_tick_ns) == 32);
static_assert(offsetof(context_slot, claimed_unix_ns) == 40);
static_assert(offsetof(context_slot, bluefield) == 48);
static_assert(offsetof(context_slot, device) == 64);
static_assert(offsetof(context_slot, host_function) == 80);
static_assert(offsetof(context_slot, representor) == 96);
static_assert(offsetof(context_slot, name) == 128);

// The first line of a connection slot: the data path's counters, one relaxed store each per
// message (their owner's thread only; no reader writes). The values are those
// doca_comch_connection_get_counter reports live.
struct connection_counters {
    std::atomic<uint64_t> sent_messages;
    std::atomic<uint64_t> sent_bytes;
    std::atomic<uint64_t> recv_messages;
    std::atomic<uint64_t> recv_bytes;
    uint8_t reserved[32]; // zero
};
static_assert(sizeof(connection_counters) == 64);
static_assert(offsetof(connection_counters, sent_messages) == 0);
static_assert(offsetof(connection_counters, sent_bytes) == 8);
static_assert(offsetof(connection_counters, recv_messages) == 16);
static_assert(offsetof(connection_counters, recv_bytes) == 24);

// One connection, seen from the process that holds this end. Line 0: the counters; line 1: the
// claim and the figures the engine's tick publishes (about every 10 ms of progress).
struct connection_slot {
    connection_counters counters;
    std::atomic<uint32_t> gen;             // odd: in use
    std::atomic<uint32_t> context;         // index of its context's slot
    std::atomic<uint64_t> connection_id;   // the server's number for it (same at both ends)
    std::atomic<int32_t> peer_pid;         // the kernel's word on the other end (SO_PEERCRED)
    std::atomic<uint32_t> state;           // k_conn_open or k_conn_closing
    std::atomic<uint32_t> flags;           // k_flag_*
    std::atomic<uint32_t> send_queued;     // sends waiting for room in the peer's ring
    std::atomic<uint32_t> send_ring;       // messages in the peer's receive ring, not yet taken
    std::atomic<uint32_t> recv_ring;       // messages in our receive ring, not yet delivered
    std::atomic<uint32_t> send_ring_limit; // the peer's receive queue (messages)
    std::atomic<uint32_t> recv_ring_limit; // ours
    std::atomic<uint32_t> consumers;       // this side's consumers on the connection
    std::atomic<uint32_t> producers;       // this side's producers on the connection
    std::atomic<uint32_t> peer_silent_ms;  // stalled: how long the peer has not progressed
    std::atomic<uint32_t> max_msg_size;    // negotiated
};
static_assert(sizeof(connection_slot) == k_live_connection_slot_size);
static_assert(offsetof(connection_slot, counters) == 0);
static_assert(offsetof(connection_slot, gen) == 64);
static_assert(offsetof(connection_slot, context) == 68);
static_assert(offsetof(connection_slot, connection_id) == 72);
static_assert(offsetof(connection_slot, peer_pid) == 80);
static_assert(offsetof(connection_slot, state) == 84);
static_assert(offsetof(connection_slot, flags) == 88);
static_assert(offsetof(connection_slot, send_queued) == 92);
static_assert(offsetof(connection_slot, send_ring) == 96);
static_assert(offsetof(connection_slot, recv_ring) == 100);
static_assert(offsetof(connection_slot, send_ring_limit) == 104);
static_assert(offsetof(connection_slot, recv_ring_limit) == 108);
static_assert(offsetof(connection_slot, consumers) == 112);
static_assert(offsetof(connection_slot, producers) == 116);
static_assert(offsetof(connection_slot, peer_silent_ms) == 120);
static_assert(offsetof(connection_slot, max_msg_size) == 124);

// What an engine context counts (the first line of its resource slot; a private instance while it
// has no slot). Written by the thread that submits and progresses it, relaxed stores.
struct engine_words {
    std::atomic<uint64_t> tasks_done;   // completed successfully
    std::atomic<uint64_t> tasks_failed; // completed with an error (a flush counts: SHUTDOWN)
    std::atomic<uint64_t> bytes;        // source bytes of the successful tasks
    std::atomic<uint32_t> in_flight;    // submitted, not completed yet
    std::atomic<uint32_t> state;        // doca_ctx_states: 0 IDLE .. 3 STOPPING
};
static_assert(sizeof(engine_words) == 32);

// One DOCA engine context, export or import (kind). Line 0 is the owner's running figures.
//   engine  words: its counters; name: "dma", "compress", "sha", "mmap_advise"; device: its
//           device's PCI address
//   export  name: "mmap" or "sync_event"; device: the exporting function; addr, len: the range
//           (a sync event: its counter, 8 bytes); access: DOCA_ACCESS_FLAG_* granted
//   import  as an export, seen from the importer: peer says who exported it as its transport
//           names it ("pid 1234"), peer_function the function it exported for; words.bytes
//           counts the bytes moved to and from it (DMA)
struct resource_slot {
    engine_words words;           // 0
    std::atomic<uint32_t> gen;    // 32: odd: in use
    std::atomic<uint32_t> kind;   // 36: k_res_*
    std::atomic<uint32_t> id;     // 40: the process's number for it (1, 2, ...)
    std::atomic<uint32_t> access; // 44: export, import: DOCA_ACCESS_FLAG_*
    std::atomic<uint64_t> addr;   // 48: export, import: the exporter's address
    std::atomic<uint64_t> len;    // 56
    text_field<16> name;          // 64
    text_field<16> device;        // 80
    text_field<16> peer;          // 96: import
    text_field<16> peer_function; // 112: import
};
static_assert(sizeof(resource_slot) == k_live_resource_slot_size);
static_assert(offsetof(resource_slot, words) == 0);
static_assert(offsetof(resource_slot, gen) == 32);
static_assert(offsetof(resource_slot, kind) == 36);
static_assert(offsetof(resource_slot, id) == 40);
static_assert(offsetof(resource_slot, access) == 44);
static_assert(offsetof(resource_slot, addr) == 48);
static_assert(offsetof(resource_slot, len) == 56);
static_assert(offsetof(resource_slot, name) == 64);
static_assert(offsetof(resource_slot, device) == 80);
static_assert(offsetof(resource_slot, peer) == 96);
static_assert(offsetof(resource_slot, peer_function) == 112);

// The slots of a mapped file (its base address, k_live_file_size bytes).
inline context_slot *context_at(void *base, uint32_t i) noexcept
{
    return reinterpret_cast<context_slot *>(static_cast<uint8_t *>(base) + k_live_context_offset +
                                            uint64_t(i) * k_live_context_slot_size);
}
inline connection_slot *connection_at(void *base, uint32_t i) noexcept
{
    return reinterpret_cast<connection_slot *>(static_cast<uint8_t *>(base) +
                                               k_live_connection_offset +
                                               uint64_t(i) * k_live_connection_slot_size);
}

inline resource_slot *resource_at(void *base, uint32_t i) noexcept
{
    return reinterpret_cast<resource_slot *>(static_cast<uint8_t *>(base) + k_live_resource_offset +
                                             uint64_t(i) * k_live_resource_slot_size);
}

// Copies `s` into a fixed field, NUL-terminated, truncated to fit.
template <size_t N> inline void put_text(char (&field)[N], std::string_view s) noexcept
{
    const size_t n = s.size() < N - 1 ? s.size() : N - 1;
    std::memcpy(field, s.data(), n);
    std::memset(field + n, 0, N - n);
}
// The text of a fixed field, up to its first NUL (all of it when there is none). Readers trust
// nothing in the file (any process of the uid may write it): control characters (C0 and DEL) come
// back as '?', so that no text of a stats file drives the terminal `softcomch top` prints to.
template <size_t N> inline std::string get_text(const char (&field)[N])
{
    size_t n = 0;
    while (n < N && field[n] != '\0')
        ++n;
    std::string text(field, n);
    for (char &c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return text;
}

// A slot's text: written with release stores at claim, read with acquire loads.
template <size_t N> inline void put_text(text_field<N> &field, std::string_view s) noexcept
{
    char bytes[N];
    put_text(bytes, s);
    for (size_t i = 0; i < N / 8; ++i) {
        uint64_t w;
        std::memcpy(&w, bytes + 8 * i, 8);
        field.words[i].store(w, std::memory_order_release);
    }
}
template <size_t N> inline std::string get_text(const text_field<N> &field)
{
    char bytes[N];
    for (size_t i = 0; i < N / 8; ++i) {
        const uint64_t w = field.words[i].load(std::memory_order_acquire);
        std::memcpy(bytes + 8 * i, &w, 8);
    }
    return get_text(bytes);
}

} // namespace softcomch::live
