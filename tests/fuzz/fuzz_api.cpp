// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: random sequences of public DOCA calls (include/ only) in one process, on a fabric
// of its own: devices, representors, progress engines, Comch servers and clients, send tasks,
// mmaps, inventories and bufs, consumers and producers with their tasks, in any order, with
// fuzzed sizes and counts, NULL arguments, calls in the wrong state, calls from inside
// callbacks, and stale handles where a header documents that they are refused (closed devices,
// connections of a context that has not reached IDLE, released bufs of a live inventory).
//
// Input: records of 8 bytes [op, a, b, c, v0..v3] (v: a little-endian u32), at most 192.
// Op CB_NEXT stores the record after it; that record then runs inside the next callback.
// After the last record every object is stopped (both engines progressed until every context
// is IDLE, bounded) and destroyed, so every input starts from the same empty process.
//
// For any input:
//   - nothing crashes, trips a sanitizer or throws;
//   - every doca_error_t returned is a defined code, and one the header documents for that call;
//   - once both engines have been progressed, every context reaches IDLE within 3 s of stop;
//   - then everything can be destroyed, and no descriptor and no endpoint file is left behind.
#define DOCA_ALLOW_EXPERIMENTAL_API 1

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_target.hpp"

using softcomch::fuzz::invariant_failed;

