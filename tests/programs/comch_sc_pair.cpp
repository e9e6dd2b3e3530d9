// SPDX-License-Identifier: Apache-2.0
//
// A DPU/host pair shaped like NVIDIA's applications/secure_channel, written for this project:
//   - the main thread of each side owns the control path (a server on the DPU side, a client on
//     the host side) and keeps progressing it while two worker threads run;
//   - each side tells the other how many fast-path messages of which size it will send;
//   - a producer thread and a consumer thread, each with its own doca_pe, move the data over one
//     connection in both directions; the producer resubmits from its completion callback, the
//     consumer re-posts from its own;
//   - the consumer's teardown is secure_channel's: it drops its bufs' references and frees its
//     posted receive tasks while they are still in flight, then stops the consumer and
//     progresses until IDLE; device close, free() of the memory and mmap destroy follow in
//     that (unusual) order.
// Unlike secure_channel every fast-path message carries a sequence number and a checksum, and the
// consumer checks both (one producer to one consumer is FIFO).
//
// With --hold-connection the host side's main thread stops progressing the control path until
// its consumer is RUNNING (the DPU side keeps progressing, so it accepts that consumer), as NVIDIA's dpu_gpu_remote_offload does while a worker waits on the consumer's own
// engine: the consumer must reach RUNNING through its own engine alone.
//
// Usage: comch_sc_pair -s SIZE -n COUNT [--role both|dpu|host] [--timeout SECONDS] [--hold-connection]
//   both (default): forks the DPU side, runs the host side; exit 0 only if both sides moved every
//   message intact and tore down cleanly.
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

#include <arpa/inet.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "program_util.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

constexpr const char *k_name = "comch-sc-pair";
constexpr uint32_t k_max_tasks = 1024; // secure_channel's MAX_FASTPATH_TASKS

enum class role { dpu, host };

struct meta_msg {
    uint32_t type; // 1 start, 2 end (network order)
    uint32_t num_msgs;
    uint32_t msg_size;
};

enum class fp_state { init, running, complete, error };

// Shared by the main thread (control path) and the two workers.
struct side_ctx {
    role r = role::host;
    uint32_t send_num = 0, send_size = 0; // what this side sends
    std::atomic<int64_t> expected{0};     // what the peer sends (0: not known yet)
    std::atomic<uint32_t> expected_size{0};
    std::atomic<bool> end_received{false};
    std::atomic<uint32_t> consumer_id{0}; // the peer's consumer, for our producer
    std::atomic<int> active_threads{0};
    doca_comch_connection *conn = nullptr;
    std::atomic<bool> failed{false};
    std::atomic<bool> consumer_running{false};
    bool hold_connection = false;
    clock_type::time_point deadline;
    uint64_t produced = 0, consumed = 0;
};

side_ctx *g_side = nullptr;

void fail(const char *what)
{
    std::fprintf(stderr, "comch_sc_pair[%s]: %s\n", g_side->r == role::dpu ? "dpu" : "host", what);
    g_side->failed = true;
}

bool timed_out()
{
    return clock_type::now() > g_side->deadline;
}

const char *pci_of(role r)
{
    return r == role::dpu ? "03:00.0" : "b1:00.0";
}

// ---- local memory: device, mmap, inventory (secure_channel's prepare_local_memory) ----

struct local_mem {
    doca_dev *dev = nullptr;
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    uint8_t *data = nullptr;
};

bool prepare_local_memory(local_mem &m, role r, size_t buf_len, uint32_t num, uint32_t perms)
{
    m.dev = sc_prog::open_dev(pci_of(r));
    if (!m.dev)
        return false;
    size_t len = buf_len * num;
    m.data = static_cast<uint8_t *>(aligned_alloc(64, (len + 63) & ~size_t(63)));
    if (!m.data)
        return false;
    return doca_mmap_create(&m.mmap) == DOCA_SUCCESS &&
           doca_mmap_set_permissions(m.mmap, perms) == DOCA_SUCCESS &&
           doca_mmap_add_dev(m.mmap, m.dev) == DOCA_SUCCESS &&
           doca_mmap_set_memrange(m.mmap, m.data, len) == DOCA_SUCCESS &&
           doca_mmap_start(m.mmap) == DOCA_SUCCESS &&
           doca_buf_inventory_create(num, &m.inv) == DOCA_SUCCESS &&
           doca_buf_inventory_start(m.inv) == DOCA_SUCCESS;
}

