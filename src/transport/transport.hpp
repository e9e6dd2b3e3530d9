// SPDX-License-Identifier: Apache-2.0
//
// The transport boundary (docs/transport_boundary.md): everything Comch (src/comch) asks of a
// transport, as one interface per object. A transport is a folder under src/transport/ that
// implements these classes (shm/: shared memory between the processes of one machine) plus one
// line in registry.hpp; SOFTCOMCH_TRANSPORT selects one at run time (default: the first there).
//
//   server:   transport_ops::listen -> listener::accept -> pending::read_hello -> pending::accept
//   client:   transport_ops::connect -> connector::step (repeatedly, from progress) -> link
//   consumer: transport_ops::export_memory (once per doca_mmap), transport_ops::make_consumer,
//             link::announce ... link::expire
//   producer: transport_ops::make_write_plan; the peer's consumers arrive through link::service
//   DMA:      transport_ops::export_region -> region_export::pack (bytes the program carries
//             itself) -> transport_ops::import_region in another process -> region_import
//   sync event: transport_ops::export_counter -> counter_export::pack -> (bytes)
//             -> transport_ops::import_counter in another process -> counter_import
//
// Comch holds no descriptor and decodes no byte of the peer's: an object that needs the progress
// engine's epoll set is a pollable (opaque handles and a callback), and what the peer sends on a
// link's slow channel reaches comch as calls of a link_handler. Servers are published in the
// fabric (fabric.hpp), the rendezvous every transport shares.
//
// The data path makes no virtual call. link, consumer_endpoint and remote_consumer are abstract
// for the slow path only; their per-message operations (a control-path message; a fast-path
// post, claim, write or completion) are inline functions of each transport's concrete class,
// which Comch reaches through transport::with_concrete() (registry.hpp). The concepts at the end
// of this file say what those operations are.
//
// Objects of one transport only ever meet objects of the same transport (an export is announced
// on a link of the transport that made it), so an implementation may downcast the interfaces it
// is handed to its own classes. Errors are doca_error_t; nothing here throws across the boundary
// but std::bad_alloc.
#pragma once

#include <doca_error.h>

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "transport/fabric.hpp"

