// SPDX-License-Identifier: Apache-2.0
//
// Fast-path test harness over the PUBLIC API only (include/): registered memory regions
// (doca_mmap over malloc / aligned_alloc / mmap memory + doca_buf_inventory), a consumer wrapper
// (own progress engine, N posted buffers reposted from the completion callback; reposts refused
// with DOCA_ERROR_AGAIN are retried from its progress loops), a producer wrapper (own progress
// engine, source buffers, send() that retries DOCA_ERROR_AGAIN with a timeout and without
// progressing anything unless asked to), a helper that progresses several engines together
// (polling or epoll), Comch server/client wrappers that record the consumer events, payload
// patterns and checksums, child-process guards, and "flows" that return an error text so that
// the same code serves the gtest parent and the forked children (REQ* macros).
// Builds on comch_harness.hpp; nothing here touches SoftComch internals.
//
// Threading: every wrapper is used from one thread at a time (its own progress engine included),
// which is what the headers allow. consumer_events can be read from any thread.
#pragma once

#include "backoff.hpp"
#include "comch_harness.hpp"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdarg>
#include <atomic>
#include <cinttypes>
#include <climits>
#include <mutex>
#include <ostream>
#include <sstream>
#include <utility>

namespace sc_test::fp {

// ---- diagnostics ----

inline std::string err_name(doca_error_t e)
{
    const char *n = doca_error_get_name(e);
    return n ? n : ("doca_error(" + std::to_string(int(e)) + ")");
}

inline std::string state_name(doca_ctx_states s)
{
    switch (s) {
    case DOCA_CTX_STATE_IDLE:
        return "IDLE";
    case DOCA_CTX_STATE_STARTING:
        return "STARTING";
    case DOCA_CTX_STATE_RUNNING:
        return "RUNNING";
    case DOCA_CTX_STATE_STOPPING:
        return "STOPPING";
    }
    return "state(" + std::to_string(int(s)) + ")";
}

inline std::string show(doca_error_t e)
{
    return err_name(e);
}
inline std::string show(doca_ctx_states s)
{
    return state_name(s);
}
inline std::string show(bool b)
{
    return b ? "true" : "false";
}
inline std::string show(const std::string &s)
{
    return '"' + s + '"';
}
inline std::string show(const char *s)
{
    return s ? show(std::string(s)) : "(null)";
}
inline std::string show(const void *p)
{
    char b[32];
    std::snprintf(b, sizeof b, "%p", p);
    return b;
}
template <typename T>
requires std::is_integral_v<T>
inline std::string show(T v)
{
    return std::to_string(v);
}

// Child-process checks that print both values (CHILD_CHECK only prints the expression).
#define CHILD_CHECK_EQ(a, b)                                                                       \
    do {                                                                                           \
        auto &&child_a_ = (a);                                                                     \
        auto &&child_b_ = (b);                                                                     \
        if (!(child_a_ == child_b_)) {                                                             \
            std::fprintf(stderr, "[pid %d] child check failed at %s:%d: %s == %s (%s vs %s)\n",    \
                         int(getpid()), __FILE__, __LINE__, #a, #b,                                \
                         ::sc_test::fp::show(child_a_).c_str(),                                    \
                         ::sc_test::fp::show(child_b_).c_str());                                   \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

#define CHILD_CHECK_MSG(cond, ...)                                                                 \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "[pid %d] child check failed at %s:%d: %s: ", int(getpid()),      \
                         __FILE__, __LINE__, #cond);                                               \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
            return __LINE__ % 200 + 1;                                                             \
        }                                                                                          \
    } while (0)

// ---- child processes ----

// Owns a child process: wait() reaps it (killing it after the timeout, see wait_child); if the
// test bails out before, the destructor kills and reaps it, so no child outlives its test.
class child_guard {
public:
    explicit child_guard(pid_t pid) : pid_(pid) {}
    child_guard(const child_guard &) = delete;
    child_guard &operator=(const child_guard &) = delete;
    ~child_guard()
    {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            wait_child(pid_, 5000ms);
        }
    }
    pid_t pid() const { return pid_; }
    int wait(std::chrono::milliseconds timeout = 20000ms)
    {
        int rc = wait_child(pid_, timeout);
        pid_ = -1;
        return rc;
    }
    int kill_and_wait(std::chrono::milliseconds timeout = 5000ms)
    {
        kill(pid_, SIGKILL);
        return wait(timeout);
    }

private:
    pid_t pid_;
};

// ---- payload patterns and checksums ----

inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Seed of the pattern of message `seq` of `size` bytes (tests use it on both sides).
inline uint64_t pattern_seed(uint64_t size, uint64_t seq, uint64_t salt = 0)
{
    return mix64(size * 0x100000001b3ull ^ mix64(seq) ^ (salt << 17));
}

inline void fill_pattern(uint8_t *p, size_t len, uint64_t seed)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w = mix64(seed + k);
        std::memcpy(p + 8 * k, &w, 8);
    }
    if (len % 8) {
        uint64_t w = mix64(seed + words);
        std::memcpy(p + 8 * words, &w, len % 8);
    }
}

// Index of the first byte that differs from the pattern, or SIZE_MAX if all match.
inline size_t check_pattern(const uint8_t *p, size_t len, uint64_t seed)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w = mix64(seed + k), got;
        std::memcpy(&got, p + 8 * k, 8);
        if (got != w) {
            for (size_t i = 0; i < 8; ++i)
                if (p[8 * k + i] != reinterpret_cast<const uint8_t *>(&w)[i])
                    return 8 * k + i;
        }
    }
    if (len % 8) {
        uint64_t w = mix64(seed + words);
        for (size_t i = 0; i < len % 8; ++i)
            if (p[8 * words + i] != reinterpret_cast<const uint8_t *>(&w)[i])
                return 8 * words + i;
    }
    return SIZE_MAX;
}