// secure_channel's destroy_local_memory order: device first, then the memory, then the mmap.
void destroy_local_memory(local_mem &m)
{
    (void)doca_dev_close(m.dev);
    free(m.data);
    (void)doca_mmap_destroy(m.mmap);
    (void)doca_buf_inventory_destroy(m.inv);
}

void wait_state(doca_pe *pe, doca_ctx *ctx, doca_ctx_states want)
{
    struct timespec ts = {0, 10000};
    doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    (void)doca_ctx_get_state(ctx, &s);
    while (s != want && !timed_out()) {
        (void)doca_pe_progress(pe);
        nanosleep(&ts, nullptr);
        (void)doca_ctx_get_state(ctx, &s);
    }
    if (s != want)
        fail("a context did not reach the expected state in time");
}

// ---- producer thread ----

struct producer_ctx {
    fp_state state = fp_state::init;
    uint32_t total = 0, submitted = 0, completed = 0, size = 0;
    local_mem *mem = nullptr;
};

void refill(producer_ctx *p, doca_comch_producer_task_send *task, uint64_t seq)
{
    const doca_buf *buf = doca_comch_producer_task_send_get_buf(task);
    void *data = nullptr;
    doca_buf_get_data(buf, &data);
    sc_prog::fill_msg(static_cast<uint8_t *>(data), p->size, seq, 1);
}

void send_done(doca_comch_producer_task_send *task, union doca_data, union doca_data ctx_ud)
{
    auto *p = static_cast<producer_ctx *>(ctx_ud.ptr);
    if (p->state != fp_state::running)
        return;
    if (++p->completed == p->total) {
        p->state = fp_state::complete;
        return;
    }
    if (p->submitted == p->total)
        return;
    refill(p, task, p->submitted);
    doca_error_t rc;
    do {
        rc = doca_task_submit(doca_comch_producer_task_send_as_task(task));
    } while (rc == DOCA_ERROR_AGAIN && !timed_out());
    if (rc != DOCA_SUCCESS) {
        fail("producer resubmit failed");
        p->state = fp_state::error;
        return;
    }
    ++p->submitted;
}

void send_fail(doca_comch_producer_task_send *, union doca_data, union doca_data ctx_ud)
{
    auto *p = static_cast<producer_ctx *>(ctx_ud.ptr);
    if (p->state == fp_state::complete)
        return;
    fail("a producer send failed");
    p->state = fp_state::error;
}