namespace {

// ---- return codes -------------------------------------------------------------------------------

constexpr uint32_t bit(doca_error_t e)
{
    return 1u << unsigned(e);
}
constexpr uint32_t OK = bit(DOCA_SUCCESS);
constexpr uint32_t INVAL = bit(DOCA_ERROR_INVALID_VALUE);
constexpr uint32_t STATE = bit(DOCA_ERROR_BAD_STATE);
constexpr uint32_t NOMEM = bit(DOCA_ERROR_NO_MEMORY);
constexpr uint32_t INUSE = bit(DOCA_ERROR_IN_USE);
constexpr uint32_t NOPERM = bit(DOCA_ERROR_NOT_PERMITTED);
constexpr uint32_t NOTSUP = bit(DOCA_ERROR_NOT_SUPPORTED);
constexpr uint32_t NOTCONN = bit(DOCA_ERROR_NOT_CONNECTED);
constexpr uint32_t AGAIN = bit(DOCA_ERROR_AGAIN);
constexpr uint32_t INPROG = bit(DOCA_ERROR_IN_PROGRESS);
constexpr uint32_t NOTFOUND = bit(DOCA_ERROR_NOT_FOUND);

bool g_trace = false; // FUZZ_API_TRACE=1: every checked call and its result on stderr

// A return value must be a defined code and one the header documents for `call`.
doca_error_t check(const char *call, doca_error_t e, uint32_t documented)
{
    const auto v = static_cast<uint32_t>(e);
    if (g_trace)
        std::fprintf(stderr, "fuzz_api: %s -> %u\n", call, v);
    if (v > uint32_t(DOCA_ERROR_SKIPPED) || (documented & (1u << v)) == 0) {
        std::fprintf(stderr, "fuzz_api: %s returned %u (%s), not documented for it\n", call, v,
                     v <= uint32_t(DOCA_ERROR_SKIPPED) ? doca_error_get_name(e) : "undefined");
        invariant_failed();
    }
    return e;
}
#define CHECK(call, documented) check(#call, (call), (documented))

// ---- the process-wide fabric of this fuzzer -----------------------------------------------------

std::string g_dir; // XDG_RUNTIME_DIR of this process
size_t g_fds = 0;  // the library's descriptors between inputs

size_t count_entries(const std::string &path)
{
    size_t n = 0;
    if (DIR *d = opendir(path.c_str())) {
        while (dirent *e = readdir(d))
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n;
}

// Descriptors of the kinds the library opens: sockets, memfds, eventfds, timerfds, epoll sets
// and files of the fabric. (The fuzz engine opens others of its own, e.g. pipes to the
// symbolizer.)
bool library_kind(const std::string &target)
{
    return target.rfind("socket:", 0) == 0 || target.rfind("anon_inode:", 0) == 0 ||
           target.rfind("/memfd:", 0) == 0 || target.rfind(g_dir, 0) == 0;
}

size_t count_library_fds()
{
    size_t n = 0;
    if (DIR *d = opendir("/proc/self/fd")) {
        while (dirent *e = readdir(d)) {
            char target[256] = {};
            const std::string path = std::string("/proc/self/fd/") + e->d_name;
            if (e->d_name[0] != '.' && readlink(path.c_str(), target, sizeof target - 1) > 0)
                n += library_kind(target);
        }
        closedir(d);
    }
    return n;
}

// What the descriptors are (for the report of a leak).
void list_fds()
{
    if (DIR *d = opendir("/proc/self/fd")) {
        while (dirent *e = readdir(d)) {
            if (e->d_name[0] == '.')
                continue;
            char target[256] = {};
            const std::string path = std::string("/proc/self/fd/") + e->d_name;
            if (readlink(path.c_str(), target, sizeof target - 1) > 0)
                std::fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
        }
        closedir(d);
    }
}

void remove_dir()
{
    if (!g_dir.empty()) {
        const std::string cmd = "rm -rf '" + g_dir + "'";
        (void)std::system(cmd.c_str());
    }
}

void init_process()
{
    char tmpl[] = "/tmp/softcomch-fuzz-api-XXXXXX";
    if (mkdtemp(tmpl) == nullptr)
        invariant_failed();
    g_dir = tmpl;
    std::atexit(remove_dir);
    setenv("XDG_RUNTIME_DIR", g_dir.c_str(), 1);
    setenv("SOFTCOMCH_FABRIC", ("fuzz-api-" + std::to_string(getpid())).c_str(), 1);
    unsetenv("SOFTCOMCH_TOPOLOGY");
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_LOG_LEVEL");
    g_trace = std::getenv("FUZZ_API_TRACE") != nullptr;
    // Every refusal logs a line: keep the fuzzer's output readable.
    if (!g_trace) {
        (void)doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
        (void)doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DISABLE);
    }
}

// ---- the objects of one input ------------------------------------------------------------------

constexpr size_t k_mem = 64 * 1024;
alignas(4096) uint8_t g_memory[2][k_mem];

enum ctx_slot { SRV0, SRV1, CLI0, CLI1, CONS0, CONS1, PROD0, PROD1, NCTX };

struct held_task {
    doca_task *task;
    doca_ctx *owner;
};

struct conn_ref {
    doca_comch_connection *conn;
    doca_ctx *owner; // valid (stale or not) until the owner reaches IDLE
};

struct world {
    doca_devinfo **list = nullptr;
    uint32_t nlist = 0;
    doca_devinfo *info[2] = {}; // DPU 03:00.0, host b1:00.0
    doca_dev *dev[2] = {};      // last handle (kept when closed: stale, documented)
    uint32_t dev_opens[2] = {};
    doca_devinfo_rep **reps = nullptr;
    uint32_t nreps = 0;
    doca_dev_rep *rep = nullptr;
    uint32_t rep_opens = 0;
    doca_pe *pe[2] = {};
    doca_comch_server *srv[2] = {};
    doca_comch_client *cli[2] = {};
    doca_comch_consumer *cons[2] = {};
    doca_comch_producer *prod[2] = {};
    doca_mmap *mmap[2] = {};
    bool mmap_range[2] = {};
    doca_buf_inventory *inv = nullptr;
    std::vector<doca_buf *> bufs;     // taken, reference count 1
    std::vector<doca_buf *> released; // released again: stale, documented while the inventory lives
    // The buf each live task names. A task only ever gets a live buf, and a buf a task names is
    // not released (DOCA: the buffer stays valid while a task uses it).
    struct task_buf {
        doca_task *task;
        doca_ctx *owner;
        doca_buf *buf;
    };
    std::vector<task_buf> task_bufs;
    std::vector<held_task> held; // allocated or completed, not in flight
    size_t inflight = 0;
    std::vector<conn_ref> conns;
    std::vector<uint32_t> consumer_ids; // from the consumer events
    bool have_cb_record = false;
    uint8_t cb_record[8] = {};
    int depth = 0; // callback nesting
    bool cleaning = false;
};

world *g = nullptr;

doca_ctx *ctx_of(unsigned slot)
{
    switch (slot % NCTX) {
    case SRV0:
    case SRV1:
        return g->srv[slot & 1] ? doca_comch_server_as_ctx(g->srv[slot & 1]) : nullptr;
    case CLI0:
    case CLI1:
        return g->cli[slot & 1] ? doca_comch_client_as_ctx(g->cli[slot & 1]) : nullptr;
    case CONS0:
    case CONS1:
        return g->cons[slot & 1] ? doca_comch_consumer_as_ctx(g->cons[slot & 1]) : nullptr;
    default:
        return g->prod[slot & 1] ? doca_comch_producer_as_ctx(g->prod[slot & 1]) : nullptr;
    }
}

doca_ctx_states state_of(doca_ctx *c)
{
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    CHECK(doca_ctx_get_state(c, &s), OK);
    return s;
}

void step(const uint8_t *r);

// Runs the stored record inside a callback (once), unless cleaning up.
void callback_hook()
{
    if (!g->have_cb_record || g->cleaning || g->depth > 2)
        return;
    g->have_cb_record = false;
    uint8_t r[8];
    std::memcpy(r, g->cb_record, sizeof r);
    ++g->depth;
    step(r);
    --g->depth;
}

// Frees a task the program holds, and forgets the buf it named.
void free_task(doca_task *t)
{
    std::erase_if(g->task_bufs, [&](const auto &tb) { return tb.task == t; });
    doca_task_free(t);
}

bool named_by_task(const doca_buf *b)
{
    return std::any_of(g->task_bufs.begin(), g->task_bufs.end(),
                       [&](const auto &tb) { return tb.buf == b; });
}

// ---- callbacks ----------------------------------------------------------------------------------

void on_state(const union doca_data, doca_ctx *ctx, doca_ctx_states, doca_ctx_states next)
{
    if (next == DOCA_CTX_STATE_IDLE) {
        // The owner's closed connections may be reclaimed from here on: forget them.
        std::erase_if(g->conns, [&](const conn_ref &c) { return c.owner == ctx; });
    }
    callback_hook();
}

void remember_conn(doca_comch_connection *conn, doca_ctx *owner)
{
    for (const conn_ref &c : g->conns)
        if (c.conn == conn)
            return;
    g->conns.push_back({conn, owner});
}

void on_recv(doca_comch_event_msg_recv *, uint8_t *buf, uint32_t len, doca_comch_connection *conn)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < len; ++i)
        sum += buf[i]; // the whole message is readable
    (void)sum;
    (void)conn;
    callback_hook();
}

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                uint8_t ok)
{
    doca_comch_server *s = doca_comch_server_get_server_ctx(conn);
    if (ok && s != nullptr)
        remember_conn(conn, doca_comch_server_as_ctx(s));
    callback_hook();
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t)
{
    callback_hook(); // kept: stale until the server reaches IDLE
}

void on_consumer(doca_comch_event_consumer *, doca_comch_connection *, uint32_t id)
{
    if (g->consumer_ids.size() < 16)
        g->consumer_ids.push_back(id);
    callback_hook();
}

// Task completions: the task is held again (freed by an op or at cleanup), or freed here.
void task_done(doca_task *t)
{
    if (g->inflight == 0)
        invariant_failed(); // a completion for nothing in flight
    --g->inflight;
    const doca_error_t st = doca_task_get_status(t);
    if (static_cast<uint32_t>(st) > uint32_t(DOCA_ERROR_SKIPPED))
        invariant_failed();
    if (g->held.size() < 64 && (reinterpret_cast<uintptr_t>(t) >> 6) % 2 == 0)
        g->held.push_back({t, doca_task_get_ctx(t)});
    else
        free_task(t);
    callback_hook();
}
void send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    task_done(doca_comch_task_send_as_task(t));
}
void recv_done(doca_comch_consumer_task_post_recv *t, union doca_data, union doca_data)
{
    task_done(doca_comch_consumer_task_post_recv_as_task(t));
}
void prod_done(doca_comch_producer_task_send *t, union doca_data, union doca_data)
{
    task_done(doca_comch_producer_task_send_as_task(t));
}