inline uint64_t checksum(const uint8_t *p, size_t len, uint64_t h = 0xcbf29ce484222325ull)
{
    size_t words = len / 8;
    for (size_t k = 0; k < words; ++k) {
        uint64_t w;
        std::memcpy(&w, p + 8 * k, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (size_t i = 8 * words; i < len; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return mix64(h ^ len);
}

// ---- progressing several engines together ----

// Progresses a set of engines in polling mode (progress each; sleep briefly when idle) or in
// epoll mode (arm every engine with doca_pe_request_notification, epoll_wait on all their
// notification handles, doca_pe_clear_notification, then progress each until idle).
class pe_group {
public:
    explicit pe_group(std::initializer_list<doca_pe *> pes = {}, bool epoll = false) : epoll_(epoll)
    {
        for (doca_pe *pe : pes)
            add(pe);
    }
    pe_group(const pe_group &) = delete;
    pe_group &operator=(const pe_group &) = delete;
    ~pe_group()
    {
        if (epfd_ >= 0)
            close(epfd_);
    }

    void add(doca_pe *pe)
    {
        if (!pe)
            return;
        entry e{pe, -1};
        doca_pe_get_notification_handle(pe, &e.handle);
        entries_.push_back(e);
        if (epfd_ >= 0)
            arm_fd(e);
    }
    void set_epoll(bool on) { epoll_ = on; }
    bool epoll() const { return epoll_; }

    // One round; true if any engine reported progress.
    bool round(int wait_ms = 5)
    {
        bool any = false;
        if (epoll_) {
            if (epfd_ < 0) {
                epfd_ = epoll_create1(EPOLL_CLOEXEC);
                for (auto &e : entries_)
                    arm_fd(e);
            }
            for (auto &e : entries_)
                doca_pe_request_notification(e.pe);
            epoll_event evs[16];
            epoll_wait(epfd_, evs, 16, wait_ms);
            for (auto &e : entries_)
                doca_pe_clear_notification(e.pe, e.handle);
            for (auto &e : entries_)
                while (doca_pe_progress(e.pe))
                    any = true;
        } else {
            for (auto &e : entries_)
                if (doca_pe_progress(e.pe))
                    any = true;
            if (!any)
                std::this_thread::sleep_for(std::chrono::microseconds(idle_sleep_us));
        }
        return any;
    }

    bool until(const std::function<bool()> &pred, std::chrono::milliseconds timeout)
    {
        auto end = clock::now() + timeout;
        while (!pred()) {
            if (clock::now() > end)
                return pred();
            round();
        }
        return true;
    }

    void run_for(std::chrono::milliseconds d)
    {
        auto end = clock::now() + d;
        while (clock::now() < end)
            round(1);
    }

    int idle_sleep_us = 5;

private:
    struct entry {
        doca_pe *pe;
        doca_notification_handle_t handle;
    };
    void arm_fd(entry &e)
    {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.ptr = e.pe;
        epoll_ctl(epfd_, EPOLL_CTL_ADD, e.handle, &ev);
    }
    std::vector<entry> entries_;
    int epfd_ = -1;
    bool epoll_ = false;
};

// ---- registered memory ----

enum class mem_kind { heap, aligned, anon };

inline const char *mem_kind_name(mem_kind k)
{
    switch (k) {
    case mem_kind::heap:
        return "malloc";
    case mem_kind::aligned:
        return "aligned_alloc";
    case mem_kind::anon:
        return "mmap";
    }
    return "?";
}

// Lets GoogleTest print the parameter.
inline void PrintTo(mem_kind k, std::ostream *os)
{
    *os << mem_kind_name(k);
}

struct region_options {
    mem_kind kind = mem_kind::aligned;
    uint32_t inventory = 64; // buf descriptors
    uint32_t permissions = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
    bool start = true; // start the mmap
    bool add_dev = true;
};

// A block of memory (malloc, aligned_alloc or anonymous mmap), a doca_mmap over it registered
// with a device, and a started doca_buf_inventory.
class region {
public:
    region(doca_dev *dev, size_t size, region_options o = {}) : size_(size), kind_(o.kind)
    {
        switch (o.kind) {
        case mem_kind::heap:
            raw_ = std::malloc(size);
            break;
        case mem_kind::aligned:
            raw_ = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
            break;
        case mem_kind::anon: {
            void *p =
                ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            raw_ = p == MAP_FAILED ? nullptr : p;
            break;
        }
        }
        if (!raw_) {
            fail("allocation of " + std::to_string(size) + " bytes", DOCA_ERROR_NO_MEMORY);
            return;
        }
        doca_error_t rc;
        if ((rc = doca_mmap_create(&mmap_)) != DOCA_SUCCESS) {
            fail("doca_mmap_create", rc);
            return;
        }
        if (o.add_dev && dev && (rc = doca_mmap_add_dev(mmap_, dev)) != DOCA_SUCCESS) {
            fail("doca_mmap_add_dev", rc);
            return;
        }
        if ((rc = doca_mmap_set_permissions(mmap_, o.permissions)) != DOCA_SUCCESS) {
            fail("doca_mmap_set_permissions", rc);
            return;
        }
        if ((rc = doca_mmap_set_memrange(mmap_, raw_, size)) != DOCA_SUCCESS) {
            fail("doca_mmap_set_memrange", rc);
            return;
        }
        if (o.start && (rc = doca_mmap_start(mmap_)) != DOCA_SUCCESS) {
            fail("doca_mmap_start", rc);
            return;
        }
        if ((rc = doca_buf_inventory_create(o.inventory, &inv_)) != DOCA_SUCCESS) {
            fail("doca_buf_inventory_create", rc);
            return;
        }
        if ((rc = doca_buf_inventory_start(inv_)) != DOCA_SUCCESS) {
            fail("doca_buf_inventory_start", rc);
            return;
        }
    }
    region(const region &) = delete;
    region &operator=(const region &) = delete;
    ~region()
    {
        if (inv_) {
            doca_error_t rc = doca_buf_inventory_destroy(inv_);
            if (rc != DOCA_SUCCESS)
                std::fprintf(stderr, "[pid %d] region: doca_buf_inventory_destroy: %s\n",
                             int(getpid()), err_name(rc).c_str());
        }
        bool released = true;
        if (mmap_) {
            doca_error_t rc = doca_mmap_destroy(mmap_);
            if (rc != DOCA_SUCCESS) {
                std::fprintf(stderr,
                             "[pid %d] region: doca_mmap_destroy: %s (memory leaked on purpose)\n",
                             int(getpid()), err_name(rc).c_str());
                released = false;
            }
        }
        if (raw_ && released) {
            if (kind_ == mem_kind::anon)
                munmap(raw_, size_);
            else
                std::free(raw_);
        }
    }

    bool ok() const { return error.empty(); }
    uint8_t *base() const { return static_cast<uint8_t *>(raw_); }
    size_t size() const { return size_; }
    doca_mmap *mmap() const { return mmap_; }
    doca_buf_inventory *inventory() const { return inv_; }

    // A buf over [off, off+len) with an empty data window (a receive buffer).
    doca_buf *get_by_addr(size_t off, size_t len)
    {
        doca_buf *b = nullptr;
        last_rc = doca_buf_inventory_buf_get_by_addr(inv_, mmap_, base() + off, len, &b);
        return last_rc == DOCA_SUCCESS ? b : nullptr;
    }
    // A buf whose data window is [off, off+len) (a source buffer).
    doca_buf *get_by_data(size_t off, size_t len)
    {
        doca_buf *b = nullptr;
        last_rc = doca_buf_inventory_buf_get_by_data(inv_, mmap_, base() + off, len, &b);
        return last_rc == DOCA_SUCCESS ? b : nullptr;
    }
    // A buf over [off, off+cap) whose data window is its first `len` bytes.
    doca_buf *get_by_args(size_t off, size_t cap, size_t len)
    {
        doca_buf *b = nullptr;
        last_rc = doca_buf_inventory_buf_get_by_args(inv_, mmap_, base() + off, cap, base() + off,
                                                     len, &b);
        return last_rc == DOCA_SUCCESS ? b : nullptr;
    }

    std::string error;
    doca_error_t last_rc = DOCA_SUCCESS;

private:
    void fail(const std::string &what, doca_error_t rc)
    {
        error = what + ": " + err_name(rc);
        std::fprintf(stderr, "[pid %d] region: %s\n", int(getpid()), error.c_str());
    }

    void *raw_ = nullptr;
    size_t size_;
    mem_kind kind_;
    doca_mmap *mmap_ = nullptr;
    doca_buf_inventory *inv_ = nullptr;
};

// ---- consumer ----

// What the receive callback sees: valid during the callback only.
struct recv_view {
    const uint8_t *data;
    size_t len;
    uint32_t producer_id;
    const uint8_t *imm;
    uint32_t imm_len;
    size_t slot;
    doca_comch_consumer_task_post_recv *task;
};

struct recv_record {
    std::vector<uint8_t> data;
    uint32_t producer_id;
    bool imm_null;
    std::vector<uint8_t> imm;
    size_t slot;
};

struct consumer_options {
    uint32_t slots = 8; // buffers of slot_size bytes, one per post-receive
    size_t slot_size = 4096;
    uint32_t num_tasks = 0; // post-receive task pool (0: as many as slots)
    int imm_data_len = -1;  // doca_comch_consumer_set_imm_data_len before start (-1: leave)
    mem_kind mem = mem_kind::aligned;
    bool auto_repost = true;  // resubmit a task from its completion callback
    bool hold_errors = false; // keep error-completed tasks (do not free them)
    bool epoll = false;
    doca_pe *pe = nullptr;    // attach to this engine (e.g. the connection's) instead of an own one
    bool check_order = false; // anomaly unless messages land in posting order (one producer only)
};

class consumer {
public:
    consumer(doca_comch_connection *conn, doca_dev *dev, consumer_options o = {})
        : opt_(o), mem_(dev, size_t(o.slots) * o.slot_size, region_options{o.mem, o.slots + 8}),
          group_({}, o.epoll), bufs_(o.slots, nullptr), posted_(o.slots, 0)
    {
        if (!mem_.ok()) {
            create_rc = DOCA_ERROR_NO_MEMORY;
            return;
        }
        if (o.pe) {
            pe_ = o.pe;
            own_pe_ = false;
        } else if ((create_rc = doca_pe_create(&pe_)) != DOCA_SUCCESS) {
            pe_ = nullptr;
            return;
        }
        group_.add(pe_);
        create_rc = doca_comch_consumer_create(conn, mem_.mmap(), &cons_);
        if (create_rc != DOCA_SUCCESS) {
            cons_ = nullptr;
            std::fprintf(stderr, "[pid %d] doca_comch_consumer_create: %s\n", int(getpid()),
                         err_name(create_rc).c_str());
            return;
        }
        ctx_ = doca_comch_consumer_as_ctx(cons_);
        setup_rc = setup();
    }
    consumer(const consumer &) = delete;
    consumer &operator=(const consumer &) = delete;
    ~consumer()
    {
        if (cons_) {
            if (state() != DOCA_CTX_STATE_IDLE) {
                doca_error_t rc = stop_and_wait(nullptr, 3000ms);
                if (rc != DOCA_SUCCESS)
                    std::fprintf(stderr, "[pid %d] ~consumer: stop: %s (state %s)\n", int(getpid()),
                                 err_name(rc).c_str(), state_name(state()).c_str());
            }
            free_held();
            free_pending();
            destroy();
        }
        release_bufs();
        if (pe_ && own_pe_) {
            doca_error_t rc = doca_pe_destroy(pe_);
            if (rc != DOCA_SUCCESS)
                std::fprintf(stderr, "[pid %d] ~consumer: doca_pe_destroy: %s\n", int(getpid()),
                             err_name(rc).c_str());
        }
    }

    bool ok() const { return create_rc == DOCA_SUCCESS && setup_rc == DOCA_SUCCESS; }
    doca_comch_consumer *handle() const { return cons_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_pe *pe() const { return pe_; }
    region &mem() { return mem_; }
    const consumer_options &options() const { return opt_; }
    pe_group &group() { return group_; }

    uint32_t id() const
    {
        uint32_t v = 0;
        doca_comch_consumer_get_id(cons_, &v);
        return v;
    }
    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        if (ctx_)
            doca_ctx_get_state(ctx_, &s);
        return s;
    }

    doca_error_t start() { return doca_ctx_start(ctx_); }

    // Progresses this consumer's engine and `owner` (the engine of the connection's server or
    // client, when this thread drives it) until `pred` holds.
    // Reposts refused with DOCA_ERROR_AGAIN are retried on the way (retry_pending).
    bool progress_until(const std::function<bool()> &pred, std::chrono::milliseconds timeout,
                        doca_pe *owner = nullptr)
    {
        auto check = [&] {
            retry_pending();
            return pred();
        };
        if (!owner)
            return group_.until(check, timeout);
        pe_group g({pe_, owner}, opt_.epoll);
        return g.until(check, timeout);
    }

    // Resubmits the receives whose repost from the completion callback was refused with
    // DOCA_ERROR_AGAIN (transient back-pressure); frees them once the consumer is not RUNNING.
    // Loops that progress the consumer's engine by other means call this themselves.
    void retry_pending()
    {
        for (size_t i = 0; i < pending_.size();) {
            auto [slot, task] = pending_[i];
            doca_error_t rc = DOCA_ERROR_BAD_STATE;
            if (state() == DOCA_CTX_STATE_RUNNING) {
                doca_buf_set_data(bufs_[slot], slot_addr(slot), 0);
                rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
            }
            if (rc == DOCA_ERROR_AGAIN) {
                ++repost_again;
                ++i;
                continue;
            }
            if (rc == DOCA_SUCCESS) {
                posted_[slot] = 1;
                ++posted_count_;
                post_order_.push_back(slot);
            } else {
                if (state() == DOCA_CTX_STATE_RUNNING) {
                    ++repost_failures;
                    last_repost_rc = rc;
                }
                doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
            }
            pending_.erase(pending_.begin() + long(i));
        }
    }
    size_t pending() const { return pending_.size(); }

    bool wait_running(doca_pe *owner, std::chrono::milliseconds timeout = 5000ms)
    {
        return progress_until([&] { return state() == DOCA_CTX_STATE_RUNNING; }, timeout, owner);
    }

    // Posts the buffer of `slot` (its buf is taken once, empty data window, and reused).
    doca_error_t post(size_t slot)
    {
        if (slot >= bufs_.size())
            return DOCA_ERROR_INVALID_VALUE;
        if (!bufs_[slot]) {
            bufs_[slot] = mem_.get_by_addr(slot * opt_.slot_size, opt_.slot_size);
            if (!bufs_[slot])
                return mem_.last_rc;
        } else {
            doca_buf_set_data(bufs_[slot], mem_.base() + slot * opt_.slot_size, 0);
        }
        doca_comch_consumer_task_post_recv *t = nullptr;
        doca_error_t rc = doca_comch_consumer_task_post_recv_alloc_init(cons_, bufs_[slot], &t);
        if (rc != DOCA_SUCCESS)
            return rc;
        union doca_data ud;
        ud.u64 = slot;
        doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t), ud);
        // DOCA_ERROR_AGAIN is transient back-pressure (doca_task_submit): retry for a while.
        auto end = clock::now() + 1000ms;
        backoff wait;
        while ((rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t))) ==
                   DOCA_ERROR_AGAIN &&
               clock::now() < end) {
            ++post_again;
            wait.pause();
        }
        if (rc != DOCA_SUCCESS) {
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
            return rc;
        }
        posted_[slot] = 1;
        ++posted_count_;
        post_order_.push_back(slot);
        return DOCA_SUCCESS;
    }

    doca_error_t post_all()
    {
        for (size_t s = 0; s < bufs_.size(); ++s)
            if (!posted_[s]) {
                doca_error_t rc = post(s);
                if (rc != DOCA_SUCCESS)
                    return rc;
            }
        return DOCA_SUCCESS;
    }

    size_t posted() const { return posted_count_; }
    doca_buf *slot_buf(size_t slot) const { return bufs_[slot]; }
    uint8_t *slot_addr(size_t slot) { return mem_.base() + slot * opt_.slot_size; }

    // Stops and progresses until IDLE. Error-completed tasks are freed unless hold_errors.
    doca_error_t stop_and_wait(doca_pe *owner, std::chrono::milliseconds timeout = 5000ms)
    {
        doca_error_t rc = doca_ctx_stop(ctx_);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            return rc;
        return progress_until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout, owner)
                   ? DOCA_SUCCESS
                   : DOCA_ERROR_TIME_OUT;
    }

    doca_error_t destroy()
    {
        if (!cons_)
            return DOCA_SUCCESS;
        doca_error_t rc = doca_comch_consumer_destroy(cons_);
        if (rc == DOCA_SUCCESS) {
            cons_ = nullptr;
            ctx_ = nullptr;
        } else {
            std::fprintf(stderr, "[pid %d] doca_comch_consumer_destroy: %s\n", int(getpid()),
                         err_name(rc).c_str());
        }
        return rc;
    }

    void free_pending()
    {
        for (auto &[slot, task] : pending_)
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
        pending_.clear();
    }

    void free_held()
    {
        for (auto *t : held)
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
        held.clear();
    }

    void release_bufs()
    {
        for (auto &b : bufs_)
            if (b) {
                doca_buf_dec_refcount(b, nullptr);
                b = nullptr;
            }
    }

    // Receive handling: on_recv (if set) sees every message, otherwise it is copied to `received`.
    std::function<void(consumer &, const recv_view &)> on_recv;
    std::deque<recv_record> received;
    size_t recv_count = 0;
    std::vector<doca_error_t> errors;                       // statuses of error completions
    std::vector<doca_comch_consumer_task_post_recv *> held; // error-completed tasks (hold_errors)
    std::vector<std::string> anomalies;                     // contract violations seen in callbacks
    size_t repost_failures = 0; // reposts refused with another code than DOCA_ERROR_AGAIN
    doca_error_t last_repost_rc = DOCA_SUCCESS;
    uint64_t repost_again = 0; // reposts refused with DOCA_ERROR_AGAIN (retried later)
    uint64_t post_again = 0;   // first posts refused with DOCA_ERROR_AGAIN (retried)
    std::vector<doca_ctx_states> states;
    doca_error_t create_rc = DOCA_ERROR_UNKNOWN;
    doca_error_t setup_rc = DOCA_ERROR_UNKNOWN;