void run_producer()
{
    side_ctx &s = *g_side;
    producer_ctx p;
    p.total = s.send_num;
    p.size = s.send_size;
    const uint32_t tasks = std::min(p.total, k_max_tasks);
    local_mem mem;
    p.mem = &mem;
    std::vector<doca_comch_producer_task_send *> task(tasks, nullptr);
    std::vector<doca_buf *> bufs(tasks, nullptr);
    doca_pe *pe = nullptr;
    doca_comch_producer *producer = nullptr;
    union doca_data ud {};
    ud.ptr = &p;
    if (!prepare_local_memory(mem, s.r, p.size, tasks, DOCA_ACCESS_FLAG_PCI_READ_ONLY) ||
        doca_pe_create(&pe) != DOCA_SUCCESS ||
        doca_comch_producer_create(s.conn, &producer) != DOCA_SUCCESS) {
        fail("producer set-up failed");
        s.active_threads--;
        return;
    }
    doca_ctx *ctx = doca_comch_producer_as_ctx(producer);
    if (doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS ||
        doca_comch_producer_task_send_set_conf(producer, send_done, send_fail, tasks) !=
            DOCA_SUCCESS ||
        doca_ctx_set_user_data(ctx, ud) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS) {
        fail("producer configuration or start failed");
    } else {
        for (uint32_t i = 0; i < tasks; ++i)
            if (doca_buf_inventory_buf_get_by_data(mem.inv, mem.mmap, mem.data + size_t(i) * p.size,
                                                   p.size, &bufs[i]) != DOCA_SUCCESS)
                fail("producer buf");
        // Wait for the peer's consumer (learned on the main thread's engine).
        while (s.consumer_id.load() == 0 && !timed_out())
            std::this_thread::sleep_for(std::chrono::microseconds(10));
        p.state = fp_state::running;
        for (uint32_t i = 0; i < tasks && !s.failed; ++i) {
            if (doca_comch_producer_task_send_alloc_init(producer, bufs[i], nullptr, 0,
                                                         s.consumer_id.load(),
                                                         &task[i]) != DOCA_SUCCESS) {
                fail("producer task alloc failed");
                break;
            }
            refill(&p, task[i], p.submitted);
            doca_error_t rc;
            do {
                rc = doca_task_submit(doca_comch_producer_task_send_as_task(task[i]));
            } while (rc == DOCA_ERROR_AGAIN && !timed_out());
            if (rc != DOCA_SUCCESS) {
                fail("producer submit failed");
                break;
            }
            ++p.submitted;
        }
        while (p.state == fp_state::running && !s.failed && !timed_out())
            (void)doca_pe_progress(pe);
        if (p.state != fp_state::complete)
            fail("the producer did not complete");
    }
    // secure_channel's teardown.
    for (uint32_t i = 0; i < tasks; ++i)
        if (task[i])
            doca_task_free(doca_comch_producer_task_send_as_task(task[i]));
    for (uint32_t i = 0; i < tasks; ++i)
        if (bufs[i])
            doca_buf_dec_refcount(bufs[i], nullptr);
    doca_error_t rc = doca_ctx_stop(ctx);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        fail("producer stop failed");
    wait_state(pe, ctx, DOCA_CTX_STATE_IDLE);
    if (doca_comch_producer_destroy(producer) != DOCA_SUCCESS ||
        doca_pe_destroy(pe) != DOCA_SUCCESS)
        fail("producer destroy failed");
    destroy_local_memory(mem);
    s.produced = p.completed;
    s.active_threads--;
}

// ---- consumer thread ----

struct consumer_ctx {
    fp_state state = fp_state::init;
    uint64_t total = 0, completed = 0;
    uint32_t size = 0;
    uint32_t bad = 0;
};

void recv_done(doca_comch_consumer_task_post_recv *task, union doca_data, union doca_data ctx_ud)
{
    auto *c = static_cast<consumer_ctx *>(ctx_ud.ptr);
    doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    void *data = nullptr;
    size_t len = 0;
    doca_buf_get_data(buf, &data);
    doca_buf_get_data_len(buf, &len);
    if (len != c->size ||
        !sc_prog::check_msg(static_cast<uint8_t *>(data), uint32_t(len), c->completed, 1))
        ++c->bad;
    if (++c->completed == c->total)
        c->state = fp_state::complete;
    if (doca_buf_reset_data_len(buf) != DOCA_SUCCESS ||
        doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS) {
        fail("consumer re-post failed");
        c->state = fp_state::error;
    }
}

void recv_fail(doca_comch_consumer_task_post_recv *, union doca_data, union doca_data ctx_ud)
{
    auto *c = static_cast<consumer_ctx *>(ctx_ud.ptr);
    if (c->state == fp_state::complete)
        return; // flushed by the stop: expected
    fail("a consumer receive failed");
    c->state = fp_state::error;
}

