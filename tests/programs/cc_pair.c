/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A DPU/host pair written as a DOCA 2.6 program: C, the doca_cc API (doca_cc.h,
 * doca_cc_consumer.h, doca_cc_producer.h), built with DOCA_ALLOW_EXPERIMENTAL_API as NVIDIA's 2.6
 * samples are. The DPU side runs a doca_cc server that echoes every message; the host side a
 * client that sends COUNT messages (sequence number and text), checks each echo, then sends
 * COUNT fast-path buffers from a producer to a consumer the server created, which the server
 * checks.
 *
 * --host-api comch makes the host side a DOCA 3.0 program (doca_comch_* calls) against the same
 * doca_cc server: the two generations talk to each other, as the same objects under two names.
 *
 * Usage: cc_pair [--role both|dpu|host] [--messages COUNT] [--host-api cc|comch] [--name NAME]
 *   both (default): forks the DPU side, runs the host side; exit 0 only if both sides succeeded.
 * Output: one line per side, "dpu: echoed N messages, received N fast-path buffers, ok" and
 * "host: N of N echoes intact, N buffers sent, ok" (any failure: a line on stderr, exit 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_cc.h>
#include <doca_cc_consumer.h>
#include <doca_cc_producer.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c_devices.h"

#define MSG_MAX 256
#define BUF_SIZE 1024
#define MAX_COUNT 4096

static const char *g_name = "cc-pair";
static unsigned g_count = 100;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *side, const char *what, doca_error_t rc)
{
    fprintf(stderr, "%s: %s: %s\n", side, what, doca_error_get_name(rc));
    return 1;
}

static enum doca_ctx_states ctx_state(struct doca_ctx *ctx)
{
    enum doca_ctx_states s = DOCA_CTX_STATE_IDLE;
    (void)doca_ctx_get_state(ctx, &s);
    return s;
}

/* Progresses until the context is IDLE (bounded). */
static bool stop_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
    double deadline = now_s() + 20;
    doca_error_t rc = doca_ctx_stop(ctx);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return false;
    while (ctx_state(ctx) != DOCA_CTX_STATE_IDLE && now_s() < deadline)
        (void)doca_pe_progress(pe);
    return ctx_state(ctx) == DOCA_CTX_STATE_IDLE;
}

static void free_send_task(struct doca_cc_task_send *task, union doca_data task_ud,
                           union doca_data ctx_ud)
{
    (void)task_ud;
    (void)ctx_ud;
    doca_task_free(doca_cc_task_send_as_task(task));
}

/* ---- DPU side: a doca_cc server that echoes, and a consumer for the host's producer ---- */

struct dpu_state {
    struct doca_cc_server *server;
    struct doca_cc_connection *conn;
    unsigned echoed;
    unsigned bad;
    bool disconnected;
    /* fast path */
    struct doca_pe *pe;
    struct doca_mmap *mmap;
    struct doca_buf_inventory *inv;
    struct doca_cc_consumer *consumer;
    uint8_t *mem;
    unsigned received;
    bool consumer_announced;
    bool done_requested; /* the host sent "done": answer once every buffer arrived */
    bool done_answered;
};

static struct dpu_state g_dpu;

static void dpu_on_recv(struct doca_cc_event_msg_recv *event, uint8_t *buf, uint32_t len,
                        struct doca_cc_connection *conn)
{
    struct doca_cc_task_send *task = NULL;
    (void)event;
    g_dpu.conn = conn;
    if (len == 5 && memcmp(buf, "done", 5) == 0) {
        g_dpu.done_requested = true;
        return;
    }
    if (doca_cc_server_task_send_alloc_init(g_dpu.server, conn, buf, len, &task) != DOCA_SUCCESS ||
        doca_task_submit(doca_cc_task_send_as_task(task)) != DOCA_SUCCESS) {
        g_dpu.bad++;
        return;
    }
    g_dpu.echoed++;
}

static void dpu_on_connect(struct doca_cc_event_connection_status_changed *event,
                           struct doca_cc_connection *conn, uint8_t ok)
{
    (void)event;
    if (ok)
        g_dpu.conn = conn;
}