private:
    doca_error_t setup()
    {
        doca_error_t rc;
        if ((rc = doca_pe_connect_ctx(pe_, ctx_)) != DOCA_SUCCESS)
            return rc;
        union doca_data d;
        d.ptr = this;
        if ((rc = doca_ctx_set_user_data(ctx_, d)) != DOCA_SUCCESS)
            return rc;
        doca_ctx_set_state_changed_cb(
            ctx_, [](const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
                static_cast<consumer *>(ud.ptr)->states.push_back(next);
            });
        uint32_t tasks = opt_.num_tasks ? opt_.num_tasks : opt_.slots;
        if ((rc = doca_comch_consumer_task_post_recv_set_conf(cons_, recv_done, recv_error,
                                                              tasks)) != DOCA_SUCCESS)
            return rc;
        if (opt_.imm_data_len >= 0 && (rc = doca_comch_consumer_set_imm_data_len(
                                           cons_, uint32_t(opt_.imm_data_len))) != DOCA_SUCCESS)
            return rc;
        return DOCA_SUCCESS;
    }

    void forget_post(size_t slot)
    {
        auto it = std::find(post_order_.begin(), post_order_.end(), slot);
        if (it != post_order_.end())
            post_order_.erase(it);
    }

    void anomaly(const std::string &s)
    {
        if (anomalies.size() < 32)
            anomalies.push_back(s);
        std::fprintf(stderr, "[pid %d] consumer %u: %s\n", int(getpid()), id(), s.c_str());
    }

    static void recv_done(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                          union doca_data ctx_ud)
    {
        auto *c = static_cast<consumer *>(ctx_ud.ptr);
        size_t slot = task_ud.u64;
        doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
        void *data = nullptr;
        size_t len = 0;
        doca_buf_get_data(buf, &data);
        doca_buf_get_data_len(buf, &len);
        if (doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
            c->anomaly(
                "completion callback with status " +
                err_name(doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task))));
        if (slot < c->bufs_.size()) {
            if (buf != c->bufs_[slot])
                c->anomaly("completed task carries another buf");
            uint8_t *lo = c->slot_addr(slot), *hi = lo + c->opt_.slot_size;
            auto *d = static_cast<uint8_t *>(data);
            if (len && (d < lo || d + len > hi))
                c->anomaly("received data window outside its slot");
            c->posted_[slot] = 0;
            // Posted buffers are filled in the order they were posted (one producer at a time).
            if (c->opt_.check_order && !c->post_order_.empty() && c->post_order_.front() != slot)
                c->anomaly("message landed in slot " + std::to_string(slot) + " while slot " +
                           std::to_string(c->post_order_.front()) + " was posted earlier");
            c->forget_post(slot);
        }
        --c->posted_count_;
        ++c->recv_count;
        const uint8_t *imm = doca_comch_consumer_task_post_recv_get_imm_data(task);
        uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(task);
        recv_view v{static_cast<const uint8_t *>(data),
                    len,
                    doca_comch_consumer_task_post_recv_get_producer_id(task),
                    imm,
                    imm_len,
                    slot,
                    task};
        if (c->on_recv) {
            c->on_recv(*c, v);
        } else {
            recv_record r;
            r.data.assign(v.data, v.data + len);
            r.producer_id = v.producer_id;
            r.imm_null = imm == nullptr;
            if (imm)
                r.imm.assign(imm, imm + imm_len);
            r.slot = slot;
            c->received.push_back(std::move(r));
        }
        if (c->opt_.auto_repost && c->state() == DOCA_CTX_STATE_RUNNING && slot < c->bufs_.size()) {
            doca_buf_set_data(buf, c->slot_addr(slot), 0);
            doca_error_t rc = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task));
            if (rc == DOCA_SUCCESS) {
                c->posted_[slot] = 1;
                ++c->posted_count_;
                c->post_order_.push_back(slot);
                return;
            }
            if (rc == DOCA_ERROR_AGAIN) {
                ++c->repost_again;
                c->pending_.emplace_back(slot, task);
                return;
            }
            ++c->repost_failures;
            c->last_repost_rc = rc;
        }
        doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    }

    static void recv_error(doca_comch_consumer_task_post_recv *task, union doca_data task_ud,
                           union doca_data ctx_ud)
    {
        auto *c = static_cast<consumer *>(ctx_ud.ptr);
        size_t slot = task_ud.u64;
        doca_error_t st = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task));
        c->errors.push_back(st);
        if (st == DOCA_SUCCESS)
            c->anomaly("error callback with status DOCA_SUCCESS");
        if (slot < c->bufs_.size()) {
            c->posted_[slot] = 0;
            c->forget_post(slot);
            size_t len = 1;
            doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(task), &len);
            if (len != 0)
                c->anomaly("buffer of a failed receive has data_len " + std::to_string(len) +
                           " (status " + err_name(st) + ")");
        }
        --c->posted_count_;
        if (c->opt_.hold_errors)
            c->held.push_back(task);
        else
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    }

    consumer_options opt_;
    region mem_;
    pe_group group_;
    doca_pe *pe_ = nullptr;
    bool own_pe_ = true;
    doca_comch_consumer *cons_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    std::vector<doca_buf *> bufs_;
    std::vector<uint8_t> posted_;
    size_t posted_count_ = 0;
    std::vector<std::pair<size_t, doca_comch_consumer_task_post_recv *>> pending_;
    std::deque<size_t> post_order_; // posted slots, oldest first
};

