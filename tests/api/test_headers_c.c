/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public headers from a C11 program (built by tests/abi/CMakeLists.txt, test
 * api_test_headers_c). The C++ tests cannot see what only C sees: the macros expanded in C,
 * the static inline helpers compiled as C, the enum values and the callback typedefs matching
 * the way a C program writes its callbacks, and enum arguments outside the enum (legal in C,
 * not formable in C++) returning their documented code. A server and a client run in this
 * process, as a C program would write them. Compile-time checks are _Static_assert; runtime
 * checks print the failing line and make the exit status non-zero.
 */
#define _POSIX_C_SOURCE 200809L
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_compat.h>
#include <doca_compress.h>
#include <doca_config.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>
#include <doca_sha.h>
#include <doca_sync_event.h>
#include <doca_types.h>
#include <doca_version.h>
/* Every header a second time: include guards. */
#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_compress.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>
#include <doca_sha.h>
#include <doca_sync_event.h>
#include <doca_types.h>
#include <doca_version.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

DOCA_LOG_REGISTER(ABI::HEADERS_C);

/* ---- values programs compile in: DOCA's, never ours ---- */
_Static_assert(DOCA_SUCCESS == 0 && DOCA_ERROR_INVALID_VALUE == 6 && DOCA_ERROR_BAD_STATE == 18 &&
                   DOCA_ERROR_IN_PROGRESS == 26 && DOCA_ERROR_SKIPPED == 30,
               "doca_error_t values");
_Static_assert(DOCA_CTX_STATE_IDLE == 0 && DOCA_CTX_STATE_STARTING == 1 &&
                   DOCA_CTX_STATE_RUNNING == 2 && DOCA_CTX_STATE_STOPPING == 3,
               "doca_ctx_states values");
_Static_assert(DOCA_COMCH_COUNTER_SENT_MESSAGES == 1 && DOCA_COMCH_COUNTER_RECV_BYTES == 4,
               "doca_comch_counter");
_Static_assert(DOCA_LOG_LEVEL_DISABLE == 10 && DOCA_LOG_LEVEL_TRACE == 70, "doca_log_level");
_Static_assert(DOCA_DEVINFO_REP_FILTER_ALL == 0 && DOCA_DEVINFO_REP_FILTER_NET == 2 &&
                   DOCA_DEVINFO_REP_FILTER_EMULATED == 4,
               "doca_devinfo_rep_filter");
_Static_assert(DOCA_ACCESS_FLAG_PCI_READ_WRITE == 32, "doca_access_flag");
_Static_assert(DOCA_ARGP_TYPE_STRING == 1 && DOCA_ARGP_TYPE_JSON_OBJ == 4, "doca_argp_type");
_Static_assert(DOCA_DEVINFO_PCI_ADDR_SIZE == 13 && DOCA_DEVINFO_REP_VUID_SIZE == 128,
               "size macros");
_Static_assert(sizeof(union doca_data) == 8, "union doca_data");
_Static_assert(DOCA_VERSION_EXACT == DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR,
                                                             DOCA_VERSION_PATCH),
               "version macros");
_Static_assert(doca_event_invalid_handle == -1, "invalid handle");

/* ---- callbacks written the way C programs write them ---- */
static int calls;

static void send_cb(struct doca_comch_task_send *task, union doca_data task_ud,
                    union doca_data ctx_ud)
{
    (void)task, (void)task_ud, (void)ctx_ud;
    ++calls;
}
static void recv_cb(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
                    struct doca_comch_connection *conn)
{
    (void)event, (void)buf, (void)len, (void)conn;
}
static void conn_cb(struct doca_comch_event_connection_status_changed *event,
                    struct doca_comch_connection *conn, uint8_t ok)
{
    (void)event, (void)conn, (void)ok;
}
static void consumer_cb(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn,
                        uint32_t id)
{
    (void)event, (void)conn, (void)id;
}
static void state_cb(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next)
{
    (void)ud, (void)ctx, (void)prev, (void)next;
}
static void task_cb(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud)
{
    (void)task, (void)task_ud, (void)ctx_ud;
}
static void free_cb(void *addr, size_t len, void *cookie)
{
    (void)addr, (void)len, (void)cookie;
}
static doca_error_t param_cb(void *value, void *config)
{
    (void)value, (void)config;
    return DOCA_SUCCESS;
}
static doca_error_t cmd_cb(void *config)
{
    (void)config;
    return DOCA_SUCCESS;
}
static doca_error_t dpdk_cb(int argc, char **argv)
{
    (void)argc, (void)argv;
    return DOCA_SUCCESS;
}
static doca_error_t logger_cb(enum doca_log_level level, const char *format, va_list args)
{
    (void)level, (void)format, (void)args;
    return DOCA_SUCCESS;
}