// ---- argument choices ---------------------------------------------------------------------------

uint32_t value_of(uint32_t v)
{
    static constexpr uint32_t specials[] = {0,    1,    2,     16,    64,          4080,
                                            4081, 8192, 65536, 65537, 0x7fffffffu, 0xffffffffu};
    const uint32_t pick = v >> 28;
    if (pick < std::size(specials))
        return specials[pick];
    return pick == 12 ? v & 0xfff : v & 0x0fffffffu;
}

const char *name_of(uint8_t b)
{
    static const std::string longest(120, 'n'), too_long(300, 'n');
    switch (b % 6) {
    case 0:
    case 1:
        return "fuzz-server";
    case 2:
        return "other";
    case 3:
        return "";
    case 4:
        return longest.c_str();
    default:
        return too_long.c_str();
    }
}

doca_comch_connection *conn_of(uint8_t b)
{
    if (b % 4 == 3 || g->conns.empty()) {
        // The client's own connection (documented BAD_STATE before RUNNING).
        doca_comch_client *cli = g->cli[(b >> 2) & 1];
        doca_comch_connection *c = nullptr;
        if (cli != nullptr &&
            CHECK(doca_comch_client_get_connection(cli, &c), OK | STATE) == DOCA_SUCCESS)
            return c;
        return nullptr;
    }
    return g->conns[(b >> 2) % g->conns.size()].conn;
}

doca_buf *buf_of(uint8_t b)
{
    if (g->bufs.empty() || b == 0xff)
        return nullptr;
    return g->bufs[b % g->bufs.size()];
}

void devices()
{
    if (g->list != nullptr)
        return;
    CHECK(doca_devinfo_create_list(&g->list, &g->nlist), OK);
    const char *want[2] = {"03:00.0", "b1:00.0"};
    for (uint32_t i = 0; i < g->nlist; ++i)
        for (int k = 0; k < 2; ++k) {
            uint8_t eq = 0;
            if (doca_devinfo_is_equal_pci_addr(g->list[i], want[k], &eq) == DOCA_SUCCESS && eq &&
                g->info[k] == nullptr)
                g->info[k] = g->list[i];
        }
    if (g->info[0] == nullptr || g->info[1] == nullptr)
        invariant_failed();
}

// ---- the operations -----------------------------------------------------------------------------

enum op : uint8_t {
    OPEN_DEV,
    CLOSE_DEV,
    OPEN_REP,
    CLOSE_REP,
    PE_CREATE,
    PE_DESTROY,
    PROGRESS,
    SERVER_CREATE,
    CLIENT_CREATE,
    CTX_SET,
    CTX_CONNECT,
    CTX_START,
    CTX_STOP,
    CTX_DESTROY,
    SEND_ALLOC,
    TASK_SUBMIT,
    TASK_FREE,
    MMAP_OP,
    INVENTORY_OP,
    CONSUMER_CREATE,
    PRODUCER_CREATE,
    POST_RECV,
    PRODUCER_SEND,
    DISCONNECT,
    CONN_OP,
    NULL_CALL,
    NOTIFY,
    CB_NEXT,
    OP_COUNT
};

void register_ctx(doca_ctx *c)
{
    union doca_data d;
    d.ptr = g;
    CHECK(doca_ctx_set_user_data(c, d), OK);
    CHECK(doca_ctx_set_state_changed_cb(c, on_state), OK);
}

// Takes the task out of the held list.
doca_task *take_held(uint8_t b)
{
    if (g->held.empty())
        return nullptr;
    const size_t i = b % g->held.size();
    doca_task *t = g->held[i].task;
    g->held.erase(g->held.begin() + std::ptrdiff_t(i));
    return t;
}

void submit(doca_task *t, uint8_t how)
{
    // doca_pe.h, plus the task-specific codes of doca_comch.h (NOT_CONNECTED), the consumer's
    // (AGAIN, NOT_CONNECTED) and the producer's (AGAIN, NOT_FOUND, INVALID_VALUE, NOT_CONNECTED).
    const uint32_t doc = OK | INVAL | STATE | AGAIN | NOTCONN | NOTFOUND;
    doca_error_t e;
    if (how % 3 == 0)
        e = CHECK(doca_task_submit(t), doc);
    else if (how % 3 == 1)
        e = CHECK(doca_task_try_submit(t), doc);
    else
        e = CHECK(doca_task_submit_ex(t, how >> 2), doc);
    if (e == DOCA_SUCCESS)
        ++g->inflight;
    else
        g->held.push_back({t, doca_task_get_ctx(t)});
}