namespace softcomch::transport {

struct transport_ops;
class listener;
class pending;
class connector;
class link;
class memory_export;
class write_plan;
class consumer_endpoint;
class remote_consumer;

// What one side asks for; the handshake negotiates the link from both sides' wishes. The caps
// bound what the peer may ask of this side (docs/failure-model.md, "Peer input"): a larger value
// in a peer's message is clamped or refused, never allocated. 0 = the transport's own bound.
struct link_params {
    uint32_t max_msg_size = 0;    // largest message this side sends and accepts
    uint32_t recv_queue_size = 0; // messages this side can have waiting in its receive queue
    uint32_t max_peer_recv_queue_size = 0; // the largest receive queue a peer may ask for
    uint32_t max_peer_consumers = 0;       // consumers the peer may have announced at once
    uint32_t max_peer_consumer_tasks = 0;  // post-receive tasks of one announced consumer
};

// Types of the messages on a link's data path. Values are part of the shm protocol (ring
// records, docs/shm_layout.md).
enum class msg_type : uint16_t {
    data = 1,       // a control-path message of the program
    disconnect = 2, // the sender closes the connection; nothing follows
};

// ---- descriptors the progress engine watches ------------------------------------------------

// One handle for the engine's epoll set: opaque to comch, which passes it to doca_pe::watch with
// `events` and calls pollable::on_ready when it fires.
struct watch_handle {
    int handle = -1;
    uint32_t events = 0;
};
inline constexpr size_t k_max_handles = 2;

class pollable {
public:
    // Writes the handles to watch now into `out` and returns how many there are (0 when none).
    virtual size_t handles(watch_handle (&out)[k_max_handles]) const noexcept = 0;
    // handles()[index] fired with `events`. Runs in the engine's slow path: records, calls no
    // user code.
    virtual void on_ready(size_t index, uint32_t events) noexcept = 0;

protected:
    ~pollable() = default;
};

// What every object of a transport that travels knows: the transport it belongs to.
class transport_object {
public:
    const transport_ops &ops() const noexcept { return *ops_; }

protected:
    explicit transport_object(const transport_ops &ops) noexcept : ops_(&ops) {}
    ~transport_object() = default;

private:
    const transport_ops *ops_;
};

// ---- server side --------------------------------------------------------------------------

// What a client said in its handshake.
struct hello_info {
    int pid = 0; // the kernel's (SO_PEERCRED): a HELLO naming another process is refused
    std::string bluefield;
    std::string host_function;
    std::string name;
    link_params params;
    std::string why; // when read_hello refused the client itself: what it told it
};

// A client's handshake in progress.
class pending : public pollable {
public:
    virtual ~pending() = default;
    // DOCA_SUCCESS (hello filled), DOCA_ERROR_AGAIN (nothing yet), DOCA_ERROR_CONNECTION_RESET
    // (the client closed without a handshake), other: drop this client (when the transport
    // already refused it, with a REJECT, `hello.why` says why).
    virtual doca_error_t read_hello(hello_info &hello) = 0;
    // Refuses the client with a reason it will log.
    virtual void reject(doca_error_t reason, const std::string &text) noexcept = 0;
    // Sets the connection up from both sides' parameters and answers the client. The handles of
    // this object belong to the link afterwards (unwatch them before calling).
    virtual doca_error_t accept(const link_params &mine, const hello_info &hello, uint64_t id,
                                std::unique_ptr<link> &out) = 0;
};

// The published endpoint of one server; destroying it withdraws the endpoint.
class listener : public pollable {
public:
    virtual ~listener() = default;
    // DOCA_SUCCESS with a new pending handshake, DOCA_ERROR_AGAIN when none is waiting.
    // DOCA_ERROR_FULL when the process is out of descriptors (EMFILE, ENFILE): `out` then holds
    // a waiting client, accepted on a descriptor kept in reserve for this, that the caller only
    // refuses (pending::reject) and drops, so that it learns why at once instead of waiting in
    // the backlog. Other errors: nothing was accepted (the caller retries later, not at once).
    virtual doca_error_t accept(std::unique_ptr<pending> &out) = 0;
    // The bells rung since the last call (link::park): f(arg, bell) for each, bell being a
    // link's bell(). A hint (a peer may ring any bell, or silence one): the caller visits those
    // links and looks at every parked link now and then anyway. One load when none rang.
    virtual void take_bells(void (*f)(void *arg, uint32_t bell), void *arg) noexcept
    {
        (void)f;
        (void)arg;
    }
};

// ---- client side --------------------------------------------------------------------------

// Finds the server and performs the handshake, one non-blocking step at a time. Its handles are
// those of the handshake in flight (none while it is looking for the server).
class connector : public pollable {
public:
    enum class result {
        in_progress, // call step() again when a handle fires
        no_server,   // nothing listens yet (retry later)
        connected,   // `out` holds the link
        rejected,    // the server refused; `why` says why
        busy,        // the server refused for now (too many handshakes): retry later; `why`
        failed,      // transport error; `why` says why
    };
    virtual ~connector() = default;
    virtual result step(std::unique_ptr<link> &out, std::string &why) = 0;
};

// ---- a connection -------------------------------------------------------------------------

// What arrives on a link's slow channel, in order (link::service). The handler may call the
// link's slow-path functions (acknowledge, ...) but must not destroy the link.
class link_handler {
public:
    // The peer announced consumer `id`. On DOCA_SUCCESS `consumer` is the way to reach it;
    // otherwise it is empty and `status` says why it cannot be reached. Either way the
    // handler answers with link::acknowledge(id, ...).
    virtual void consumer_announced(uint32_t id, std::unique_ptr<remote_consumer> consumer,
                                    doca_error_t status) = 0;
    // The peer reached (DOCA_SUCCESS) or refused one of our consumers.
    virtual void consumer_acknowledged(uint32_t id, doca_error_t status) = 0;
    // The peer's consumer `id` is gone: producers must stop using it.
    virtual void consumer_expired(uint32_t id) = 0;
    // The peer closes the connection because of something this side sent (its REJECT on an
    // established link): `text` says what. The link is peer_gone() from here on.
    virtual void peer_rejected(doca_error_t reason, const std::string &text) = 0;

protected:
    ~link_handler() = default;
};

// What a consumer asks for (transport_ops::make_consumer).
struct consumer_params {
    uint32_t num_tasks = 0;    // post-receive tasks, 1..
    uint32_t imm_data_len = 0; // immediate-data length of its completions, 0..32
    uint32_t consumer_id = 0;  // > 0, unique among this side's consumers on the connection
};

// One connection. Data path: the concrete class (link_data_path below). Slow path: here.
class link : public pollable, public transport_object {
public:
    virtual ~link() = default;
    link(const link &) = delete;
    link &operator=(const link &) = delete;