static char app_line[1024];
static char last_app_line[1024];
static void app_flush(char *line)
{
    strncpy(last_app_line, line, sizeof(last_app_line) - 1);
}

/* A versioned struct, built with the DOCA_STRUCT_* helpers of doca_compat.h. */
struct versioned {
    DOCA_STRUCT_START;
    int value;
};

/* ---- a server and a client in C ---- */
static struct doca_comch_connection *server_conn;
static char server_got[64];

static void pair_connect_cb(struct doca_comch_event_connection_status_changed *event,
                            struct doca_comch_connection *conn, uint8_t ok)
{
    (void)event;
    if (ok)
        server_conn = conn;
}
static void pair_recv_cb(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
                         struct doca_comch_connection *conn)
{
    (void)event, (void)conn;
    if (len < sizeof(server_got)) {
        memcpy(server_got, buf, len);
        server_got[len] = '\0';
    }
}
static void pair_send_cb(struct doca_comch_task_send *task, union doca_data task_ud,
                         union doca_data ctx_ud)
{
    (void)task_ud, (void)ctx_ud;
    doca_task_free(doca_comch_task_send_as_task(task));
}

static struct doca_dev *open_dev(const char *pci)
{
    struct doca_devinfo **list = NULL;
    struct doca_dev *dev = NULL;
    uint32_t n = 0, i;

    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
        return NULL;
    for (i = 0; i < n && dev == NULL; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            doca_dev_open(list[i], &dev);
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

static struct doca_dev_rep *open_rep(struct doca_dev *dev, const char *pci)
{
    struct doca_devinfo_rep **list = NULL;
    struct doca_dev_rep *rep = NULL;
    uint32_t n = 0, i;

    if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
        return NULL;
    for (i = 0; i < n && rep == NULL; ++i) {
        uint8_t eq = 0;
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            doca_dev_rep_open(list[i], &rep);
    }
    doca_devinfo_rep_destroy_list(list);
    return rep;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
    enum doca_ctx_states s = DOCA_CTX_STATE_IDLE;

    doca_ctx_get_state(ctx, &s);
    return s;
}

/* Progresses both engines until ctx is in state `want`. */
static bool progress_until(struct doca_pe *a, struct doca_pe *b, struct doca_ctx *ctx,
                           enum doca_ctx_states want)
{
    const double end = now_s() + 5.0;

    while (state_of(ctx) != want) {
        if (now_s() > end)
            return false;
        if (!(doca_pe_progress(a) | doca_pe_progress(b))) {
            struct timespec ts = {0, 10000};
            nanosleep(&ts, NULL);
        }
    }
    return true;
}

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_headers_c.c:%d: check failed: %s\n", __LINE__, #cond);           \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

int main(void)
{
    doca_comch_task_send_completion_cb_t s = send_cb;
    doca_comch_event_msg_recv_cb_t r = recv_cb;
    doca_comch_event_connection_status_changed_cb_t c = conn_cb;
    doca_comch_event_consumer_cb_t k = consumer_cb;
    doca_ctx_state_changed_callback_t st = state_cb;
    doca_task_completion_cb_t t = task_cb;
    doca_mmap_memrange_free_cb_t *f = free_cb;
    doca_argp_param_cb_t p = param_cb;
    doca_argp_cmd_cb_t cm = cmd_cb;
    doca_argp_dpdk_cb_t d = dpdk_cb;
    doca_argp_logger_cb_t lg = logger_cb;
    union doca_data ud = {.u64 = 0};
    struct doca_gather_list gl = {.addr = NULL, .len = 0, .next = NULL};
    struct versioned v;
    struct doca_log_backend *backend = NULL;
    struct doca_pe *pe = NULL;
    struct doca_buf *buf = NULL;
    doca_error_t rc = DOCA_SUCCESS;
    uint32_t value = 0;
    int e;

    (void)s, (void)r, (void)c, (void)k, (void)st, (void)t, (void)f, (void)p, (void)cm, (void)d,
        (void)lg;
    (void)gl;

    /* doca_error.h: every code has a name and a description; the macros behave. */
    for (e = DOCA_SUCCESS; e <= DOCA_ERROR_SKIPPED; ++e) {
        CHECK(strncmp(doca_error_get_name((doca_error_t)e), "DOCA_", 5) == 0);
        CHECK(doca_error_get_descr((doca_error_t)e) != NULL);
    }
    CHECK(strcmp(doca_error_get_name((doca_error_t)31), "unrecognized error code") == 0);
    CHECK(!DOCA_IS_ERROR(DOCA_SUCCESS) && DOCA_IS_ERROR(DOCA_ERROR_AGAIN));
    DOCA_ERROR_PROPAGATE(rc, DOCA_ERROR_AGAIN);
    DOCA_ERROR_PROPAGATE(rc, DOCA_ERROR_NO_MEMORY);
    CHECK(rc == DOCA_ERROR_AGAIN);
    CHECK(doca_likely(1) && !doca_unlikely(0));

    /* doca_version.h and doca_compat.h */
    CHECK(strcmp(doca_version(), DOCA_VERSION_STRING) == 0);
    CHECK(strcmp(doca_version_runtime(), DOCA_VERSION_STRING) == 0);
    CHECK(DOCA_VERSION_LTE_CURRENT(DOCA_VERSION_MAJOR, 0, 0));
    DOCA_STRUCT_MEMSET_CTOR(v);
    CHECK(DOCA_STRUCT_GET_VERSION(&v) == DOCA_VERSION_EXACT && v.value == 0);
#if !defined(SOFTCOMCH) || !defined(DOCA_ARCH_HOST)
    CHECK(!"the host flavour defines SOFTCOMCH and DOCA_ARCH_HOST");
#endif

    /* doca_log.h macros in C: an application line reaches an application buffer backend. */
    CHECK(doca_log_backend_create_with_buf(app_line, sizeof(app_line), app_flush, &backend) ==
          DOCA_SUCCESS);
    CHECK(doca_log_backend_set_level_lower_limit(backend, DOCA_LOG_LEVEL_DEBUG) == DOCA_SUCCESS);
    DOCA_LOG_INFO("headers from C, no arguments");
    CHECK(strstr(last_app_line, "[INF]") != NULL &&
          strstr(last_app_line, "[main] headers from C, no arguments") != NULL);
    DOCA_LOG_ERR("headers from C, %d argument", 1);
    CHECK(strstr(last_app_line, "[ERR]") != NULL &&
          strstr(last_app_line, "headers from C, 1 argument") != NULL);
    DOCA_LOG_DBG("debug %s", "line");
    CHECK(strstr(last_app_line, "[DBG]") != NULL && strstr(last_app_line, "debug line") != NULL);
    DOCA_LOG_WARN("warning");
    DOCA_LOG_CRIT("critical");
    CHECK(strstr(last_app_line, "[CRT]") != NULL);
    DOCA_LOG_TRC("compiled out %d", 1);
    CHECK(strstr(last_app_line, "compiled out") == NULL);

    /* static inline helpers of doca_buf_inventory.h, compiled as C */
    CHECK(doca_buf_inventory_buf_get_by_addr(NULL, NULL, NULL, 0, &buf) ==
          DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_buf_inventory_buf_get_by_data(NULL, NULL, NULL, 0, &buf) ==
          DOCA_ERROR_INVALID_VALUE);
    CHECK(buf == NULL);

    /* a few calls from every library */
    CHECK(doca_pe_create(&pe) == DOCA_SUCCESS);
    CHECK(doca_pe_progress(pe) == 0);
    CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
    CHECK(doca_ctx_set_user_data(NULL, ud) == DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_comch_cap_get_max_msg_size(NULL, &value) == DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_comch_server_set_max_msg_size(NULL, 4080) == DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_comch_task_send_as_task(NULL) == NULL);
    CHECK(doca_mmap_create(NULL) == DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_argp_get_log_level(NULL) == DOCA_ERROR_INVALID_VALUE);
    CHECK(doca_argp_init("test_headers_c", &value) == DOCA_SUCCESS);
    CHECK(doca_argp_destroy() == DOCA_SUCCESS);
    CHECK(calls == 0);

    /* Enum arguments outside their enum: any int is a valid C value of an enum type. */
    {
        const int unknown_errors[] = {-1, -31, 32, 100, 1000, 1 << 20, INT_MIN, INT_MAX};
        const int unknown_modes[] = {2, 7, -1, 1000};
        size_t i;

        for (i = 0; i < sizeof(unknown_errors) / sizeof(unknown_errors[0]); ++i) {
            CHECK(strcmp(doca_error_get_name((doca_error_t)unknown_errors[i]),
                         "unrecognized error code") == 0);
            CHECK(strcmp(doca_error_get_descr((doca_error_t)unknown_errors[i]),
                         "unrecognized error code") == 0);
        }
        CHECK(doca_pe_create(&pe) == DOCA_SUCCESS);
        for (i = 0; i < sizeof(unknown_modes) / sizeof(unknown_modes[0]); ++i)
            CHECK(doca_pe_set_event_mode(pe, (enum doca_pe_event_mode)unknown_modes[i]) ==
                  DOCA_ERROR_INVALID_VALUE);
        CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
    }
    {
        /* SHA algorithms outside the enum: refused before the model's engine is asked. */
        const int unknown_algorithms[] = {3, 7, -1, 1000};
        struct doca_dev *dev = open_dev("03:00.0");
        uint32_t size = 0;
        size_t i;

        CHECK(dev != NULL);
        for (i = 0; dev && i < sizeof(unknown_algorithms) / sizeof(unknown_algorithms[0]); ++i) {
            const enum doca_sha_algorithm alg = (enum doca_sha_algorithm)unknown_algorithms[i];

            CHECK(doca_sha_cap_task_hash_get_supported(doca_dev_as_devinfo(dev), alg) ==
                  DOCA_ERROR_INVALID_VALUE);
            CHECK(doca_sha_cap_get_min_dst_buf_size(doca_dev_as_devinfo(dev), alg, &size) ==
                  DOCA_ERROR_INVALID_VALUE);
        }
        if (dev)
            CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
    }

    /* A server and a client, in C: connect, one message, unknown counters, stop. */
    {
        char fabric[64];
        struct doca_dev *dpu, *host;
        struct doca_dev_rep *rep;
        struct doca_pe *spe = NULL, *cpe = NULL;
        struct doca_comch_server *srv = NULL;
        struct doca_comch_client *cli = NULL;
        struct doca_comch_connection *conn = NULL;
        struct doca_comch_task_send *task = NULL;
        struct doca_ctx *sctx, *cctx;
        const int unknown_counters[] = {0, 5, 99, -1, 1000};
        uint64_t count = 0;
        size_t i;

        snprintf(fabric, sizeof(fabric), "test-headers-c-%d", (int)getpid());
        setenv("SOFTCOMCH_FABRIC", fabric, 1);
        unsetenv("SOFTCOMCH_SIDE");
        dpu = open_dev("03:00.0");
        host = open_dev("b1:00.0");
        rep = dpu ? open_rep(dpu, "b1:00.0") : NULL;
        CHECK(dpu && host && rep);
        if (!dpu || !host || !rep)
            return 1;
        CHECK(doca_pe_create(&spe) == DOCA_SUCCESS && doca_pe_create(&cpe) == DOCA_SUCCESS);
        CHECK(doca_comch_server_create(dpu, rep, "headers-c", &srv) == DOCA_SUCCESS);
        CHECK(doca_comch_client_create(host, "headers-c", &cli) == DOCA_SUCCESS);
        sctx = doca_comch_server_as_ctx(srv);
        cctx = doca_comch_client_as_ctx(cli);
        CHECK(doca_pe_connect_ctx(spe, sctx) == DOCA_SUCCESS &&
              doca_pe_connect_ctx(cpe, cctx) == DOCA_SUCCESS);
        CHECK(doca_comch_server_task_send_set_conf(srv, pair_send_cb, pair_send_cb, 4) ==
              DOCA_SUCCESS);
        CHECK(doca_comch_server_event_msg_recv_register(srv, pair_recv_cb) == DOCA_SUCCESS);
        CHECK(doca_comch_server_event_connection_status_changed_register(srv, pair_connect_cb,
                                                                         conn_cb) == DOCA_SUCCESS);
        CHECK(doca_comch_client_task_send_set_conf(cli, pair_send_cb, pair_send_cb, 4) ==
              DOCA_SUCCESS);
        CHECK(doca_comch_client_event_msg_recv_register(cli, recv_cb) == DOCA_SUCCESS);
        CHECK(doca_ctx_start(sctx) == DOCA_SUCCESS);
        CHECK(doca_ctx_start(cctx) == DOCA_ERROR_IN_PROGRESS);
        CHECK(progress_until(spe, cpe, cctx, DOCA_CTX_STATE_RUNNING));
        CHECK(doca_comch_client_get_connection(cli, &conn) == DOCA_SUCCESS);
        if (conn) {
            CHECK(doca_comch_client_task_send_alloc_init(cli, conn, "from C", 6, &task) ==
                  DOCA_SUCCESS);
            if (task)
                CHECK(doca_task_submit(doca_comch_task_send_as_task(task)) == DOCA_SUCCESS);
            {
                const double end = now_s() + 5.0;
                while (strcmp(server_got, "from C") != 0 && now_s() < end) {
                    doca_pe_progress(spe);
                    doca_pe_progress(cpe);
                }
            }
            CHECK(strcmp(server_got, "from C") == 0);
            CHECK(server_conn != NULL);
            CHECK(doca_comch_connection_update_info(conn) == DOCA_SUCCESS);
            for (i = 0; i < sizeof(unknown_counters) / sizeof(unknown_counters[0]); ++i)
                CHECK(doca_comch_connection_get_counter(
                          conn, (enum doca_comch_counter)unknown_counters[i], &count) ==
                      DOCA_ERROR_INVALID_VALUE);
            CHECK(doca_comch_connection_get_counter(conn, DOCA_COMCH_COUNTER_SENT_MESSAGES,
                                                    &count) == DOCA_SUCCESS);
            CHECK(count == 1);
        }
        CHECK(doca_ctx_stop(cctx) == DOCA_ERROR_IN_PROGRESS);
        CHECK(progress_until(spe, cpe, cctx, DOCA_CTX_STATE_IDLE));
        CHECK(doca_ctx_stop(sctx) == DOCA_ERROR_IN_PROGRESS);
        CHECK(progress_until(spe, cpe, sctx, DOCA_CTX_STATE_IDLE));
        CHECK(doca_comch_client_destroy(cli) == DOCA_SUCCESS);
        CHECK(doca_comch_server_destroy(srv) == DOCA_SUCCESS);
        CHECK(doca_pe_destroy(spe) == DOCA_SUCCESS && doca_pe_destroy(cpe) == DOCA_SUCCESS);
        CHECK(doca_dev_rep_close(rep) == DOCA_SUCCESS);
        CHECK(doca_dev_close(host) == DOCA_SUCCESS && doca_dev_close(dpu) == DOCA_SUCCESS);
    }

    if (failures) {
        fprintf(stderr, "test_headers_c: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_headers_c: all checks passed\n");
    return 0;
}