void run_consumer()
{
    side_ctx &s = *g_side;
    consumer_ctx c;
    c.total = uint64_t(s.expected.load());
    c.size = s.expected_size.load();
    const uint32_t tasks = uint32_t(std::min<uint64_t>(c.total, k_max_tasks));
    local_mem mem;
    std::vector<doca_comch_consumer_task_post_recv *> task(tasks, nullptr);
    std::vector<doca_buf *> bufs(tasks, nullptr);
    doca_pe *pe = nullptr;
    doca_comch_consumer *consumer = nullptr;
    union doca_data ud {};
    ud.ptr = &c;
    if (!prepare_local_memory(mem, s.r, c.size, tasks, DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
        doca_pe_create(&pe) != DOCA_SUCCESS ||
        doca_comch_consumer_create(s.conn, mem.mmap, &consumer) != DOCA_SUCCESS) {
        fail("consumer set-up failed");
        s.active_threads--;
        return;
    }
    doca_ctx *ctx = doca_comch_consumer_as_ctx(consumer);
    if (doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS ||
        doca_comch_consumer_task_post_recv_set_conf(consumer, recv_done, recv_fail, tasks) !=
            DOCA_SUCCESS ||
        doca_ctx_set_user_data(ctx, ud) != DOCA_SUCCESS ||
        doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS) {
        fail("consumer configuration or start failed");
    } else {
        wait_state(pe, ctx, DOCA_CTX_STATE_RUNNING);
        s.consumer_running = true;
        c.state = fp_state::running;
        for (uint32_t i = 0; i < tasks && !s.failed; ++i) {
            if (doca_buf_inventory_buf_get_by_addr(mem.inv, mem.mmap, mem.data + size_t(i) * c.size,
                                                   c.size, &bufs[i]) != DOCA_SUCCESS ||
                doca_comch_consumer_task_post_recv_alloc_init(consumer, bufs[i], &task[i]) !=
                    DOCA_SUCCESS ||
                doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task[i])) !=
                    DOCA_SUCCESS) {
                fail("consumer post failed");
                break;
            }
        }
        while (c.state == fp_state::running && !s.failed && !timed_out())
            (void)doca_pe_progress(pe);
        if (c.state != fp_state::complete)
            fail("the consumer did not complete");
        if (c.bad)
            fail("corrupt or out-of-order fast-path messages");
    }
    // secure_channel's teardown: the posted receives are still in flight here.
    for (uint32_t i = 0; i < tasks; ++i) {
        if (bufs[i])
            doca_buf_dec_refcount(bufs[i], nullptr);
        if (task[i])
            doca_task_free(doca_comch_consumer_task_post_recv_as_task(task[i]));
    }
    doca_error_t rc = doca_ctx_stop(ctx);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        fail("consumer stop failed");
    wait_state(pe, ctx, DOCA_CTX_STATE_IDLE);
    if (doca_comch_consumer_destroy(consumer) != DOCA_SUCCESS ||
        doca_pe_destroy(pe) != DOCA_SUCCESS)
        fail("consumer destroy failed");
    destroy_local_memory(mem);
    s.consumed = c.completed;
    s.active_threads--;
}

// ---- control path (main thread) ----

void on_recv(doca_comch_event_msg_recv *, uint8_t *msg, uint32_t len, doca_comch_connection *)
{
    if (len != sizeof(meta_msg)) {
        fail("unexpected control message");
        return;
    }
    meta_msg m;
    std::memcpy(&m, msg, sizeof m);
    if (ntohl(m.type) == 2) {
        g_side->end_received = true;
        return;
    }
    g_side->expected_size = ntohl(m.msg_size);
    g_side->expected = int64_t(ntohl(m.num_msgs));
}

void on_new_consumer(doca_comch_event_consumer *, doca_comch_connection *, uint32_t id)
{
    g_side->consumer_id = id;
}

void on_expired_consumer(doca_comch_event_consumer *, doca_comch_connection *, uint32_t) {}

std::atomic<bool> g_connected{false}, g_disconnected{false};

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *conn,
                uint8_t ok)
{
    if (ok) {
        g_side->conn = conn;
        g_connected = true;
    }
}

void on_disconnect(doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t)
{
    g_disconnected = true;
}

void on_send_done(doca_comch_task_send *t, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(t));
}

void on_send_fail(doca_comch_task_send *t, union doca_data, union doca_data)
{
    fail("a control send failed");
    doca_task_free(doca_comch_task_send_as_task(t));
}