    uint32_t max_msg_size() const noexcept { return max_msg_size_; }
    uint64_t id() const noexcept { return id_; }
    // The peer's process as the kernel identified it at connect() (SO_PEERCRED).
    int peer_pid() const noexcept { return peer_pid_; }
    // Something arrived on the slow channel since the last service() (a handle fired).
    bool slow_pending() const noexcept { return slow_pending_; }
    // The peer is gone (its process closed the connection or died). Messages it sent before
    // may still be waiting on the data path.
    bool peer_gone() const noexcept { return peer_gone_; }
    // Why this side closed the connection: the peer broke the protocol (a corrupt record, an
    // unknown or misplaced message, a descriptor or size that is not what it claims), or
    // nullptr. Set once; the link is peer_gone() and delivers nothing more from then on.
    const char *violation() const noexcept { return violation_; }
    // Records a protocol violation of the peer (see violation()): the first one only. The
    // transport tells the peer why (REJECT where its wire has one) and stops reading.
    virtual void protocol_violation(const char *what) noexcept = 0;

    // Reads the slow channel when slow_pending(): hands every message to `h`, notices the
    // peer's death. Returns the number of messages read.
    virtual unsigned service(link_handler &h) = 0;
    // Offers our consumer `c`, whose buffers live in `memory`, to the peer. Thread-safe with
    // respect to the connection's own progress, like acknowledge() and expire().
    virtual doca_error_t announce(const consumer_endpoint &c,
                                  const memory_export &memory) noexcept = 0;
    // Answers an announcement of the peer (DOCA_SUCCESS: its producers may address it here).
    virtual void acknowledge(uint32_t consumer_id, doca_error_t status) noexcept = 0;
    // Tells the peer that our consumer `consumer_id` is gone.
    virtual void expire(uint32_t consumer_id) noexcept = 0;

    // Liveness beyond hang-up (docs/failure-model.md, "Bounds"). What beat() saw of the peer.
    enum class peer_activity {
        progressed, // the peer's progress engine ran since the last beat()
        asleep,     // it did not, but it waits for a wake-up (notifications armed): nothing
                    // is expected of it until this side writes to it
        unknown,    // the peer publishes no liveness (it never beat)
        still,      // none of these: alive or not, it is not progressing
    };
    // Publishes that this side progresses (`now_ns`: monotonic time) where the peer reads it
    // without a system call, and reports the peer's side. Slow path: a few times a second.
    virtual peer_activity beat(uint64_t now_ns) noexcept = 0;