static void dpu_on_disconnect(struct doca_cc_event_connection_status_changed *event,
                              struct doca_cc_connection *conn, uint8_t ok)
{
    (void)event;
    (void)conn;
    (void)ok;
    g_dpu.disconnected = true;
}

static void dpu_on_new_consumer(struct doca_cc_event_consumer *event,
                                struct doca_cc_connection *conn, uint32_t id)
{
    (void)event;
    (void)conn;
    (void)id;
}

static void post_recv(struct doca_cc_consumer_task_post_recv *task);

static void dpu_on_recv_done(struct doca_cc_consumer_task_post_recv *task, union doca_data task_ud,
                             union doca_data ctx_ud)
{
    struct doca_buf *buf = doca_cc_consumer_task_post_recv_get_buf(task);
    void *data = NULL;
    size_t len = 0;
    char expect[64];
    (void)task_ud;
    (void)ctx_ud;
    (void)doca_buf_get_data(buf, &data);
    (void)doca_buf_get_data_len(buf, &len);
    snprintf(expect, sizeof(expect), "fast %u", g_dpu.received);
    if (len != BUF_SIZE || memcmp(data, expect, strlen(expect) + 1) != 0)
        g_dpu.bad++;
    g_dpu.received++;
    (void)doca_buf_reset_data_len(buf);
    post_recv(task);
}

static void dpu_on_recv_error(struct doca_cc_consumer_task_post_recv *task, union doca_data task_ud,
                              union doca_data ctx_ud)
{
    struct doca_buf *buf = doca_cc_consumer_task_post_recv_get_buf(task);
    (void)task_ud;
    (void)ctx_ud;
    /* Flushed at stop: the task and its buffer go back. */
    doca_task_free(doca_cc_consumer_task_post_recv_as_task(task));
    (void)doca_buf_dec_refcount(buf, NULL);
}