meta_msg g_meta_out[2]; // stay valid until their sends complete

void send_meta(doca_pe *pe, doca_comch_server *srv, doca_comch_client *cli, uint32_t type, int slot)
{
    meta_msg &m = g_meta_out[slot];
    m.type = htonl(type);
    m.num_msgs = htonl(g_side->send_num);
    m.msg_size = htonl(g_side->send_size);
    doca_comch_task_send *t = nullptr;
    doca_error_t rc;
    do {
        rc = srv ? doca_comch_server_task_send_alloc_init(srv, g_side->conn, &m, sizeof m, &t)
                 : doca_comch_client_task_send_alloc_init(cli, g_side->conn, &m, sizeof m, &t);
        if (rc == DOCA_ERROR_NO_MEMORY)
            (void)doca_pe_progress(pe);
    } while (rc == DOCA_ERROR_NO_MEMORY && !timed_out());
    if (rc != DOCA_SUCCESS || doca_task_submit(doca_comch_task_send_as_task(t)) != DOCA_SUCCESS)
        fail("control send failed");
}

int run_side(role r, uint32_t size, uint32_t num, int timeout_s, bool hold)
{
    side_ctx s;
    s.hold_connection = hold;
    s.r = r;
    s.send_num = num;
    s.send_size = size;
    s.deadline = clock_type::now() + std::chrono::seconds(timeout_s);
    g_side = &s;

    doca_dev *dev = sc_prog::open_dev(pci_of(r));
    doca_dev_rep *rep = r == role::dpu && dev ? sc_prog::open_rep(dev, "b1:00.0") : nullptr;
    doca_pe *pe = nullptr;
    doca_comch_server *srv = nullptr;
    doca_comch_client *cli = nullptr;
    if (!dev || (r == role::dpu && !rep) || doca_pe_create(&pe) != DOCA_SUCCESS) {
        fail("device or engine set-up failed");
        return 1;
    }
    doca_ctx *ctx = nullptr;
    bool ok;
    if (r == role::dpu) {
        ok = doca_comch_server_create(dev, rep, k_name, &srv) == DOCA_SUCCESS;
        ctx = ok ? doca_comch_server_as_ctx(srv) : nullptr;
        ok = ok && doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS &&
             doca_comch_server_task_send_set_conf(srv, on_send_done, on_send_fail, 1024) ==
                 DOCA_SUCCESS &&
             doca_comch_server_event_msg_recv_register(srv, on_recv) == DOCA_SUCCESS &&
             doca_comch_server_event_connection_status_changed_register(
                 srv, on_connect, on_disconnect) == DOCA_SUCCESS &&
             doca_comch_server_event_consumer_register(srv, on_new_consumer, on_expired_consumer) ==
                 DOCA_SUCCESS &&
             doca_ctx_start(ctx) == DOCA_SUCCESS;
    } else {
        ok = doca_comch_client_create(dev, k_name, &cli) == DOCA_SUCCESS;
        ctx = ok ? doca_comch_client_as_ctx(cli) : nullptr;
        ok = ok && doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS &&
             doca_comch_client_task_send_set_conf(cli, on_send_done, on_send_fail, 1024) ==
                 DOCA_SUCCESS &&
             doca_comch_client_event_msg_recv_register(cli, on_recv) == DOCA_SUCCESS &&
             doca_comch_client_event_consumer_register(cli, on_new_consumer, on_expired_consumer) ==
                 DOCA_SUCCESS &&
             doca_ctx_start(ctx) == DOCA_ERROR_IN_PROGRESS;
    }
    if (!ok) {
        fail("control path set-up failed");
        return 1;
    }
    // Connected: the server's connect event, or the client RUNNING.
    while (!timed_out()) {
        (void)doca_pe_progress(pe);
        if (r == role::dpu && g_connected)
            break;
        doca_ctx_states st;
        if (r == role::host && doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS &&
            st == DOCA_CTX_STATE_RUNNING &&
            doca_comch_client_get_connection(cli, &s.conn) == DOCA_SUCCESS)
            break;
    }
    if (!s.conn) {
        fail("no connection");
        return 1;
    }
    send_meta(pe, srv, cli, 1, 0);
    while (s.expected.load() == 0 && !timed_out() && !s.failed)
        (void)doca_pe_progress(pe);
    if (s.expected.load() <= 0) {
        fail("no metadata from the peer");
        return 1;
    }
    s.active_threads = 2;
    std::thread prod(run_producer), cons(run_consumer);
    // Producers' and consumers' negotiation runs on this engine: keep progressing it (with
    // --hold-connection, only once the consumer made it to RUNNING on its own engine).
    while (s.active_threads.load() > 0)
        if (!s.hold_connection || s.consumer_running || s.failed)
            (void)doca_pe_progress(pe);
    prod.join();
    cons.join();
    // Both sides are done with the fast path: the DPU side says so, the host side waits for it.
    if (r == role::dpu)
        send_meta(pe, srv, cli, 2, 1);
    else
        while (!s.end_received && !timed_out())
            (void)doca_pe_progress(pe);
    if (r == role::host) {
        doca_error_t rc = doca_ctx_stop(ctx);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            fail("client stop failed");
    } else {
        // comch_utils' order: wait for the client to disconnect, then stop.
        while (!g_disconnected && !timed_out())
            (void)doca_pe_progress(pe);
        doca_error_t rc = doca_ctx_stop(ctx);
        if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
            fail("server stop failed");
    }
    wait_state(pe, ctx, DOCA_CTX_STATE_IDLE);
    if ((srv && doca_comch_server_destroy(srv) != DOCA_SUCCESS) ||
        (cli && doca_comch_client_destroy(cli) != DOCA_SUCCESS) ||
        doca_pe_destroy(pe) != DOCA_SUCCESS)
        fail("control path destroy failed");
    if (rep)
        doca_dev_rep_close(rep);
    doca_dev_close(dev);
    std::printf(
        "%s: producer sent %llu of %u, consumer received %llu of %lld (%u bytes each): %s\n",
        r == role::dpu ? "dpu" : "host", (unsigned long long)s.produced, num,
        (unsigned long long)s.consumed, (long long)s.expected.load(), s.expected_size.load(),
        s.failed ? "FAILED" : "ok");
    std::fflush(stdout);
    return s.failed || s.produced != num || s.consumed != uint64_t(s.expected.load()) ? 1 : 0;
}