// ---- producer ----

struct producer_options {
    uint32_t num_tasks = 16; // send-task pool
    uint32_t slots = 16;     // source buffers of slot_size bytes (messages in flight)
    size_t slot_size = 4096;
    mem_kind mem = mem_kind::aligned;
    bool epoll = false;
    doca_pe *pe = nullptr; // attach to this engine (e.g. the connection's) instead of an own one
};

struct send_options {
    std::chrono::milliseconds timeout = 5000ms; // for a free slot/task and for AGAIN retries
    std::function<void()> pump; // called between AGAIN retries (default: sleep only)
};

class producer {
public:
    producer(doca_comch_connection *conn, doca_dev *dev, producer_options o = {})
        : opt_(o), mem_(dev, size_t(o.slots) * o.slot_size, region_options{o.mem, o.slots + 8}),
          group_({}, o.epoll)
    {
        for (uint32_t s = 0; s < o.slots; ++s)
            free_slots_.push_back(o.slots - 1 - s);
        if (!mem_.ok()) {
            create_rc = DOCA_ERROR_NO_MEMORY;
            return;
        }
        if (o.pe) {
            pe_ = o.pe;
            own_pe_ = false;
        } else if ((create_rc = doca_pe_create(&pe_)) != DOCA_SUCCESS) {
            pe_ = nullptr;
            return;
        }
        group_.add(pe_);
        create_rc = doca_comch_producer_create(conn, &prod_);
        if (create_rc != DOCA_SUCCESS) {
            prod_ = nullptr;
            std::fprintf(stderr, "[pid %d] doca_comch_producer_create: %s\n", int(getpid()),
                         err_name(create_rc).c_str());
            return;
        }
        ctx_ = doca_comch_producer_as_ctx(prod_);
        setup_rc = setup();
    }
    producer(const producer &) = delete;
    producer &operator=(const producer &) = delete;
    ~producer()
    {
        if (prod_) {
            if (state() != DOCA_CTX_STATE_IDLE) {
                doca_error_t rc = stop_and_wait(3000ms);
                if (rc != DOCA_SUCCESS)
                    std::fprintf(stderr, "[pid %d] ~producer: stop: %s (state %s)\n", int(getpid()),
                                 err_name(rc).c_str(), state_name(state()).c_str());
            }
            destroy();
        }
        if (pe_ && own_pe_) {
            doca_error_t rc = doca_pe_destroy(pe_);
            if (rc != DOCA_SUCCESS)
                std::fprintf(stderr, "[pid %d] ~producer: doca_pe_destroy: %s\n", int(getpid()),
                             err_name(rc).c_str());
        }
    }