void ctx_set(unsigned slot, uint8_t which, uint32_t v)
{
    const unsigned s = slot % NCTX;
    const uint32_t set = OK | INVAL | STATE;
    switch (s) {
    case SRV0:
    case SRV1: {
        doca_comch_server *x = g->srv[s & 1];
        switch (which % 5) {
        case 0:
            CHECK(doca_comch_server_set_max_msg_size(x, v), set);
            break;
        case 1:
            CHECK(doca_comch_server_set_recv_queue_size(x, v), set);
            break;
        case 2:
            CHECK(doca_comch_server_task_send_set_conf(x, send_done, send_done, v), set);
            break;
        case 3:
            CHECK(doca_comch_server_event_msg_recv_register(x, on_recv), set);
            CHECK(doca_comch_server_event_connection_status_changed_register(x, on_connect,
                                                                             on_disconnect),
                  set);
            break;
        default:
            CHECK(doca_comch_server_event_consumer_register(x, on_consumer, on_consumer), set);
            break;
        }
        break;
    }
    case CLI0:
    case CLI1: {
        doca_comch_client *x = g->cli[s & 1];
        switch (which % 5) {
        case 0:
            CHECK(doca_comch_client_set_max_msg_size(x, v), set);
            break;
        case 1:
            CHECK(doca_comch_client_set_recv_queue_size(x, v), set);
            break;
        case 2:
            CHECK(doca_comch_client_task_send_set_conf(x, send_done, send_done, v), set);
            break;
        case 3:
            CHECK(doca_comch_client_event_msg_recv_register(x, on_recv), set);
            break;
        default:
            CHECK(doca_comch_client_event_consumer_register(x, on_consumer, on_consumer), set);
            break;
        }
        break;
    }
    case CONS0:
    case CONS1:
        if (which % 2 == 0)
            CHECK(doca_comch_consumer_set_imm_data_len(g->cons[s & 1], v), set);
        else
            CHECK(doca_comch_consumer_task_post_recv_set_conf(g->cons[s & 1], recv_done, recv_done,
                                                              v),
                  set);
        break;
    default:
        CHECK(doca_comch_producer_task_send_set_conf(g->prod[s & 1], prod_done, prod_done, v), set);
        break;
    }
}

// Drops what a destroyed context owned (its tasks in the held list).
void forget_ctx(doca_ctx *c)
{
    std::erase_if(g->held, [&](const held_task &h) { return h.owner == c; });
    std::erase_if(g->task_bufs, [&](const auto &tb) { return tb.owner == c; });
    std::erase_if(g->conns, [&](const conn_ref &r) { return r.owner == c; });
}

void ctx_destroy(unsigned slot)
{
    const unsigned s = slot % NCTX;
    doca_ctx *c = ctx_of(s);
    const uint32_t doc = OK | INVAL | INUSE | STATE;
    doca_error_t e;
    switch (s) {
    case SRV0:
    case SRV1:
        e = CHECK(doca_comch_server_destroy(g->srv[s & 1]), doc);
        if (e == DOCA_SUCCESS)
            g->srv[s & 1] = nullptr;
        break;
    case CLI0:
    case CLI1:
        e = CHECK(doca_comch_client_destroy(g->cli[s & 1]), doc);
        if (e == DOCA_SUCCESS)
            g->cli[s & 1] = nullptr;
        break;
    case CONS0:
    case CONS1:
        e = CHECK(doca_comch_consumer_destroy(g->cons[s & 1]), doc);
        if (e == DOCA_SUCCESS)
            g->cons[s & 1] = nullptr;
        break;
    default:
        e = CHECK(doca_comch_producer_destroy(g->prod[s & 1]), doc);
        if (e == DOCA_SUCCESS)
            g->prod[s & 1] = nullptr;
        break;
    }
    if (e == DOCA_SUCCESS)
        forget_ctx(c);
}

void mmap_op(uint8_t slot, uint8_t action, uint8_t where, uint32_t v)
{
    const unsigned i = slot & 1;
    doca_mmap *m = g->mmap[i];
    switch (action % 8) {
    case 0:
        if (m == nullptr)
            CHECK(doca_mmap_create(&g->mmap[i]), OK | NOMEM);
        break;
    case 1: {
        const size_t off = size_t(where) * 64;
        const size_t len = std::min<size_t>(value_of(v) & 0x1ffff, k_mem - off);
        if (CHECK(doca_mmap_set_memrange(m, g_memory[i] + off, len), OK | INVAL | STATE | NOPERM) ==
            DOCA_SUCCESS)
            g->mmap_range[i] = true;
        break;
    }
    case 2:
        CHECK(doca_mmap_add_dev(m, g->dev[v & 1]),
              OK | INVAL | NOPERM | bit(DOCA_ERROR_ALREADY_EXIST) | NOMEM | STATE);
        break;
    case 3:
        CHECK(doca_mmap_set_permissions(m, v & 0x7f), OK | INVAL | STATE);
        break;
    case 4:
        CHECK(doca_mmap_start(m), OK | INVAL | STATE | NOMEM);
        break;
    case 5:
        CHECK(doca_mmap_stop(m), OK | INVAL | STATE | NOPERM);
        break;
    case 6:
        if (CHECK(doca_mmap_destroy(m), OK | INVAL | NOPERM) == DOCA_SUCCESS && m) {
            g->mmap[i] = nullptr;
            g->mmap_range[i] = false;
        }
        break;
    default:
        CHECK(doca_mmap_rm_dev(m, g->dev[v & 1]), OK | INVAL | NOPERM | NOTFOUND | STATE);
        break;
    }
}

void inventory_op(uint8_t action, uint8_t b, uint8_t where, uint32_t v)
{
    doca_buf_inventory *inv = g->inv;
    switch (action % 6) {
    case 0:
        if (inv == nullptr)
            CHECK(doca_buf_inventory_create(value_of(v) % 64, &g->inv), OK | INVAL | NOMEM);
        break;
    case 1:
        CHECK(doca_buf_inventory_start(inv), OK | INVAL | STATE | NOMEM);
        break;
    case 2:
        CHECK(doca_buf_inventory_stop(inv), OK | INVAL | STATE | INUSE);
        break;
    case 3:
        if (CHECK(doca_buf_inventory_destroy(inv), OK | INVAL | INUSE) == DOCA_SUCCESS && inv) {
            g->inv = nullptr;
            g->bufs.clear(); // every buf was released (else IN_USE)
            g->released.clear();
        }
        break;
    case 4: {
        // A buf over part of a map's memory (or outside it: documented INVALID_VALUE).
        const unsigned i = b & 1;
        const size_t off = size_t(where) * 64;
        const size_t len = std::min<size_t>(value_of(v) & 0x3fff, k_mem - off);
        doca_buf *buf = nullptr;
        if (CHECK(doca_buf_inventory_buf_get_by_data(inv, g->mmap[i], g_memory[i] + off, len, &buf),
                  OK | INVAL | STATE | NOMEM) != DOCA_SUCCESS)
            break;
        std::erase(g->released, buf); // a descriptor handed out again is live
        if (g->bufs.size() < 32) {
            g->bufs.push_back(buf);
        } else {
            uint16_t rc = 0;
            CHECK(doca_buf_dec_refcount(buf, &rc), OK);
        }
        break;
    }
    default: {
        // A stale buf (documented BAD_STATE), or a live one no task names (then it is released).
        uint16_t rc = 0;
        if (b & 1) {
            if (!g->released.empty())
                CHECK(doca_buf_dec_refcount(g->released[(b >> 1) % g->released.size()], &rc),
                      STATE);
            break;
        }
        doca_buf *buf = buf_of(b >> 1);
        if (buf == nullptr || named_by_task(buf))
            break;
        // rc: the count before the call (doca_buf.h).
        if (CHECK(doca_buf_dec_refcount(buf, &rc), OK) == DOCA_SUCCESS && rc == 1) {
            std::erase(g->bufs, buf);
            g->released.push_back(buf);
        }
        break;
    }
    }
}

