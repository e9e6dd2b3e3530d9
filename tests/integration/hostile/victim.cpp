// SPDX-License-Identifier: Apache-2.0
//
// The victims' mains (victim.hpp): public API only, linked into hostile_victim.
#include "victim.hpp"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch_consumer.h>
#include <doca_mmap.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "comch_harness.hpp"
#include "fastpath_harness.hpp"

namespace hostile {

namespace {

using namespace std::chrono_literals;

volatile sig_atomic_t g_stop = 0;

void on_term(int)
{
    g_stop = 1;
}

void redirect_stderr(const std::string &log)
{
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::dup2(fd, 2);
        ::close(fd);
    }
    std::setvbuf(stderr, nullptr, _IONBF, 0);
}

void note(const char *fmt, const char *a = "", long b = 0)
{
    std::fprintf(stderr, "victim: ");
    std::fprintf(stderr, fmt, a, b);
    std::fprintf(stderr, "\n");
}

// Sends one payload to consumer `id` of `conn`, keeping the server served meanwhile.
void produce_once(sc_test::fp::fp_server &s, doca_comch_connection *conn, uint32_t id,
                  size_t payload,
                  std::map<doca_comch_connection *, std::unique_ptr<sc_test::fp::producer>> &prods)
{
    auto &p = prods[conn];
    if (!p) {
        p = std::make_unique<sc_test::fp::producer>(conn, s.dev());
        if (!p->ok() || (p->start() != DOCA_SUCCESS && p->state() != DOCA_CTX_STATE_STARTING)) {
            note("cannot start a producer%s", "");
            return;
        }
        sc_test::fp::pe_group g({s.pe(), p->pe()});
        (void)g.until([&] { return p->state() == DOCA_CTX_STATE_RUNNING; }, 1000ms);
    }
    sc_test::fp::send_options so;
    so.timeout = 500ms;
    so.pump = [&] {
        (void)doca_pe_progress(s.pe());
    };
    const doca_error_t rc = p->send(
        id, payload, [](uint8_t *d, size_t n) { std::memset(d, 0xab, n); }, nullptr, 0, so);
    note("sent a payload to consumer %s%ld", "", long(rc));
}

} // namespace

int victim_server_main(const victim_server_options &o)
{
    redirect_stderr(o.log);
    ::signal(SIGTERM, on_term);
    sc_test::fp::fp_server s(o.name);
    if (!s.ok())
        return 2;
    s.on_recv = [](sc_test::side &sd, doca_comch_connection *c, const uint8_t *d, uint32_t n) {
        (void)sd.send(c, "echo:" + std::string(reinterpret_cast<const char *>(d), n));
    };
    if (s.start() != DOCA_SUCCESS)
        return 3;
    std::map<doca_comch_connection *, std::unique_ptr<sc_test::fp::producer>> prods;
    std::set<std::pair<doca_comch_connection *, uint32_t>> served;
    while (!g_stop) {
        s.progress_for(2ms);
        if (!o.produce)
            continue;
        for (const sc_test::fp::consumer_event &e : s.news()) {
            if (!served.insert({e.conn, e.id}).second)
                continue;
            produce_once(s, e.conn, e.id, o.payload, prods);
        }
    }
    for (auto &[c, p] : prods)
        if (p)
            (void)p->stop_and_wait(2000ms);
    prods.clear();
    return s.stop_and_wait(3000ms) == DOCA_SUCCESS ? 0 : 4;
}

namespace {

// The neighbour plan: a consumer over the middle one of three calloc'd blocks.
struct recv_state {
    std::atomic<int> done{0};
    size_t len = 0;
    doca_error_t status = DOCA_SUCCESS;
};

void recv_ok(doca_comch_consumer_task_post_recv *t, union doca_data ud, union doca_data)
{
    auto *st = static_cast<recv_state *>(ud.ptr);
    size_t len = 0;
    (void)doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(t), &len);
    st->len = len;
    st->status = DOCA_SUCCESS;
    st->done = 1;
}

void recv_err(doca_comch_consumer_task_post_recv *t, union doca_data ud, union doca_data)
{
    auto *st = static_cast<recv_state *>(ud.ptr);
    st->status = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));
    st->done = 1;
}

bool all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i] != v)
            return false;
    return true;
}

