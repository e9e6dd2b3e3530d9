// SPDX-License-Identifier: Apache-2.0
//
// The introspection API, live figures: every Comch server, client and connection of a fabric,
// and every DOCA engine context, export and import, as the processes that hold them publish it (common/live_layout.hpp, docs/shm_layout.md section
// 11), read from the fabric directory's stats files without asking the processes anything.
// `softcomch top` shows this. Plain values; nothing is kept between calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace softcomch::introspect {

// A process that publishes in the fabric.
struct live_process {
    int pid = 0;
    std::string comm;    // its command name, as it recorded it
    std::string cmdline; // its arguments joined by spaces, truncated to 71 bytes
    // What /proc says now: 'R' running, 'S' sleeping, 'D' in the kernel, 'T' stopped (SIGSTOP),
    // 't' stopped by a debugger, 'Z' a zombie, '?' unreadable.
    char state = '?';
    uint64_t created_unix_ns = 0;         // when it made its file
    uint32_t contexts_unpublished = 0;    // servers and clients that found its file full
    uint32_t connections_unpublished = 0; // connections likewise
    uint32_t resources_unpublished = 0;   // engine contexts, exports and imports likewise
    std::string path;                     // its file
};

// A Comch server or client.
struct live_context {
    int pid = 0;
    uint32_t id = 0;  // the process's number for it (1, 2, ...)
    std::string kind; // "server" or "client"
    std::string name; // the server name (a client's: the one it connects to)
    bool name_truncated = false;
    std::string state; // "IDLE", "STARTING", "RUNNING", "STOPPING"
    std::string bluefield;
    std::string device;        // the context's device, canonical PCI address
    std::string host_function; // server: its representor's host function; client: its device
    std::string representor;   // server: the representor's name; client: empty
    uint32_t max_msg_size = 0;
    uint32_t recv_queue_size = 0;
    uint32_t connections = 0; // open or closing
    // Milliseconds since its last slow-path tick (it ticks about every 10 ms while its program
    // calls doca_pe_progress); nullopt: it never ticked.
    std::optional<uint64_t> since_tick_ms;
};

// One end of a connection, as the process holding it sees it.
struct live_connection {
    int pid = 0;
    uint32_t context_id = 0; // its context (live_context::id of the same pid)
    std::string side;        // "server" or "client": the kind of its context
    std::string name;        // its context's name
    uint64_t id = 0;         // the server's number for the connection, the same at both ends
    int peer_pid = 0;
    std::string state; // "open" or "closing"
    uint64_t sent_messages = 0, sent_bytes = 0;
    uint64_t recv_messages = 0, recv_bytes = 0;
    uint32_t send_queued = 0; // sends waiting for room in the peer's receive queue
    uint32_t send_ring = 0;   // messages in the peer's receive queue, not yet taken
    uint32_t send_ring_limit = 0;
    uint32_t recv_ring = 0; // messages in its own receive queue, not yet delivered
    uint32_t recv_ring_limit = 0;
    uint32_t consumers = 0, producers = 0; // its side's, on this connection
    bool peer_stalled = false;             // the peer is alive but has not progressed for
        // SOFTCOMCH_PEER_STALL_MS (as this side's library judged it)
    bool peer_asleep = false;    // the peer waits for a wake-up (notification mode)
    bool peer_gone = false;      // the peer closed or died; what it sent still drains
    uint32_t peer_silent_ms = 0; // stalled: how long it has not progressed
    uint32_t max_msg_size = 0;
};

// A DOCA engine context (DMA, compress, SHA, mmap advise) and what it did.
struct live_engine {
    int pid = 0;
    uint32_t id = 0;    // the process's number for it
    std::string engine; // "dma", "compress", "sha", "mmap_advise"
    std::string device; // its device's PCI address
    std::string state;  // "IDLE", "STARTING", "RUNNING", "STOPPING"
    uint64_t tasks_done = 0, tasks_failed = 0, bytes = 0;
    uint32_t in_flight = 0;
};

// Memory (or a sync event's counter) exported by one process or imported by another.
struct live_memory {
    int pid = 0;
    uint32_t id = 0;
    std::string role;     // "export" or "import"
    std::string what;     // "mmap" or "sync_event"
    std::string function; // export: the exporting function; import: the importing one
    uint32_t access = 0;  // DOCA_ACCESS_FLAG_*
    uint64_t addr = 0;    // the exporter's address
    uint64_t len = 0;
    std::string peer;          // import: who exported it ("pid 1234")
    std::string peer_function; // import: the function it was exported for
    uint64_t bytes = 0;        // import: bytes moved to and from it
};

// A stats file that could not be read, and why.
struct live_problem {
    std::string path;
    std::string why;
};

struct live_view {
    std::string stats_dir;                    // <fabric dir>/stats
    std::vector<live_process> processes;      // by pid
    std::vector<live_context> contexts;       // by pid, then id
    std::vector<live_connection> connections; // by pid, then context, then id
    std::vector<live_engine> engines;         // by pid, then id
    std::vector<live_memory> memory;          // by pid, then role, then id
    std::vector<live_problem> unreadable;
    // Files of processes that no longer exist (or whose pid now names another process): removed
    // on the way when reading with remove_stale, else only listed.
    std::vector<std::string> stale;
};

// Reads the stats files of the fabric directory `fabric_dir` (a missing directory gives an
// empty view). Files of another layout version, foreign or damaged ones are listed in
// `unreadable` and left alone.
live_view read_live(const std::string &fabric_dir, bool remove_stale = true);

} // namespace softcomch::introspect