void null_call(uint8_t which)
{
    // NULL where every header says DOCA_ERROR_INVALID_VALUE.
    uint32_t u = 0;
    doca_dev *dev = nullptr;
    doca_comch_client *cli = nullptr;
    doca_comch_consumer *cons = nullptr;
    switch (which % 12) {
    case 0:
        CHECK(doca_devinfo_create_list(nullptr, &u), INVAL);
        break;
    case 1:
        CHECK(doca_dev_open(nullptr, &dev), INVAL);
        break;
    case 2:
        CHECK(doca_pe_create(nullptr), INVAL);
        break;
    case 3:
        CHECK(doca_comch_server_create(g->dev[0], g->rep, "x", nullptr), INVAL);
        break;
    case 4:
        CHECK(doca_comch_client_create(nullptr, "x", &cli), INVAL);
        break;
    case 5:
        CHECK(doca_ctx_start(nullptr), INVAL);
        break;
    case 6:
        CHECK(doca_ctx_stop(nullptr), INVAL);
        break;
    case 7:
        CHECK(doca_task_submit(nullptr), INVAL);
        break;
    case 8:
        CHECK(doca_pe_connect_ctx(g->pe[0], nullptr), INVAL);
        break;
    case 9:
        CHECK(doca_comch_server_task_send_alloc_init(g->srv[0], nullptr, "x", 1, nullptr), INVAL);
        break;
    case 10:
        CHECK(doca_comch_consumer_create(nullptr, g->mmap[0], &cons), INVAL);
        break;
    default:
        CHECK(doca_buf_inventory_buf_get_by_data(g->inv, nullptr, g_memory[0], 1, nullptr), INVAL);
        break;
    }
}

void progress_both(bool polling)
{
    for (doca_pe *pe : g->pe) {
        if (pe == nullptr)
            continue;
        if (!polling)
            CHECK(doca_pe_clear_notification(pe, 0), OK);
        (void)doca_pe_progress(pe);
    }
}