    bool ok() const { return create_rc == DOCA_SUCCESS && setup_rc == DOCA_SUCCESS; }
    doca_comch_producer *handle() const { return prod_; }
    doca_ctx *ctx() const { return ctx_; }
    doca_pe *pe() const { return pe_; }
    region &mem() { return mem_; }
    pe_group &group() { return group_; }

    uint32_t id() const
    {
        uint32_t v = 0;
        doca_comch_producer_get_id(prod_, &v);
        return v;
    }
    doca_ctx_states state() const
    {
        doca_ctx_states s = DOCA_CTX_STATE_IDLE;
        if (ctx_)
            doca_ctx_get_state(ctx_, &s);
        return s;
    }
    doca_error_t start() { return doca_ctx_start(ctx_); }

    size_t in_flight() const { return in_flight_; }

    // Sends `len` bytes written by `fill` straight into a source buffer, plus immediate data, to
    // remote consumer `cid`. Waits (progressing this producer's engine) for a free source buffer
    // and send task, then submits, retrying DOCA_ERROR_AGAIN until the timeout without progressing
    // any engine (so.pump, if set, runs between retries). Returns the last doca_task_submit()
    // result, DOCA_ERROR_TIME_OUT if no buffer/task became free, or the failing call's code.
    doca_error_t send(uint32_t cid, size_t len, const std::function<void(uint8_t *, size_t)> &fill,
                      const void *imm = nullptr, uint32_t imm_len = 0, const send_options &so = {})
    {
        if (len > opt_.slot_size)
            return DOCA_ERROR_TOO_BIG;
        auto end = clock::now() + so.timeout;
        while (free_slots_.empty()) {
            if (clock::now() > end)
                return DOCA_ERROR_TIME_OUT;
            group_.round(1);
            if (so.pump)
                so.pump();
        }
        size_t slot = free_slots_.back();
        uint8_t *dst = mem_.base() + slot * opt_.slot_size;
        if (fill && len)
            fill(dst, len);
        doca_buf *buf = len ? mem_.get_by_data(slot * opt_.slot_size, len)
                            : mem_.get_by_args(slot * opt_.slot_size, opt_.slot_size, 0);
        if (!buf)
            return mem_.last_rc;
        doca_comch_producer_task_send *t = nullptr;
        doca_error_t rc;
        for (;;) {
            rc = doca_comch_producer_task_send_alloc_init(
                prod_, buf, static_cast<uint8_t *>(const_cast<void *>(imm)), imm_len, cid, &t);
            if (rc != DOCA_ERROR_NO_MEMORY || clock::now() > end)
                break;
            group_.round(1);
        }
        if (rc != DOCA_SUCCESS) {
            doca_buf_dec_refcount(buf, nullptr);
            last_alloc_rc = rc;
            return rc;
        }
        union doca_data ud;
        ud.u64 = slot;
        doca_task_set_user_data(doca_comch_producer_task_send_as_task(t), ud);
        rc = submit_retrying(doca_comch_producer_task_send_as_task(t), so, end);
        if (rc != DOCA_SUCCESS) {
            doca_task_free(doca_comch_producer_task_send_as_task(t));
            doca_buf_dec_refcount(buf, nullptr);
            return rc;
        }
        free_slots_.pop_back();
        ++in_flight_;
        ++submitted;
        return DOCA_SUCCESS;
    }