static void post_recv(struct doca_cc_consumer_task_post_recv *task)
{
    if (doca_task_submit(doca_cc_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
        g_dpu.bad++;
}

/* The consumer on the connection, with 16 receives posted; announced to the host by message. */
static int dpu_start_consumer(void)
{
    const size_t size = 16 * BUF_SIZE;
    struct doca_dev *dev = NULL;
    doca_error_t rc;
    (void)doca_cc_server_get_device(g_dpu.server, &dev);
    g_dpu.mem = calloc(1, size);
    if (g_dpu.mem == NULL)
        return fail("dpu", "calloc", DOCA_ERROR_NO_MEMORY);
    if ((rc = doca_mmap_create(&g_dpu.mmap)) != DOCA_SUCCESS ||
        (rc = doca_mmap_set_memrange(g_dpu.mmap, g_dpu.mem, size)) != DOCA_SUCCESS ||
        (rc = doca_mmap_set_permissions(g_dpu.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE)) !=
            DOCA_SUCCESS ||
        (rc = doca_mmap_add_dev(g_dpu.mmap, dev)) != DOCA_SUCCESS ||
        (rc = doca_mmap_start(g_dpu.mmap)) != DOCA_SUCCESS)
        return fail("dpu", "consumer mmap", rc);
    if ((rc = doca_buf_inventory_create(16, &g_dpu.inv)) != DOCA_SUCCESS ||
        (rc = doca_buf_inventory_start(g_dpu.inv)) != DOCA_SUCCESS)
        return fail("dpu", "inventory", rc);
    if ((rc = doca_cc_consumer_create(g_dpu.conn, g_dpu.mmap, &g_dpu.consumer)) != DOCA_SUCCESS)
        return fail("dpu", "doca_cc_consumer_create", rc);
    if ((rc = doca_pe_connect_ctx(g_dpu.pe, doca_cc_consumer_as_ctx(g_dpu.consumer))) !=
            DOCA_SUCCESS ||
        (rc = doca_cc_consumer_task_post_recv_set_conf(g_dpu.consumer, dpu_on_recv_done,
                                                       dpu_on_recv_error, 16)) != DOCA_SUCCESS)
        return fail("dpu", "consumer configuration", rc);
    rc = doca_ctx_start(doca_cc_consumer_as_ctx(g_dpu.consumer));
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return fail("dpu", "consumer start", rc);
    double deadline = now_s() + 20;
    while (ctx_state(doca_cc_consumer_as_ctx(g_dpu.consumer)) != DOCA_CTX_STATE_RUNNING &&
           now_s() < deadline)
        (void)doca_pe_progress(g_dpu.pe);
    if (ctx_state(doca_cc_consumer_as_ctx(g_dpu.consumer)) != DOCA_CTX_STATE_RUNNING)
        return fail("dpu", "consumer never RUNNING", DOCA_ERROR_TIME_OUT);
    for (int i = 0; i < 16; i++) {
        struct doca_buf *buf = NULL;
        struct doca_cc_consumer_task_post_recv *task = NULL;
        if ((rc = doca_buf_inventory_buf_get_by_addr(g_dpu.inv, g_dpu.mmap,
                                                     g_dpu.mem + i * BUF_SIZE, BUF_SIZE, &buf)) !=
                DOCA_SUCCESS ||
            (rc = doca_cc_consumer_task_post_recv_alloc_init(g_dpu.consumer, buf, &task)) !=
                DOCA_SUCCESS)
            return fail("dpu", "post receive", rc);
        post_recv(task);
    }
    uint32_t id = 0;
    if ((rc = doca_cc_consumer_get_id(g_dpu.consumer, &id)) != DOCA_SUCCESS)
        return fail("dpu", "doca_cc_consumer_get_id", rc);
    char msg[MSG_MAX];
    struct doca_cc_task_send *task = NULL;
    int n = snprintf(msg, sizeof(msg), "consumer %u", id);
    if ((rc = doca_cc_server_task_send_alloc_init(g_dpu.server, g_dpu.conn, msg, (uint32_t)n + 1,
                                                  &task)) != DOCA_SUCCESS ||
        (rc = doca_task_submit(doca_cc_task_send_as_task(task))) != DOCA_SUCCESS)
        return fail("dpu", "announce the consumer", rc);
    g_dpu.consumer_announced = true;
    return 0;
}

static int run_dpu(int ready_fd)
{
    struct doca_dev *dev = sc_open_dev("03:00.0");
    struct doca_dev_rep *rep = dev ? sc_open_rep(dev, "b1:00.0") : NULL;
    struct doca_ctx *ctx;
    doca_error_t rc;
    char one = 1;
    if (dev == NULL || rep == NULL)
        return fail("dpu", "open the device and its representor", DOCA_ERROR_NOT_FOUND);
    if ((rc = doca_pe_create(&g_dpu.pe)) != DOCA_SUCCESS)
        return fail("dpu", "doca_pe_create", rc);
    if ((rc = doca_cc_server_create(dev, rep, g_name, &g_dpu.server)) != DOCA_SUCCESS)
        return fail("dpu", "doca_cc_server_create", rc);
    ctx = doca_cc_server_as_ctx(g_dpu.server);
    if ((rc = doca_pe_connect_ctx(g_dpu.pe, ctx)) != DOCA_SUCCESS ||
        (rc = doca_cc_server_task_send_set_conf(g_dpu.server, free_send_task, free_send_task,
                                                64)) != DOCA_SUCCESS ||
        (rc = doca_cc_server_event_msg_recv_register(g_dpu.server, dpu_on_recv)) != DOCA_SUCCESS ||
        (rc = doca_cc_server_event_connection_register(g_dpu.server, dpu_on_connect,
                                                       dpu_on_disconnect)) != DOCA_SUCCESS ||
        (rc = doca_cc_server_event_consumer_register(g_dpu.server, dpu_on_new_consumer,
                                                     dpu_on_new_consumer)) != DOCA_SUCCESS)
        return fail("dpu", "server configuration", rc);
    if ((rc = doca_ctx_start(ctx)) != DOCA_SUCCESS)
        return fail("dpu", "server start (a 2.6 server is RUNNING at once)", rc);
    if (ready_fd >= 0) {
        if (write(ready_fd, &one, 1) != 1)
            return 1;
    } else {
        printf("dpu: listening\n");
        fflush(stdout);
    }
    double deadline = now_s() + 60;
    while (!g_dpu.disconnected && now_s() < deadline) {
        (void)doca_pe_progress(g_dpu.pe);
        /* The consumer once the echoes are done (the host waits for its announcement). */
        if (!g_dpu.consumer_announced && g_dpu.echoed == g_count && g_dpu.conn != NULL &&
            dpu_start_consumer() != 0)
            return 1;
        if (g_dpu.done_requested && !g_dpu.done_answered && g_dpu.received == g_count) {
            struct doca_cc_task_send *task = NULL;
            if ((rc = doca_cc_server_task_send_alloc_init(g_dpu.server, g_dpu.conn, "done", 5,
                                                          &task)) != DOCA_SUCCESS ||
                (rc = doca_task_submit(doca_cc_task_send_as_task(task))) != DOCA_SUCCESS)
                return fail("dpu", "answer done", rc);
            g_dpu.done_answered = true;
        }
    }
    if (!g_dpu.disconnected)
        return fail("dpu", "the host never disconnected", DOCA_ERROR_TIME_OUT);
    if (g_dpu.consumer != NULL) {
        if (!stop_ctx(g_dpu.pe, doca_cc_consumer_as_ctx(g_dpu.consumer)))
            return fail("dpu", "consumer stop", DOCA_ERROR_TIME_OUT);
        (void)doca_cc_consumer_destroy(g_dpu.consumer);
    }
    if (!stop_ctx(g_dpu.pe, ctx))
        return fail("dpu", "server stop", DOCA_ERROR_TIME_OUT);
    (void)doca_cc_server_destroy(g_dpu.server);
    if (g_dpu.inv) {
        (void)doca_buf_inventory_stop(g_dpu.inv);
        (void)doca_buf_inventory_destroy(g_dpu.inv);
    }
    if (g_dpu.mmap)
        (void)doca_mmap_destroy(g_dpu.mmap);
    free(g_dpu.mem);
    (void)doca_pe_destroy(g_dpu.pe);
    (void)doca_dev_rep_close(rep);
    (void)doca_dev_close(dev);
    bool ok = g_dpu.echoed == g_count && g_dpu.received == g_count && g_dpu.bad == 0 &&
              g_dpu.done_answered;
    printf("dpu: echoed %u messages, received %u fast-path buffers, %s\n", g_dpu.echoed,
           g_dpu.received, ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok ? 0 : 1;
}

/* ---- host side: a client of either generation, and a producer ---- */

struct host_state {
    bool comch; /* the DOCA 3.0 API instead of doca_cc */
    char last[MSG_MAX];
    uint32_t last_len;
    bool got;
    unsigned sent_done;
    unsigned bad;
};

static struct host_state g_host;

static void host_on_recv_cc(struct doca_cc_event_msg_recv *event, uint8_t *buf, uint32_t len,
                            struct doca_cc_connection *conn)
{
    (void)event;
    (void)conn;
    if (len > sizeof(g_host.last)) {
        g_host.bad++;
        return;
    }
    memcpy(g_host.last, buf, len);
    g_host.last_len = len;
    g_host.got = true;
}

static void host_on_recv_comch(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
                               struct doca_comch_connection *conn)
{
    (void)event;
    (void)conn;
    if (len > sizeof(g_host.last)) {
        g_host.bad++;
        return;
    }
    memcpy(g_host.last, buf, len);
    g_host.last_len = len;
    g_host.got = true;
}

static void free_comch_send_task(struct doca_comch_task_send *task, union doca_data a,
                                 union doca_data b)
{
    (void)a;
    (void)b;
    doca_task_free(doca_comch_task_send_as_task(task));
}

static void host_on_fast_sent(struct doca_cc_producer_task_send *task, union doca_data a,
                              union doca_data b)
{
    (void)a;
    (void)b;
    if (doca_task_get_status(doca_cc_producer_task_send_as_task(task)) != DOCA_SUCCESS)
        g_host.bad++;
    g_host.sent_done++;
    struct doca_buf *buf = doca_cc_producer_task_send_get_buf(task);
    doca_task_free(doca_cc_producer_task_send_as_task(task));
    (void)doca_buf_dec_refcount(buf, NULL);
}

struct host_side {
    struct doca_pe *pe;
    struct doca_cc_client *cc;
    struct doca_comch_client *comch;
    struct doca_ctx *ctx;
    struct doca_cc_connection *conn;
};

static doca_error_t host_send(struct host_side *h, const char *msg, uint32_t len)
{
    doca_error_t rc;
    if (g_host.comch) {
        struct doca_comch_task_send *task = NULL;
        rc = doca_comch_client_task_send_alloc_init(
            h->comch, (struct doca_comch_connection *)h->conn, msg, len, &task);
        return rc != DOCA_SUCCESS ? rc : doca_task_submit(doca_comch_task_send_as_task(task));
    }
    struct doca_cc_task_send *task = NULL;
    rc = doca_cc_client_task_send_alloc_init(h->cc, h->conn, msg, len, &task);
    return rc != DOCA_SUCCESS ? rc : doca_task_submit(doca_cc_task_send_as_task(task));
}

/* Progresses until a message came back (bounded). */
static bool host_wait_reply(struct host_side *h)
{
    double deadline = now_s() + 20;
    while (!g_host.got && now_s() < deadline)
        (void)doca_pe_progress(h->pe);
    return g_host.got;
}

/* COUNT buffers through a producer to the consumer the server announced. */
static int host_fast_path(struct host_side *h, struct doca_dev *dev)
{
    unsigned consumer_id = 0;
    doca_error_t rc;
    g_host.got = false;
    if (!host_wait_reply(h) || sscanf(g_host.last, "consumer %u", &consumer_id) != 1)
        return fail("host", "no consumer announced", DOCA_ERROR_TIME_OUT);
    size_t size = (size_t)g_count * BUF_SIZE;
    uint8_t *mem = calloc(1, size);
    struct doca_mmap *mmap = NULL;
    struct doca_buf_inventory *inv = NULL;
    struct doca_cc_producer *producer = NULL;
    if (mem == NULL)
        return fail("host", "calloc", DOCA_ERROR_NO_MEMORY);
    if ((rc = doca_mmap_create(&mmap)) != DOCA_SUCCESS ||
        (rc = doca_mmap_set_memrange(mmap, mem, size)) != DOCA_SUCCESS ||
        (rc = doca_mmap_add_dev(mmap, dev)) != DOCA_SUCCESS ||
        (rc = doca_mmap_start(mmap)) != DOCA_SUCCESS)
        return fail("host", "producer mmap", rc);
    if ((rc = doca_buf_inventory_create(g_count, &inv)) != DOCA_SUCCESS ||
        (rc = doca_buf_inventory_start(inv)) != DOCA_SUCCESS)
        return fail("host", "inventory", rc);
    if ((rc = doca_cc_producer_create(h->conn, &producer)) != DOCA_SUCCESS)
        return fail("host", "doca_cc_producer_create", rc);
    struct doca_ctx *pctx = doca_cc_producer_as_ctx(producer);
    if ((rc = doca_pe_connect_ctx(h->pe, pctx)) != DOCA_SUCCESS ||
        (rc = doca_cc_producer_task_send_set_conf(producer, host_on_fast_sent, host_on_fast_sent,
                                                  g_count)) != DOCA_SUCCESS)
        return fail("host", "producer configuration", rc);
    rc = doca_ctx_start(pctx);
    if (rc != DOCA_SUCCESS && rc != DOCA_ERROR_IN_PROGRESS)
        return fail("host", "producer start", rc);
    double deadline = now_s() + 20;
    while (ctx_state(pctx) != DOCA_CTX_STATE_RUNNING && now_s() < deadline)
        (void)doca_pe_progress(h->pe);
    /* One at a time: the consumer has 16 receives posted and re-posts each as it completes. */
    for (unsigned i = 0; i < g_count && now_s() < deadline; i++) {
        struct doca_buf *buf = NULL;
        struct doca_cc_producer_task_send *task = NULL;
        uint8_t *p = mem + (size_t)i * BUF_SIZE;
        snprintf((char *)p, BUF_SIZE, "fast %u", i);
        if ((rc = doca_buf_inventory_buf_get_by_data(inv, mmap, p, BUF_SIZE, &buf)) !=
                DOCA_SUCCESS ||
            (rc = doca_cc_producer_task_send_alloc_init(producer, buf, consumer_id, &task)) !=
                DOCA_SUCCESS)
            return fail("host", "producer send", rc);
        do {
            rc = doca_task_submit(doca_cc_producer_task_send_as_task(task));
            if (rc == DOCA_ERROR_AGAIN)
                (void)doca_pe_progress(h->pe);
        } while (rc == DOCA_ERROR_AGAIN && now_s() < deadline);
        if (rc != DOCA_SUCCESS)
            return fail("host", "producer submit", rc);
        while (g_host.sent_done <= i && now_s() < deadline)
            (void)doca_pe_progress(h->pe);
    }
    if (g_host.sent_done != g_count)
        return fail("host", "producer sends never completed", DOCA_ERROR_TIME_OUT);
    /* The server's word that everything arrived: its last echo. */
    g_host.got = false;
    if ((rc = host_send(h, "done", 5)) != DOCA_SUCCESS || !host_wait_reply(h) ||
        g_host.last_len != 5 || memcmp(g_host.last, "done", 5) != 0)
        return fail("host", "final exchange", rc);
    if (!stop_ctx(h->pe, pctx))
        return fail("host", "producer stop", DOCA_ERROR_TIME_OUT);
    (void)doca_cc_producer_destroy(producer);
    (void)doca_buf_inventory_stop(inv);
    (void)doca_buf_inventory_destroy(inv);
    (void)doca_mmap_destroy(mmap);
    free(mem);
    return 0;
}

static int run_host(void)
{
    struct host_side h = {0};
    struct doca_dev *dev = sc_open_dev("b1:00.0");
    doca_error_t rc;
    if (dev == NULL)
        return fail("host", "open the device", DOCA_ERROR_NOT_FOUND);
    if ((rc = doca_pe_create(&h.pe)) != DOCA_SUCCESS)
        return fail("host", "doca_pe_create", rc);
    if (g_host.comch) {
        if ((rc = doca_comch_client_create(dev, g_name, &h.comch)) != DOCA_SUCCESS)
            return fail("host", "doca_comch_client_create", rc);
        h.ctx = doca_comch_client_as_ctx(h.comch);
        if ((rc = doca_pe_connect_ctx(h.pe, h.ctx)) != DOCA_SUCCESS ||
            (rc = doca_comch_client_task_send_set_conf(h.comch, free_comch_send_task,
                                                       free_comch_send_task, 64)) != DOCA_SUCCESS ||
            (rc = doca_comch_client_event_msg_recv_register(h.comch, host_on_recv_comch)) !=
                DOCA_SUCCESS)
            return fail("host", "client configuration", rc);
    } else {
        if ((rc = doca_cc_client_create(dev, g_name, &h.cc)) != DOCA_SUCCESS)
            return fail("host", "doca_cc_client_create", rc);
        h.ctx = doca_cc_client_as_ctx(h.cc);
        if ((rc = doca_pe_connect_ctx(h.pe, h.ctx)) != DOCA_SUCCESS ||
            (rc = doca_cc_client_task_send_set_conf(h.cc, free_send_task, free_send_task, 64)) !=
                DOCA_SUCCESS ||
            (rc = doca_cc_client_event_msg_recv_register(h.cc, host_on_recv_cc)) != DOCA_SUCCESS)
            return fail("host", "client configuration", rc);
    }
    rc = doca_ctx_start(h.ctx);
    if (rc != DOCA_ERROR_IN_PROGRESS)
        return fail("host", "client start (expected DOCA_ERROR_IN_PROGRESS)", rc);
    double deadline = now_s() + 20;
    while (ctx_state(h.ctx) != DOCA_CTX_STATE_RUNNING && now_s() < deadline)
        (void)doca_pe_progress(h.pe);
    if (g_host.comch) {
        struct doca_comch_connection *c = NULL;
        rc = doca_comch_client_get_connection(h.comch, &c);
        h.conn = (struct doca_cc_connection *)c;
    } else {
        rc = doca_cc_client_get_connection(h.cc, &h.conn);
    }
    if (rc != DOCA_SUCCESS)
        return fail("host", "the client's connection", rc);
    unsigned intact = 0;
    for (unsigned i = 0; i < g_count; i++) {
        char msg[MSG_MAX];
        int n = snprintf(msg, sizeof(msg), "message %u of %u from a DOCA 2.6 program", i, g_count);
        g_host.got = false;
        if ((rc = host_send(&h, msg, (uint32_t)n + 1)) != DOCA_SUCCESS)
            return fail("host", "send", rc);
        if (!host_wait_reply(&h))
            return fail("host", "no echo", DOCA_ERROR_TIME_OUT);
        if (g_host.last_len == (uint32_t)n + 1 && memcmp(g_host.last, msg, (size_t)n + 1) == 0)
            intact++;
    }
    /* Counters, under their 2.6 names. */
    uint64_t sent = 0;
    if (!g_host.comch) {
        (void)doca_cc_connection_update_info(h.conn);
        (void)doca_cc_connection_get_counter(h.conn, DOCA_CC_COUNTER_SENT_MESSAGES, &sent);
    }
    if (host_fast_path(&h, dev) != 0)
        return 1;
    if (!stop_ctx(h.pe, h.ctx))
        return fail("host", "client stop", DOCA_ERROR_TIME_OUT);
    if (g_host.comch)
        (void)doca_comch_client_destroy(h.comch);
    else
        (void)doca_cc_client_destroy(h.cc);
    (void)doca_pe_destroy(h.pe);
    (void)doca_dev_close(dev);
    bool ok = intact == g_count && g_host.bad == 0 && (g_host.comch || sent == g_count);
    printf("host: %u of %u echoes intact, %u buffers sent, %s\n", intact, g_count, g_host.sent_done,
           ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *role = "both";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--role") == 0 && i + 1 < argc)
            role = argv[++i];
        else if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc)
            g_count = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--host-api") == 0 && i + 1 < argc)
            g_host.comch = strcmp(argv[++i], "comch") == 0;
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            g_name = argv[++i];
        else {
            fprintf(stderr, "usage: cc_pair [--role both|dpu|host] [--messages COUNT] [--host-api "
                            "cc|comch] [--name NAME]\n");
            return 2;
        }
    }
    if (g_count == 0 || g_count > MAX_COUNT) {
        fprintf(stderr, "cc_pair: --messages must be 1 to %d\n", MAX_COUNT);
        return 2;
    }
    if (strcmp(role, "dpu") == 0)
        return run_dpu(-1) == 0 ? 0 : 1;
    if (strcmp(role, "host") == 0)
        return run_host();
    int ready[2];
    if (pipe(ready) != 0)
        return 1;
    fflush(stdout);
    pid_t dpu = fork();
    if (dpu == 0) {
        close(ready[0]);
        _exit(run_dpu(ready[1]));
    }
    close(ready[1]);
    char one = 0;
    if (dpu < 0 || read(ready[0], &one, 1) != 1) {
        fprintf(stderr, "cc_pair: the DPU side did not start\n");
        return 1;
    }
    close(ready[0]);
    int host_rc = run_host();
    int status = 0;
    if (host_rc != 0)
        kill(dpu, SIGTERM);
    if (waitpid(dpu, &status, 0) != dpu)
        return 1;
    return host_rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