void step(const uint8_t *r)
{
    const uint8_t a = r[1], b = r[2], c = r[3];
    uint32_t v;
    std::memcpy(&v, r + 4, 4);
    const unsigned i = a & 1;
    switch (static_cast<op>(r[0] % OP_COUNT)) {
    case OPEN_DEV:
        devices();
        if (CHECK(doca_dev_open(g->info[i], &g->dev[i]), OK | NOMEM) == DOCA_SUCCESS)
            ++g->dev_opens[i];
        break;
    case CLOSE_DEV:
        // A closed device's handle stays in dev[]: closing it again is documented INVALID_VALUE.
        if (g->dev[i] != nullptr &&
            CHECK(doca_dev_close(g->dev[i]), OK | INVAL | INUSE) == DOCA_SUCCESS)
            --g->dev_opens[i];
        break;
    case OPEN_REP: {
        if (g->reps == nullptr &&
            CHECK(doca_devinfo_rep_create_list(g->dev[0], DOCA_DEVINFO_REP_FILTER_NET, &g->reps,
                                               &g->nreps),
                  OK | INVAL | NOTSUP | NOMEM) != DOCA_SUCCESS)
            break;
        if (g->nreps == 0)
            break;
        if (CHECK(doca_dev_rep_open(g->reps[0], &g->rep), OK | NOPERM | STATE | NOMEM | INVAL) ==
            DOCA_SUCCESS)
            ++g->rep_opens;
        break;
    }
    case CLOSE_REP:
        if (g->rep != nullptr &&
            CHECK(doca_dev_rep_close(g->rep), OK | INVAL | INUSE) == DOCA_SUCCESS)
            --g->rep_opens;
        break;
    case PE_CREATE:
        if (g->pe[i] == nullptr)
            CHECK(doca_pe_create(&g->pe[i]), OK | NOMEM | bit(DOCA_ERROR_OPERATING_SYSTEM));
        break;
    case PE_DESTROY:
        if (g->pe[i] != nullptr &&
            CHECK(doca_pe_destroy(g->pe[i]), OK | INUSE | INVAL) == DOCA_SUCCESS)
            g->pe[i] = nullptr;
        break;
    case PROGRESS:
        // As an event loop does (clear, then progress: the descriptors are looked at on every
        // call), or plain polling when c is odd (they are looked at once a millisecond).
        for (unsigned k = 0; k < 1u + b % 32; ++k)
            progress_both(c & 1);
        break;
    case SERVER_CREATE:
        if (g->srv[i] == nullptr &&
            CHECK(doca_comch_server_create(g->dev[0], g->rep, name_of(b), &g->srv[i]),
                  OK | INVAL | NOTSUP | NOMEM) == DOCA_SUCCESS) {
            register_ctx(doca_comch_server_as_ctx(g->srv[i]));
            if (c & 1) {
                CHECK(doca_comch_server_event_msg_recv_register(g->srv[i], on_recv), OK);
                CHECK(doca_comch_server_event_connection_status_changed_register(
                          g->srv[i], on_connect, on_disconnect),
                      OK);
                CHECK(doca_comch_server_task_send_set_conf(g->srv[i], send_done, send_done, 16),
                      OK);
                CHECK(
                    doca_comch_server_event_consumer_register(g->srv[i], on_consumer, on_consumer),
                    OK);
            }
        }
        break;
    case CLIENT_CREATE:
        if (g->cli[i] == nullptr &&
            CHECK(doca_comch_client_create(g->dev[(c & 2) ? 0 : 1], name_of(b), &g->cli[i]),
                  OK | INVAL | NOTSUP | NOMEM) == DOCA_SUCCESS) {
            register_ctx(doca_comch_client_as_ctx(g->cli[i]));
            if (c & 1) {
                CHECK(doca_comch_client_event_msg_recv_register(g->cli[i], on_recv), OK);
                CHECK(doca_comch_client_task_send_set_conf(g->cli[i], send_done, send_done, 16),
                      OK);
                CHECK(
                    doca_comch_client_event_consumer_register(g->cli[i], on_consumer, on_consumer),
                    OK);
            }
        }
        break;
    case CTX_SET:
        ctx_set(a, b, value_of(v));
        break;
    case CTX_CONNECT:
        CHECK(doca_pe_connect_ctx(g->pe[b & 1], ctx_of(a)), OK | INVAL | NOPERM | STATE);
        break;
    case CTX_START:
        // IN_USE: a server or client started again while consumers or producers of its
        // previous connections exist (docs/failure-model.md, "Lifetimes").
        CHECK(doca_ctx_start(ctx_of(a)), OK | INPROG | INVAL | NOTCONN | STATE | NOTSUP |
                                             bit(DOCA_ERROR_INITIALIZATION) |
                                             bit(DOCA_ERROR_ALREADY_EXIST) |
                                             bit(DOCA_ERROR_BAD_CONFIG) | bit(DOCA_ERROR_IN_USE));
        break;
    case CTX_STOP:
        CHECK(doca_ctx_stop(ctx_of(a)), OK | INPROG | INVAL | NOTCONN);
        break;
    case CTX_DESTROY:
        ctx_destroy(a);
        break;
    case SEND_ALLOC: {
        static uint8_t msg[65536 + 1];
        const uint32_t len = std::min<uint32_t>(value_of(v), sizeof msg);
        doca_comch_task_send *t = nullptr;
        doca_error_t e;
        const uint32_t doc = OK | INVAL | NOMEM | STATE | NOTCONN;
        if (a & 2)
            e = CHECK(doca_comch_client_task_send_alloc_init(g->cli[i], conn_of(b), msg, len, &t),
                      doc);
        else
            e = CHECK(doca_comch_server_task_send_alloc_init(g->srv[i], conn_of(b), msg, len, &t),
                      doc);
        if (e != DOCA_SUCCESS)
            break;
        if (c & 1)
            submit(doca_comch_task_send_as_task(t), c >> 1);
        else
            g->held.push_back({doca_comch_task_send_as_task(t),
                               doca_task_get_ctx(doca_comch_task_send_as_task(t))});
        break;
    }
    case TASK_SUBMIT:
        if (doca_task *t = take_held(a))
            submit(t, b);
        break;
    case TASK_FREE:
        if (doca_task *t = take_held(a))
            free_task(t);
        break;
    case MMAP_OP:
        mmap_op(a, b, c, v);
        break;
    case INVENTORY_OP:
        inventory_op(a, b, c, v);
        break;
    case CONSUMER_CREATE:
        if (g->cons[i] == nullptr &&
            CHECK(doca_comch_consumer_create(conn_of(b), g->mmap[c & 1], &g->cons[i]),
                  OK | INVAL | STATE | NOPERM | NOMEM) == DOCA_SUCCESS)
            register_ctx(doca_comch_consumer_as_ctx(g->cons[i]));
        break;
    case PRODUCER_CREATE:
        if (g->prod[i] == nullptr && CHECK(doca_comch_producer_create(conn_of(b), &g->prod[i]),
                                           OK | INVAL | STATE | NOPERM | NOMEM) == DOCA_SUCCESS)
            register_ctx(doca_comch_producer_as_ctx(g->prod[i]));
        break;
    case POST_RECV: {
        doca_comch_consumer_task_post_recv *t = nullptr;
        if (CHECK(doca_comch_consumer_task_post_recv_alloc_init(g->cons[i], buf_of(b), &t),
                  OK | INVAL | NOMEM | STATE | NOTCONN) != DOCA_SUCCESS)
            break;
        doca_task *gt = doca_comch_consumer_task_post_recv_as_task(t);
        g->task_bufs.push_back({gt, doca_task_get_ctx(gt), buf_of(b)});
        if (c & 1)
            submit(gt, c >> 1);
        else
            g->held.push_back({gt, doca_task_get_ctx(gt)});
        break;
    }
    case PRODUCER_SEND: {
        uint8_t imm[40];
        std::memset(imm, int(c), sizeof imm);
        const uint32_t id = g->consumer_ids.empty() || (v & 0x80000000u)
                                ? v & 0xff
                                : g->consumer_ids[v % g->consumer_ids.size()];
        doca_comch_producer_task_send *t = nullptr;
        if (CHECK(doca_comch_producer_task_send_alloc_init(g->prod[i], buf_of(b), imm,
                                                           (c >> 1) % 40, id, &t),
                  OK | INVAL | NOMEM | STATE) != DOCA_SUCCESS)
            break;
        doca_task *gt = doca_comch_producer_task_send_as_task(t);
        g->task_bufs.push_back({gt, doca_task_get_ctx(gt), buf_of(b)});
        if (c & 1)
            submit(gt, a >> 1);
        else
            g->held.push_back({gt, doca_task_get_ctx(gt)});
        break;
    }
    case DISCONNECT:
        CHECK(doca_comch_server_disconnect(g->srv[i], conn_of(b)),
              OK | INVAL | INUSE | AGAIN | STATE | NOTCONN);
        break;
    case CONN_OP: {
        doca_comch_connection *conn = conn_of(a);
        uint64_t val = 0;
        union doca_data d;
        d.u64 = v;
        switch (b % 4) {
        case 0:
            CHECK(doca_comch_connection_update_info(conn),
                  OK | INVAL | bit(DOCA_ERROR_CONNECTION_INPROGRESS) |
                      bit(DOCA_ERROR_CONNECTION_ABORTED));
            break;
        case 1:
            CHECK(doca_comch_connection_get_counter(
                      conn, static_cast<doca_comch_counter>(1 + c % 4), &val),
                  OK | INVAL);
            break;
        case 2:
            CHECK(doca_comch_connection_set_user_data(conn, d), OK | INVAL);
            break;
        default:
            (void)doca_comch_connection_get_user_data(conn);
            (void)doca_comch_server_get_server_ctx(conn);
            (void)doca_comch_client_get_client_ctx(conn);
            break;
        }
        break;
    }
    case NULL_CALL:
        null_call(a);
        break;
    case NOTIFY: {
        doca_notification_handle_t h = -1;
        doca_pe *pe = g->pe[i];
        switch (b % 4) {
        case 0:
            CHECK(doca_pe_get_notification_handle(pe, &h), OK | INVAL);
            break;
        case 1:
            CHECK(doca_pe_request_notification(pe), OK | INVAL | bit(DOCA_ERROR_OPERATING_SYSTEM));
            break;
        case 2:
            CHECK(doca_pe_clear_notification(pe, 0), OK | INVAL);
            break;
        default: {
            size_t n = 0;
            CHECK(doca_pe_get_num_inflight_tasks(pe, &n), OK | INVAL);
            CHECK(doca_ctx_get_num_inflight_tasks(ctx_of(c), &n), OK | INVAL);
            break;
        }
        }
        break;
    }
    case CB_NEXT:
    case OP_COUNT:
        break; // handled by the caller
    }
}