    doca_error_t send(uint32_t cid, const void *bytes, size_t len, const void *imm = nullptr,
                      uint32_t imm_len = 0, const send_options &so = {})
    {
        return send(
            cid, len, [bytes](uint8_t *d, size_t n) { std::memcpy(d, bytes, n); }, imm, imm_len,
            so);
    }

    // doca_task_submit, retried while it returns DOCA_ERROR_AGAIN (sleeping or pumping).
    doca_error_t submit_retrying(doca_task *t, const send_options &so, clock::time_point end)
    {
        doca_error_t rc;
        backoff wait;
        for (;;) {
            rc = doca_task_submit(t);
            if (rc != DOCA_ERROR_AGAIN)
                return rc;
            ++again;
            if (clock::now() > end)
                return rc;
            if (so.pump)
                so.pump();
            else
                wait.pause();
        }
    }

    // Progresses this producer's engine until every submitted send has completed.
    bool wait_completions(std::chrono::milliseconds timeout = 5000ms,
                          const std::function<void()> &pump = {})
    {
        auto end = clock::now() + timeout;
        while (in_flight_ > 0) {
            if (clock::now() > end)
                return false;
            group_.round(1);
            if (pump)
                pump();
        }
        return true;
    }

    doca_error_t stop_and_wait(std::chrono::milliseconds timeout = 5000ms)
    {
        doca_error_t rc = doca_ctx_stop(ctx_);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            return rc;
        return group_.until([&] { return state() == DOCA_CTX_STATE_IDLE; }, timeout)
                   ? DOCA_SUCCESS
                   : DOCA_ERROR_TIME_OUT;
    }

    doca_error_t destroy()
    {
        if (!prod_)
            return DOCA_SUCCESS;
        doca_error_t rc = doca_comch_producer_destroy(prod_);
        if (rc == DOCA_SUCCESS) {
            prod_ = nullptr;
            ctx_ = nullptr;
        } else {
            std::fprintf(stderr, "[pid %d] doca_comch_producer_destroy: %s\n", int(getpid()),
                         err_name(rc).c_str());
        }
        return rc;
    }

    // Task user data of a send task the test built and submitted itself: the completion callback
    // counts it, releases its buf and frees it, without touching the source-slot bookkeeping.
    static constexpr uint64_t kExternal = UINT64_MAX;

    size_t ok_count = 0, err_count = 0, submitted = 0;
    uint64_t again = 0;
    std::vector<doca_error_t> err_statuses;
    doca_error_t last_alloc_rc = DOCA_SUCCESS;
    std::function<void(producer &, doca_comch_producer_task_send *, doca_error_t)> on_complete;
    std::vector<doca_ctx_states> states;
    doca_error_t create_rc = DOCA_ERROR_UNKNOWN;
    doca_error_t setup_rc = DOCA_ERROR_UNKNOWN;

private:
    doca_error_t setup()
    {
        doca_error_t rc;
        if ((rc = doca_pe_connect_ctx(pe_, ctx_)) != DOCA_SUCCESS)
            return rc;
        union doca_data d;
        d.ptr = this;
        if ((rc = doca_ctx_set_user_data(ctx_, d)) != DOCA_SUCCESS)
            return rc;
        doca_ctx_set_state_changed_cb(
            ctx_, [](const union doca_data ud, doca_ctx *, doca_ctx_states, doca_ctx_states next) {
                static_cast<producer *>(ud.ptr)->states.push_back(next);
            });
        return doca_comch_producer_task_send_set_conf(prod_, send_done, send_done, opt_.num_tasks);
    }