    // What waits on the data path, for `softcomch top` (common/live_layout.hpp). Slow path: may
    // read shared words of the peer's. Zeros where a transport does not know.
    struct queue_depths {
        uint32_t send_in_flight = 0; // messages in the peer's receive queue, not yet taken
        uint32_t send_limit = 0;     // the peer's receive queue size
        uint32_t recv_waiting = 0;   // messages in ours, not yet delivered
        uint32_t recv_limit = 0;     // our receive queue size
    };
    virtual queue_depths depths() noexcept { return {}; }

    // Faults on demand (SOFTCOMCH_FAULTS, src/comch/fault_hooks.cpp); nothing else uses these.
    // Ends the connection as if this process had died: the peer sees it hang up (peer_gone()
    // there), and so does this side, through the same handle, at its next service. Messages
    // already in either receive queue stay readable. Thread-safe: a producer of the connection
    // may call it on its own thread while the connection's engine runs.
    virtual void drop() noexcept = 0;
    // The receive queue's message counts: taken (released) by this side so far, and put there
    // by the peer so far (its count, which may lag one message behind what peek() shows).
    struct queue_counts {
        uint64_t taken = 0;
        uint64_t arrived = 0;
    };
    virtual queue_counts receive_counts() noexcept = 0;

    // Parking (server side, docs/design.md "Idle connections cost nothing"): a link that has
    // been idle stops being polled; its peer rings this side's bell (listener::take_bells) with
    // its next message. k_no_bell: the link cannot be parked.
    static constexpr uint32_t k_no_bell = 0xffffffffu;
    uint32_t bell() const noexcept { return bell_; }
    // Parks the link: false ("busy") when a message already waits, and the link stays unparked.
    // Unparking is implicit: the peer's next message takes the park with it, a sleeping arm
    // replaces it, and polling a parked link is always correct.
    virtual bool park() noexcept { return false; }
    // A message waits on the data path (the check of a parked link at the owner's tick).
    virtual bool has_message() noexcept { return false; }

protected:
    explicit link(const transport_ops &ops) noexcept : transport_object(ops) {}

    uint32_t bell_ = k_no_bell;