// ---- the end of every input: stop, progress, destroy, compare ----------------------------------

bool all_idle()
{
    for (unsigned s = 0; s < NCTX; ++s)
        if (doca_ctx *c = ctx_of(s); c != nullptr && state_of(c) != DOCA_CTX_STATE_IDLE)
            return false;
    return true;
}

void cleanup()
{
    g->cleaning = true;
    g->have_cb_record = false;
    // Producers and consumers first, then clients, then servers; progress both engines.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (int round = 0;; ++round) {
        for (int s = NCTX - 1; s >= 0; --s)
            if (doca_ctx *c = ctx_of(unsigned(s)); c != nullptr)
                if (state_of(c) == DOCA_CTX_STATE_RUNNING || state_of(c) == DOCA_CTX_STATE_STARTING)
                    CHECK(doca_ctx_stop(c), OK | INPROG | NOTCONN);
        progress_both(false);
        if (all_idle())
            break;
        if (round > 64 && std::chrono::steady_clock::now() > deadline) {
            std::fprintf(stderr, "fuzz_api: contexts still not IDLE 3 s after stop\n");
            invariant_failed();
        }
    }
    if (g->inflight != 0) {
        std::fprintf(stderr, "fuzz_api: %zu tasks in flight after every context is IDLE\n",
                     g->inflight);
        invariant_failed();
    }
    for (const held_task &h : g->held)
        free_task(h.task);
    g->held.clear();
    for (int s = NCTX - 1; s >= 0; --s)
        if (ctx_of(unsigned(s)) != nullptr) {
            ctx_destroy(unsigned(s));
            if (ctx_of(unsigned(s)) != nullptr) {
                std::fprintf(stderr, "fuzz_api: an IDLE context could not be destroyed\n");
                invariant_failed();
            }
        }
    for (doca_buf *b : g->bufs) {
        uint16_t before = 2;
        while (before > 1 && doca_buf_dec_refcount(b, &before) == DOCA_SUCCESS) {
        }
    }
    g->bufs.clear();
    if (g->inv != nullptr)
        CHECK(doca_buf_inventory_destroy(g->inv), OK);
    for (doca_mmap *m : g->mmap)
        if (m != nullptr)
            CHECK(doca_mmap_destroy(m), OK);
    for (doca_pe *pe : g->pe)
        if (pe != nullptr)
            CHECK(doca_pe_destroy(pe), OK);
    for (; g->rep_opens > 0; --g->rep_opens)
        CHECK(doca_dev_rep_close(g->rep), OK);
    if (g->reps != nullptr)
        CHECK(doca_devinfo_rep_destroy_list(g->reps), OK);
    for (int k = 0; k < 2; ++k)
        for (; g->dev_opens[k] > 0; --g->dev_opens[k])
            CHECK(doca_dev_close(g->dev[k]), OK);
    if (g->list != nullptr)
        CHECK(doca_devinfo_destroy_list(g->list), OK);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool initialised = false;
    if (!initialised) {
        init_process();
        initialised = true;
        g_fds = count_library_fds();
    }
    world w;
    g = &w;
    const size_t n = std::min<size_t>(size / 8, 192);
    for (size_t k = 0; k < n; ++k) {
        const uint8_t *r = data + 8 * k;
        if (r[0] % OP_COUNT == CB_NEXT && k + 1 < n) {
            std::memcpy(w.cb_record, data + 8 * (k + 1), 8);
            w.have_cb_record = true;
            ++k;
            continue;
        }
        step(r);
    }
    cleanup();
    g = nullptr;
    // Nothing left behind: descriptors, endpoint sockets and info files.
    const size_t fds = count_library_fds();
    const std::string fabric = g_dir + "/softcomch/fuzz-api-" + std::to_string(getpid());
    if (fds != g_fds || count_entries(fabric) != 0) {
        std::fprintf(stderr, "fuzz_api: %zu descriptors open (%zu before), %zu fabric entries\n",
                     fds, g_fds, count_entries(fabric));
        list_fds();
        invariant_failed();
    }
    return 0;
}