    static void send_done(doca_comch_producer_task_send *task, union doca_data task_ud,
                          union doca_data ctx_ud)
    {
        auto *p = static_cast<producer *>(ctx_ud.ptr);
        doca_error_t st = doca_task_get_status(doca_comch_producer_task_send_as_task(task));
        if (st == DOCA_SUCCESS) {
            ++p->ok_count;
        } else {
            ++p->err_count;
            p->err_statuses.push_back(st);
        }
        if (p->on_complete)
            p->on_complete(*p, task, st);
        auto *buf = const_cast<doca_buf *>(doca_comch_producer_task_send_get_buf(task));
        if (buf)
            doca_buf_dec_refcount(buf, nullptr);
        doca_task_free(doca_comch_producer_task_send_as_task(task));
        if (task_ud.u64 == kExternal)
            return;
        p->free_slots_.push_back(size_t(task_ud.u64));
        --p->in_flight_;
    }

    producer_options opt_;
    region mem_;
    pe_group group_;
    doca_pe *pe_ = nullptr;
    bool own_pe_ = true;
    doca_comch_producer *prod_ = nullptr;
    doca_ctx *ctx_ = nullptr;
    std::vector<size_t> free_slots_;
    size_t in_flight_ = 0;
};

// ---- server and client that record consumer events ----

struct consumer_event {
    doca_comch_connection *conn;
    uint32_t id;
};

class consumer_events {
public:
    std::vector<consumer_event> news() const
    {
        std::lock_guard<std::mutex> g(mu_);
        return news_;
    }
    std::vector<consumer_event> expired() const
    {
        std::lock_guard<std::mutex> g(mu_);
        return expired_;
    }
    size_t news_count() const
    {
        std::lock_guard<std::mutex> g(mu_);
        return news_.size();
    }
    bool has_new(uint32_t id) const
    {
        std::lock_guard<std::mutex> g(mu_);
        return std::any_of(news_.begin(), news_.end(),
                           [id](const consumer_event &e) { return e.id == id; });
    }
    bool has_expired(uint32_t id) const
    {
        std::lock_guard<std::mutex> g(mu_);
        return std::any_of(expired_.begin(), expired_.end(),
                           [id](const consumer_event &e) { return e.id == id; });
    }
    doca_error_t events_rc = DOCA_ERROR_UNKNOWN;

protected:
    void on_new(doca_comch_connection *c, uint32_t id)
    {
        std::lock_guard<std::mutex> g(mu_);
        news_.push_back({c, id});
    }
    void on_expired(doca_comch_connection *c, uint32_t id)
    {
        std::lock_guard<std::mutex> g(mu_);
        expired_.push_back({c, id});
    }

private:
    mutable std::mutex mu_;
    std::vector<consumer_event> news_, expired_;
};

class fp_server : public server, public consumer_events {
public:
    explicit fp_server(const std::string &name, server_options o = {}) : server(name, o)
    {
        if (!ok())
            return;
        events_rc = doca_comch_server_event_consumer_register(
            handle(),
            [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
                self(conn)->on_new(conn, id);
            },
            [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
                self(conn)->on_expired(conn, id);
            });
    }
    doca_dev *dev() const
    {
        doca_dev *d = nullptr;
        doca_comch_server_get_device(handle(), &d);
        return d;
    }
    bool wait_connection(std::chrono::milliseconds t = 10000ms)
    {
        return progress_until([&] { return !connections.empty(); }, t);
    }

private:
    static fp_server *self(doca_comch_connection *conn)
    {
        return static_cast<fp_server *>(
            of(doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn))));
    }
};

class fp_client : public client, public consumer_events {
public:
    explicit fp_client(const std::string &name, client_options o = {}) : client(name, o)
    {
        if (!ok())
            return;
        events_rc = doca_comch_client_event_consumer_register(
            handle(),
            [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
                self(conn)->on_new(conn, id);
            },
            [](doca_comch_event_consumer *, doca_comch_connection *conn, uint32_t id) {
                self(conn)->on_expired(conn, id);
            });
    }
    doca_dev *dev() const
    {
        doca_dev *d = nullptr;
        doca_comch_client_get_device(handle(), &d);
        return d;
    }

private:
    static fp_client *self(doca_comch_connection *conn)
    {
        return static_cast<fp_client *>(
            of(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn))));
    }
};

// ---- control-channel helpers ----

// Waits for a control message starting with `prefix` (progressing `s`, and `also` if given) and
// takes it out of s.received; other messages stay queued in order. The rest of the text goes to
// `rest`.
inline bool expect_msg(side &s, const std::string &prefix, std::string *rest = nullptr,
                       std::chrono::milliseconds timeout = 5000ms, doca_pe *also = nullptr)
{
    auto take = [&] {
        for (auto it = s.received.begin(); it != s.received.end(); ++it)
            if (it->data.compare(0, prefix.size(), prefix) == 0) {
                if (rest)
                    *rest = it->data.substr(prefix.size());
                s.received.erase(it);
                return true;
            }
        return false;
    };
    if (take())
        return true;
    if (also) {
        pe_group g({s.pe(), also});
        return g.until(take, timeout);
    }
    return s.progress_until(take, timeout);
}

inline uint64_t parse_u64(const std::string &s)
{
    return std::strtoull(s.c_str(), nullptr, 10);
}

// Sends `text` on `conn`, then progresses until the send task completed.
inline doca_error_t send_ctrl(side &s, doca_comch_connection *conn, const std::string &text,
                              std::chrono::milliseconds timeout = 5000ms)
{
    size_t before = s.send_ok + s.send_err;
    doca_error_t rc = s.send(conn, text);
    if (rc != DOCA_SUCCESS)
        return rc;
    if (!s.progress_until([&] { return s.send_ok + s.send_err > before; }, timeout))
        return DOCA_ERROR_TIME_OUT;
    return DOCA_SUCCESS;
}

// Environment helpers (stress knobs).
inline long env_long(const char *name, long dflt)
{
    const char *v = std::getenv(name);
    if (!v || !*v)
        return dflt;
    return std::strtol(v, nullptr, 10);
}

inline std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string strf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

// ---- shared flows: functions that return an error text ("" = success), usable in the parent
// (EXPECT_EQ(f(...), "")) and in children (CHILD_CHECK_MSG) alike ----

#define REQ(cond)                                                                                  \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return ::sc_test::fp::strf("%s:%d: %s", __FILE__, __LINE__, #cond);                    \
    } while (0)