[[noreturn]] void usage()
{
    std::fprintf(stderr, "usage: comch_sc_pair -s SIZE -n COUNT [--role both|dpu|host] [--timeout "
                         "SECONDS] [--hold-connection]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    uint32_t size = 0, num = 0;
    int timeout_s = 60;
    std::string which = "both";
    bool hold = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--hold-connection") {
            hold = true;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        if (a == "-s")
            size = uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "-n")
            num = uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--role")
            which = argv[++i];
        else if (a == "--timeout")
            timeout_s = std::atoi(argv[++i]);
        else
            usage();
    }
    if (size < sc_prog::k_msg_header || size > 65535 || num == 0 || timeout_s <= 0)
        usage();
    // SDK warnings and errors on stderr, as NVIDIA's applications set it up.
    doca_log_backend *sdk = nullptr;
    if (doca_log_backend_create_with_file_sdk(stderr, &sdk) == DOCA_SUCCESS)
        doca_log_backend_set_sdk_level(sdk, DOCA_LOG_LEVEL_WARNING);
    sc_prog::use_private_fabric("comch-sc-pair");
    if (which == "dpu")
        return run_side(role::dpu, size, num, timeout_s, false);
    if (which == "host")
        return run_side(role::host, size, num, timeout_s, hold);
    if (which != "both")
        usage();
    pid_t dpu = fork();
    if (dpu == 0)
        _exit(run_side(role::dpu, size, num, timeout_s, false));
    int host_rc = run_side(role::host, size, num, timeout_s, hold);
    int status = 0;
    waitpid(dpu, &status, 0);
    return host_rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