// ---- seeds: call sequences of real programs ------------------------------------------------------

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    std::vector<uint8_t> s;
    auto rec = [&](op o, uint8_t a = 0, uint8_t b = 0, uint8_t c = 0, uint32_t v = 0) {
        const uint8_t r[8] = {
            uint8_t(o), a, b, c, uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
        s.insert(s.end(), r, r + 8);
    };
    auto progress = [&](int times) {
        for (int k = 0; k < times; ++k)
            rec(PROGRESS, 0, 31);
    };
    // A control-path pair, as NVIDIA's comch_ctrl_path samples do it: devices, representor,
    // engines, server and client configured, started, a message each way, stopped.
    auto ctrl_path = [&]() {
        rec(OPEN_DEV, 0);
        rec(OPEN_DEV, 1);
        rec(OPEN_REP);
        rec(PE_CREATE, 0);
        rec(PE_CREATE, 1);
        rec(SERVER_CREATE, 0, 0, 1);
        rec(CTX_SET, SRV0, 1, 0, 3u << 28); // recv queue 16
        rec(CTX_CONNECT, SRV0, 0);
        rec(CTX_START, SRV0);
        rec(CLIENT_CREATE, 0, 0, 1);
        rec(CTX_CONNECT, CLI0, 1);
        rec(CTX_START, CLI0);
        progress(4);
    };
    ctrl_path();
    rec(SEND_ALLOC, 2, 3, 1, 4u << 28); // client -> server, 64 bytes, submitted
    rec(SEND_ALLOC, 0, 0, 1, 5u << 28); // server -> client on its first connection, 4080 bytes
    rec(SEND_ALLOC, 0, 0, 1, 6u << 28); // 4081 bytes: documented INVALID_VALUE
    progress(4);
    rec(CONN_OP, 0, 0);
    rec(CONN_OP, 0, 1, 0);
    rec(CTX_STOP, CLI0);
    progress(2);
    rec(CTX_STOP, SRV0);
    out.emplace_back("ctrl_path.bin", s);

    // The fast path: memory, inventory, a consumer on the server's connection, a producer on the
    // client's, a posted receive and a send.
    s.clear();
    ctrl_path();
    rec(MMAP_OP, 0, 0);
    rec(MMAP_OP, 0, 1, 0, 13u << 28 | 0x10000); // memrange: all 64 KiB
    rec(MMAP_OP, 0, 2, 0, 0);                   // add the DPU device
    rec(MMAP_OP, 0, 3, 0, 0x21);                // local + PCI read-write
    rec(MMAP_OP, 0, 4);
    rec(INVENTORY_OP, 0, 0, 0, 4u << 28);      // 64 % 64 = 0 elements: INVALID_VALUE
    rec(INVENTORY_OP, 0, 0, 0, 13u << 28 | 8); // 8 elements
    rec(INVENTORY_OP, 1);
    rec(INVENTORY_OP, 4, 0, 0, 13u << 28 | 4096);
    rec(CONSUMER_CREATE, 0, 0, 0);
    rec(CTX_SET, CONS0, 1, 0, 3u << 28); // 16 post-recv tasks
    rec(CTX_CONNECT, CONS0, 0);
    rec(CTX_START, CONS0);
    progress(4);
    rec(PRODUCER_CREATE, 0, 3);
    rec(CTX_SET, PROD0, 0, 0, 3u << 28);
    rec(CTX_CONNECT, PROD0, 1);
    rec(CTX_START, PROD0);
    rec(POST_RECV, 0, 0, 1);
    progress(4);
    rec(PRODUCER_SEND, 0, 0, 1, 0);
    progress(4);
    rec(CTX_STOP, PROD0);
    rec(CTX_STOP, CONS0);
    progress(2);
    out.emplace_back("fast_path.bin", s);

    // Misuse: destroy in the wrong order, stop inside a callback, NULLs, stale devices.
    s.clear();
    ctrl_path();
    rec(CB_NEXT);
    rec(CTX_STOP, SRV0);
    rec(SEND_ALLOC, 2, 3, 1, 4u << 28);
    progress(3);
    rec(PE_DESTROY, 0);
    rec(CTX_DESTROY, SRV0);
    rec(CLOSE_DEV, 0);
    rec(CLOSE_DEV, 0);
    rec(CLOSE_REP);
    for (uint8_t k = 0; k < 12; ++k)
        rec(NULL_CALL, k);
    rec(CB_NEXT);
    rec(CTX_DESTROY, CLI0);
    rec(CTX_STOP, CLI0);
    progress(3);
    out.emplace_back("misuse.bin", s);

    // Settings at and beyond the limits before a start.
    s.clear();
    rec(OPEN_DEV, 0);
    rec(OPEN_DEV, 1);
    rec(OPEN_REP);
    rec(PE_CREATE, 0);
    rec(SERVER_CREATE, 1, 4, 1);
    for (uint8_t w = 0; w < 5; ++w)
        for (uint32_t pick : {0u, 1u, 3u, 6u, 11u})
            rec(CTX_SET, SRV1, w, 0, pick << 28);
    rec(CTX_CONNECT, SRV1, 0);
    rec(CTX_START, SRV1);
    rec(SERVER_CREATE, 0, 4, 1);
    rec(CTX_CONNECT, SRV0, 0);
    rec(CTX_START, SRV0); // the same name: documented ALREADY_EXIST
    rec(CLIENT_CREATE, 1, 5, 1);
    rec(CLIENT_CREATE, 1, 3, 1);
    progress(2);
    out.emplace_back("limits.bin", s);
    return out;
}

} // namespace softcomch::fuzz