#define REQ_MSG(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return ::sc_test::fp::strf("%s:%d: %s: ", __FILE__, __LINE__, #cond) +                 \
                   ::sc_test::fp::strf(__VA_ARGS__);                                               \
    } while (0)
#define REQ_EQ(a, b)                                                                               \
    do {                                                                                           \
        auto &&req_a_ = (a);                                                                       \
        auto &&req_b_ = (b);                                                                       \
        if (!(req_a_ == req_b_))                                                                   \
            return ::sc_test::fp::strf("%s:%d: %s == %s (%s vs %s)", __FILE__, __LINE__, #a, #b,   \
                                       ::sc_test::fp::show(req_a_).c_str(),                        \
                                       ::sc_test::fp::show(req_b_).c_str());                       \
    } while (0)
// Propagates the error text of a nested flow.
#define REQ_OK(expr)                                                                               \
    do {                                                                                           \
        std::string req_e_ = (expr);                                                               \
        if (!req_e_.empty())                                                                       \
            return req_e_;                                                                         \
    } while (0)

inline std::string errs_to_string(const std::vector<doca_error_t> &v)
{
    // Appends, not `"," + std::string` (g++ 12 warns falsely on that operator when optimizing:
    // -Wrestrict, GCC bug 105651).
    std::string s = "[";
    for (auto e : v) {
        if (s.size() > 1)
            s += ',';
        s += err_name(e);
    }
    return s + ']';
}

inline std::string states_to_string(const std::vector<doca_ctx_states> &v)
{
    std::string s = "["; // appends: see errs_to_string()
    for (auto e : v) {
        if (s.size() > 1)
            s += ',';
        s += state_name(e);
    }
    return s + ']';
}

inline std::string join(const std::vector<std::string> &v)
{
    std::string s; // appends: see errs_to_string()
    for (auto &e : v) {
        if (!s.empty())
            s += "; ";
        s += e;
    }
    return s;
}

// ---- connection set-up and orderly end, shared by parent and child code ----

inline bool establish(fp_server &s, doca_comch_connection *&conn,
                      std::chrono::milliseconds t = 10000ms)
{
    if (!s.wait_connection(t))
        return false;
    conn = s.connections.front();
    return true;
}

inline bool establish(fp_client &c, doca_comch_connection *&conn,
                      std::chrono::milliseconds t = 10000ms)
{
    if (!c.wait_running(t))
        return false;
    conn = c.connection();
    return conn != nullptr;
}

inline doca_error_t expected_start_rc(const fp_server &)
{
    return DOCA_SUCCESS;
}
inline doca_error_t expected_start_rc(const fp_client &)
{
    return DOCA_ERROR_IN_PROGRESS;
}

// Both sides: say "fin" and wait for the peer's (each side destroys its fast-path objects before).
inline std::string exchange_fin(side &s, doca_comch_connection *conn)
{
    doca_error_t rc = send_ctrl(s, conn, "fin");
    REQ_EQ(rc, DOCA_SUCCESS);
    REQ_MSG(expect_msg(s, "fin", nullptr, 10000ms), "no \"fin\" from the peer");
    return "";
}

inline std::string finish(fp_server &s, doca_comch_connection *conn)
{
    std::string e = exchange_fin(s, conn);
    if (!e.empty())
        return e;
    REQ_MSG(s.progress_until([&] { return !s.disconnected.empty(); }, 10000ms),
            "client did not disconnect");
    REQ_EQ(s.stop_and_wait(), DOCA_SUCCESS);
    return "";
}

inline std::string finish(fp_client &c, doca_comch_connection *conn)
{
    std::string e = exchange_fin(c, conn);
    if (!e.empty())
        return e;
    REQ_EQ(c.stop_and_wait(), DOCA_SUCCESS);
    return "";
}

// A whole side in a child process: start, connect, body, orderly end.
template <class S>
inline int run_side(const std::string &name, bool epoll,
                    const std::function<std::string(S &, doca_comch_connection *)> &body)
{
    S s(name);
    CHILD_CHECK(s.ok());
    CHILD_CHECK_EQ(s.events_rc, DOCA_SUCCESS);
    s.set_epoll_mode(epoll);
    CHILD_CHECK_EQ(s.start(), expected_start_rc(s));
    doca_comch_connection *conn = nullptr;
    CHILD_CHECK(establish(s, conn));
    std::string err = body(s, conn);
    CHILD_CHECK_MSG(err.empty(), "%s", err.c_str());
    err = finish(s, conn);
    CHILD_CHECK_MSG(err.empty(), "%s", err.c_str());
    return 0;
}

// Waits for the peer's "cid <id>" and for this side's new-consumer event with that id.
inline std::string learn_remote_consumer(side &s, consumer_events &ev, doca_comch_connection *conn,
                                         uint32_t &cid, const char *prefix = "cid ")
{
    std::string rest;
    REQ_MSG(expect_msg(s, prefix, &rest, 10000ms), "no \"%s\" message", prefix);
    cid = uint32_t(parse_u64(rest));
    REQ_MSG(cid != 0, "consumer id 0 announced");
    uint32_t id = cid;
    REQ_MSG(s.progress_until([&] { return ev.has_new(id); }, 5000ms),
            "no new-consumer event for id %u", id);
    for (auto &e : ev.news())
        if (e.id == id)
            REQ_MSG(e.conn == conn, "new-consumer event for %u on another connection", id);
    return "";
}

// Starts a consumer and waits until it runs (progressing its engine and the connection's).
inline std::string start_consumer(consumer &c, side &s)
{
    REQ_MSG(c.ok(), "consumer set-up failed: create %s, setup %s", err_name(c.create_rc).c_str(),
            err_name(c.setup_rc).c_str());
    REQ_MSG(c.id() != 0, "consumer id is 0");
    REQ_EQ(c.start(), DOCA_ERROR_IN_PROGRESS);
    REQ_EQ(c.state(), DOCA_CTX_STATE_STARTING);
    REQ_MSG(c.wait_running(s.pe(), 10000ms), "consumer not RUNNING (state %s)",
            state_name(c.state()).c_str());
    return "";
}

inline std::string start_producer(producer &p)
{
    REQ_MSG(p.ok(), "producer set-up failed: create %s, setup %s", err_name(p.create_rc).c_str(),
            err_name(p.setup_rc).c_str());
    REQ_EQ(p.start(), DOCA_SUCCESS);
    REQ_EQ(p.state(), DOCA_CTX_STATE_RUNNING);
    REQ_MSG(p.id() != 0, "producer id is 0");
    return "";
}

} // namespace sc_test::fp