int neighbours(sc_test::fp::fp_client &c)
{
    auto *before = static_cast<uint8_t *>(std::calloc(1, 3000));
    auto *mine = static_cast<uint8_t *>(std::calloc(1, k_neighbour_len));
    auto *after = static_cast<uint8_t *>(std::calloc(1, 3000));
    CHILD_CHECK(before && mine && after);
    std::memset(before, 0xa1, 3000);
    std::memset(after, 0xc3, 3000);
    doca_mmap *mm = nullptr;
    CHILD_CHECK(doca_mmap_create(&mm) == DOCA_SUCCESS);
    CHILD_CHECK(doca_mmap_add_dev(mm, c.dev()) == DOCA_SUCCESS);
    CHILD_CHECK(doca_mmap_set_memrange(mm, mine, k_neighbour_len) == DOCA_SUCCESS);
    CHILD_CHECK(doca_mmap_set_permissions(mm, DOCA_ACCESS_FLAG_PCI_READ_WRITE) == DOCA_SUCCESS);
    CHILD_CHECK(doca_mmap_start(mm) == DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    CHILD_CHECK(doca_buf_inventory_create(4, &inv) == DOCA_SUCCESS);
    CHILD_CHECK(doca_buf_inventory_start(inv) == DOCA_SUCCESS);
    doca_buf *buf = nullptr;
    CHILD_CHECK(doca_buf_inventory_buf_get_by_addr(inv, mm, mine, k_neighbour_len, &buf) ==
                DOCA_SUCCESS);
    doca_comch_consumer *cons = nullptr;
    CHILD_CHECK(doca_comch_consumer_create(c.connection(), mm, &cons) == DOCA_SUCCESS);
    CHILD_CHECK(doca_comch_consumer_task_post_recv_set_conf(cons, recv_ok, recv_err, 4) ==
                DOCA_SUCCESS);
    doca_ctx *ctx = doca_comch_consumer_as_ctx(cons);
    CHILD_CHECK(doca_pe_connect_ctx(c.pe(), ctx) == DOCA_SUCCESS);
    CHILD_CHECK(doca_ctx_start(ctx) == DOCA_ERROR_IN_PROGRESS);
    auto running = [&] {
        doca_ctx_states st;
        return doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st == DOCA_CTX_STATE_RUNNING;
    };
    CHILD_CHECK(c.progress_until(running, 5000ms));
    recv_state st;
    doca_comch_consumer_task_post_recv *task = nullptr;
    CHILD_CHECK(doca_comch_consumer_task_post_recv_alloc_init(cons, buf, &task) == DOCA_SUCCESS);
    union doca_data ud;
    ud.ptr = &st;
    doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(task), ud);
    CHILD_CHECK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) == DOCA_SUCCESS);
    CHILD_CHECK(c.progress_until([&] { return st.done.load() != 0; }, 5000ms));
    CHILD_CHECK(st.status == DOCA_SUCCESS);
    CHILD_CHECK(st.len == k_neighbour_len);
    // Every registered byte is the payload, edge pages included; no neighbour byte changed.
    CHILD_CHECK(all(mine, k_neighbour_len, k_neighbour_payload));
    CHILD_CHECK(all(before, 3000, 0xa1));
    CHILD_CHECK(all(after, 3000, 0xc3));
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    (void)doca_ctx_stop(ctx);
    CHILD_CHECK(c.progress_until(
        [&] {
            doca_ctx_states s;
            return doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s == DOCA_CTX_STATE_IDLE;
        },
        5000ms));
    CHILD_CHECK(doca_comch_consumer_destroy(cons) == DOCA_SUCCESS);
    doca_buf_dec_refcount(buf, nullptr);
    CHILD_CHECK(doca_buf_inventory_destroy(inv) == DOCA_SUCCESS);
    CHILD_CHECK(doca_mmap_destroy(mm) == DOCA_SUCCESS);
    // malloc checks its chunk headers on free: a peer that reached them would abort us here.
    std::free(before);
    std::free(mine);
    std::free(after);
    void *again = std::malloc(5000);
    std::free(again);
    return 0;
}

} // namespace

int victim_client_main(const victim_client_options &o)
{
    redirect_stderr(o.log);
    {
        sc_test::fp::fp_client c(o.hostile_name);
        CHILD_CHECK(c.ok());
        CHILD_CHECK(c.start() == DOCA_ERROR_IN_PROGRESS);
        auto settled = [&] {
            return c.state() != DOCA_CTX_STATE_STARTING;
        };
        CHILD_CHECK(c.progress_until(settled, 10000ms));
        switch (o.plan) {
        case client_plan::refused:
            CHILD_CHECK(c.state() == DOCA_CTX_STATE_IDLE);
            break;
        case client_plan::closed:
            CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
            CHILD_CHECK(
                c.progress_until([&] { return c.state() == DOCA_CTX_STATE_IDLE; }, 10000ms));
            break;
        case client_plan::neighbours: {
            CHILD_CHECK(c.state() == DOCA_CTX_STATE_RUNNING);
            const int rc = neighbours(c);
            if (rc != 0)
                return rc;
            (void)c.stop_and_wait(3000ms);
            break;
        }
        }
    }
    // Still a working Comch program: a second client talks to an honest server.
    sc_test::client h(o.honest_name);
    CHILD_CHECK(h.ok());
    CHILD_CHECK(h.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(h.wait_running(5000ms));
    CHILD_CHECK(h.send(h.connection(), "ping") == DOCA_SUCCESS);
    CHILD_CHECK(h.progress_until([&] { return !h.received.empty(); }, 5000ms));
    CHILD_CHECK(h.received.front().data == "echo:ping");
    CHILD_CHECK(h.stop_and_wait(3000ms) == DOCA_SUCCESS);
    return 0;
}

int honest_client_main(const std::string &name, bool hold)
{
    sc_test::client h(name);
    CHILD_CHECK(h.ok());
    CHILD_CHECK(h.start() == DOCA_ERROR_IN_PROGRESS);
    CHILD_CHECK(h.wait_running(5000ms));
    const std::string msg = hold ? "still there" : "ping";
    if (hold) {
        CHILD_CHECK(::write(1, "connected\n", 10) == 10);
        for (;;) {
            pollfd p{0, POLLIN, 0};
            const int r = ::poll(&p, 1, 0);
            CHILD_CHECK(r >= 0);
            if (r == 1)
                break;
            h.progress_for(2ms);
        }
    }
    CHILD_CHECK(h.send(h.connection(), msg) == DOCA_SUCCESS);
    CHILD_CHECK(h.progress_until([&] { return !h.received.empty(); }, 5000ms));
    CHILD_CHECK(h.received.front().data == "echo:" + msg);
    CHILD_CHECK(h.stop_and_wait(3000ms) == DOCA_SUCCESS);
    return 0;
}

} // namespace hostile