    uint32_t max_msg_size_ = 0;
    uint64_t id_ = 0;
    int peer_pid_ = 0; // the kernel's word (SO_PEERCRED), never a message's
    bool slow_pending_ = false;
    bool peer_gone_ = false;
    const char *violation_ = nullptr;
};

// ---- the fast path ------------------------------------------------------------------------

// A consumer's memory, made writable by the peer's producers (once per doca_mmap). Destroying
// it makes the memory private again, best effort.
class memory_export : public transport_object {
public:
    virtual ~memory_export() = default;
    // How the peer reaches it, for logs ("shared", "pvw", ...).
    virtual const char *mechanism_name() const noexcept = 0;
    // Makes the memory private again: the peer's access ends. On failure it stays exported.
    virtual doca_error_t release() noexcept = 0;

protected:
    explicit memory_export(const transport_ops &ops) noexcept : transport_object(ops) {}
};

// How one producer's writes are carried out, chosen when it starts. Opaque to comch, which
// keeps it and passes it to remote_consumer's write.
class write_plan {
public:
    virtual ~write_plan() = default;
    // For logs.
    virtual std::string describe() const = 0;
};

// Our consumer's end of its channel: posted buffers out, completions in. Its handle wakes the
// consumer's engine when a producer completes a buffer after the consumer armed. Data path: the
// concrete class (consumer_data_path below); one thread at a time (the consumer's engine).
class consumer_endpoint : public pollable, public transport_object {
public:
    virtual ~consumer_endpoint() = default;

protected:
    explicit consumer_endpoint(const transport_ops &ops) noexcept : transport_object(ops) {}
};

// A consumer of the peer as this side's producers see it. Data path: the concrete class
// (remote_consumer_data_path below); any number of producer threads at once.
class remote_consumer : public transport_object {
public:
    virtual ~remote_consumer() = default;
    uint32_t id() const noexcept { return id_; }
    // Immediate data its completions carry at most, as announced.
    uint32_t imm_data_len() const noexcept { return imm_data_len_; }
    // Tells the consumer, before acknowledge(), that this side reaches it: its start can complete
    // on its own engine, whoever progresses the connection.
    virtual void accept() noexcept = 0;

protected:
    remote_consumer(const transport_ops &ops, uint32_t id, uint32_t imm_data_len) noexcept
        : transport_object(ops), id_(id), imm_data_len_(imm_data_len)
    {}
    uint32_t id_;
    uint32_t imm_data_len_;
};

// ---- memory another process imports from bytes (DOCA mmap export, DMA) ------------------------

// The most bytes region_export::pack writes: what the importer needs, from the bytes alone.
inline constexpr size_t k_region_desc_max = 192;

// A local range exported for another process to import from bytes alone: the bytes travel
// however the program likes (a file, a Comch message), and the importer needs nothing more of
// this process afterwards, which may be blocked. Destroying the export revokes it: importers'
// later accesses fail.
class region_export : public transport_object {
public:
    virtual ~region_export() = default;
    // Writes the descriptor into `out` (at most `cap` bytes; k_region_desc_max is always
    // enough) and returns its length, 0 if it did not fit.
    virtual size_t pack(uint8_t *out, size_t cap) const noexcept = 0;
    // How an importer reaches it, for logs ("pvw").
    virtual const char *mechanism_name() const noexcept = 0;

protected:
    explicit region_export(const transport_ops &ops) noexcept : transport_object(ops) {}
};

// Another process's exported range, as imported from its descriptor. Addresses are the
// exporter's. Every value of the descriptor was validated; every access is checked against the
// window and the access granted, and against the export's still being alive.
class region_import : public transport_object {
public:
    virtual ~region_import() = default;
    uint64_t base() const noexcept { return base_; }
    uint64_t len() const noexcept { return len_; }
    bool writable() const noexcept { return writable_; }
    // Copies [addr, addr + n) of the exporter into `dst` / `src` into it. DOCA_SUCCESS;
    // DOCA_ERROR_INVALID_VALUE outside the window; DOCA_ERROR_NOT_PERMITTED writing a read-only
    // export, or once the export was revoked (`why` says which). Cheap enough for every slice
    // of a copy: that the exporter is gone may be noticed only by alive().
    virtual doca_error_t read(uint64_t addr, void *dst, size_t n, const char **why) noexcept = 0;
    virtual doca_error_t write(uint64_t addr, const void *src, size_t n,
                               const char **why) noexcept = 0;
    // The export still lives: DOCA_SUCCESS; DOCA_ERROR_NOT_FOUND once the exporter is gone,
    // DOCA_ERROR_NOT_PERMITTED once the export was revoked (`why` says which). May cost a
    // system call: once per task, not per access.
    virtual doca_error_t alive(const char **why) const noexcept = 0;
    // Who exported it, for logs ("pid 1234").
    virtual std::string exporter() const = 0;

protected:
    region_import(const transport_ops &ops, uint64_t base, uint64_t len, bool writable) noexcept
        : transport_object(ops), base_(base), len_(len), writable_(writable)
    {}

private:
    uint64_t base_;
    uint64_t len_;
    bool writable_;
};

// ---- a counter another process imports from bytes (DOCA sync event) ---------------------------

// The most bytes counter_export::pack writes.
inline constexpr size_t k_counter_desc_max = 96;

// A 64-bit counter of this process that other processes import from bytes alone and update
// atomically, as this one does, while this process may be blocked. Destroying it revokes the
// export (importers' alive() says so; their accesses touch only memory of their own).
class counter_export : public transport_object {
public:
    virtual ~counter_export() = default;
    // The counter (starts at 0). Every access on either side is an atomic of this word.
    virtual std::atomic<uint64_t> &word() noexcept = 0;
    // Writes the descriptor into `out` (at most `cap` bytes; k_counter_desc_max is always
    // enough) and returns its length, 0 if it did not fit.
    virtual size_t pack(uint8_t *out, size_t cap) const noexcept = 0;

protected:
    explicit counter_export(const transport_ops &ops) noexcept : transport_object(ops) {}
};

// Another process's counter, as imported from its descriptor (every value of which was
// validated).
class counter_import : public transport_object {
public:
    virtual ~counter_import() = default;
    virtual std::atomic<uint64_t> &word() noexcept = 0;
    // DOCA_SUCCESS while the export lives; NOT_PERMITTED once revoked, NOT_FOUND once the
    // exporter exited (`why` says which).
    virtual doca_error_t alive(const char **why) const noexcept = 0;
    // Who exported it, for logs ("pid 1234").
    virtual std::string exporter() const = 0;

protected:
    explicit counter_import(const transport_ops &ops) noexcept : transport_object(ops) {}
};

// ---- one transport ------------------------------------------------------------------------

// The operations of one transport (one instance per transport, listed in registry.hpp).
// `why`, when a function fills it, is the reason to log in place of comch's own message.
struct transport_ops {
    const char *name;
    // Publishes the server `info` (its socket_path is the transport's to fill).
    // DOCA_ERROR_ALREADY_EXIST when a live server owns the same key; other errors with `why`.
    doca_error_t (*listen)(const endpoint_info &info, std::unique_ptr<listener> &out,
                           std::string &why);
    // Starts looking for the server `key`; errors with `why`.
    doca_error_t (*connect)(const endpoint_key &key, const link_params &params,
                            std::unique_ptr<connector> &out, std::string &why);
    // Makes [addr, addr + len) writable by peers' producers.
    doca_error_t (*export_memory)(void *addr, size_t len, std::unique_ptr<memory_export> &out,
                                  std::string &why);
    // Creates a consumer's end of a new channel, whose buffers live in `memory` (an export of
    // this transport, which must outlive the endpoint).
    doca_error_t (*make_consumer)(const consumer_params &params, const memory_export &memory,
                                  std::unique_ptr<consumer_endpoint> &out);
    // A producer's write plan (DOCA_ERROR_BAD_CONFIG with `why` when the configuration says no).
    doca_error_t (*make_write_plan)(std::unique_ptr<write_plan> &out, std::string &why);
    // Exports [addr, addr + len) for importers in other processes, read-only or not.
    doca_error_t (*export_region)(void *addr, size_t len, bool writable,
                                  std::unique_ptr<region_export> &out, std::string &why);
    // Imports a range from the bytes region_export::pack wrote in another process (untrusted:
    // anything else is refused with INVALID_VALUE and `why`; a revoked export or a gone exporter
    // with NOT_PERMITTED / NOT_FOUND).
    doca_error_t (*import_region)(const uint8_t *desc, size_t len,
                                  std::unique_ptr<region_import> &out, std::string &why);
    // A new counter other processes can import (errors with `why`).
    doca_error_t (*export_counter)(std::unique_ptr<counter_export> &out, std::string &why);
    // Imports a counter from the bytes counter_export::pack wrote in another process
    // (untrusted, as import_region's).
    doca_error_t (*import_counter)(const uint8_t *desc, size_t len,
                                   std::unique_ptr<counter_import> &out, std::string &why);
    // Descriptors one established connection holds on the server, and one handshake in progress
    // (the server's descriptor budget against RLIMIT_NOFILE).
    uint32_t descriptors_per_connection;
    uint32_t descriptors_per_handshake;
};

// The environment variable that selects the transport.
inline constexpr const char *k_transport_env = "SOFTCOMCH_TRANSPORT";
// The transport called `name` in this build, or nullptr.
const transport_ops *find_transport(std::string_view name) noexcept;
// The transport SOFTCOMCH_TRANSPORT names (unset or empty: the default one), read on every call.
// DOCA_ERROR_BAD_CONFIG with `why` for a name this build does not have.
doca_error_t select_transport(const transport_ops *&out, std::string &why);

// ---- the data path of the concrete classes -------------------------------------------------

// (clang-format 14 cannot lay out requires-expressions; these are formatted by hand.)
// clang-format off

// A link's messages: try_claim space for `len` bytes (nullptr when the peer's queue is full),
// commit it (waking the peer if it armed), or commit_deferred it (true: a settle() is owed
// before this side sleeps or stops, which wakes a peer that armed meanwhile); peek the oldest received message (a pointer to
// {data, len, type}, valid until release), release it; arm wake-ups (false: a message waits).
template <class L>
concept link_data_path = requires(L &l, uint32_t len, msg_type type) {
    { l.try_claim(len) } noexcept -> std::same_as<void *>;
    { l.commit(type, len) } noexcept;
    { l.commit_deferred(type, len) } noexcept -> std::same_as<bool>;
    { l.settle() } noexcept;
    { l.peek()->data } -> std::convertible_to<const void *>;
    { l.peek()->len } -> std::convertible_to<uint32_t>;
    { l.peek()->type } -> std::convertible_to<uint16_t>;
    { l.release() } noexcept;
    { l.arm() } noexcept -> std::same_as<bool>;
};

// A consumer's end: post a buffer (task index, address, capacity), peek / release completions
// (task, status, len, producer_id, imm_len, imm), revoke a post nobody claimed, arm wake-ups,
// expire, and whether the peer accepted it or corrupted the channel.
template <class E>
concept consumer_data_path = requires(E &e, uint32_t task, uint64_t n, typename E::posted *p) {
    { e.post(task, n, n) } noexcept -> std::same_as<doca_error_t>;
    { e.peek()->task } -> std::convertible_to<uint32_t>;
    { e.peek()->status } -> std::convertible_to<uint32_t>;
    { e.peek()->len } -> std::convertible_to<uint64_t>;
    { e.peek()->producer_id } -> std::convertible_to<uint32_t>;
    { e.peek()->imm_len } -> std::convertible_to<uint32_t>;
    { e.release() } noexcept;
    { e.revoke(p) } noexcept -> std::same_as<bool>;
    { p->task } -> std::convertible_to<uint32_t>;
    { e.arm() } noexcept -> std::same_as<bool>;
    { e.expire() } noexcept;
    { e.accepted() } noexcept -> std::same_as<bool>;
    { e.corrupted() } noexcept -> std::same_as<bool>;
};

// The peer's consumer: try_claim its oldest posted buffer of at least `need` bytes (AGAIN: none
// posted, TOO_BIG: too small, other: gone), write the payload into it (one call per message),
// complete it (and learn whether to wake the consumer), or complete_deferred it (false in
// *wake: a settle() is owed before this side sleeps or stops), wake it, and whether it expired.
template <class R>
concept remote_consumer_data_path =
    requires(const R &r, uint64_t n, typename R::posted *p, typename R::completion c, bool *wake,
             const void *src, const write_plan &plan) {
        { r.try_claim(n, p) } noexcept -> std::same_as<doca_error_t>;
        { p->task } -> std::convertible_to<uint32_t>;
        { r.write(*p, src, n, plan) } noexcept -> std::same_as<doca_error_t>;
        { c.task = 0, c.producer_id = 0, c.imm_len = 0, c.status = 0, c.len = 0 };
        { r.complete(c, wake) } noexcept -> std::same_as<doca_error_t>;
        { r.complete_deferred(c, wake) } noexcept -> std::same_as<doca_error_t>;
        { r.settle() } noexcept;
        { r.wake() } noexcept;
        { r.expired() } noexcept -> std::same_as<bool>;
    };

// clang-format on

} // namespace softcomch::transport
