/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public headers from a C11 program (built by tests/abi/CMakeLists.txt, test
 * api_test_headers_c). The C++ tests cannot see what only C sees: the macros expanded in C,
 * the static inline helpers compiled as C, the enum values and the callback typedefs matching
 * the way a C program writes its callbacks. Compile-time checks are _Static_assert; runtime
 * checks print the failing line and make the exit status non-zero.
 */
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_compat.h>
#include <doca_config.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>
#include <doca_version.h>
/* Every header a second time: include guards. */
#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_types.h>
#include <doca_version.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

DOCA_LOG_REGISTER(ABI::HEADERS_C);

/* ---- values programs compile in: DOCA's, never ours ---- */
_Static_assert(DOCA_SUCCESS == 0 && DOCA_ERROR_INVALID_VALUE == 6 && DOCA_ERROR_BAD_STATE == 18 &&
		       DOCA_ERROR_IN_PROGRESS == 26 && DOCA_ERROR_SKIPPED == 30,
	       "doca_error_t values");
_Static_assert(DOCA_CTX_STATE_IDLE == 0 && DOCA_CTX_STATE_STARTING == 1 && DOCA_CTX_STATE_RUNNING == 2 &&
		       DOCA_CTX_STATE_STOPPING == 3,
	       "doca_ctx_states values");
_Static_assert(DOCA_COMCH_COUNTER_SENT_MESSAGES == 1 && DOCA_COMCH_COUNTER_RECV_BYTES == 4, "doca_comch_counter");
_Static_assert(DOCA_LOG_LEVEL_DISABLE == 10 && DOCA_LOG_LEVEL_TRACE == 70, "doca_log_level");
_Static_assert(DOCA_DEVINFO_REP_FILTER_ALL == 0 && DOCA_DEVINFO_REP_FILTER_NET == 2 &&
		       DOCA_DEVINFO_REP_FILTER_EMULATED == 4,
	       "doca_devinfo_rep_filter");
_Static_assert(DOCA_ACCESS_FLAG_PCI_READ_WRITE == 32, "doca_access_flag");
_Static_assert(DOCA_ARGP_TYPE_STRING == 1 && DOCA_ARGP_TYPE_JSON_OBJ == 4, "doca_argp_type");
_Static_assert(DOCA_DEVINFO_PCI_ADDR_SIZE == 13 && DOCA_DEVINFO_REP_VUID_SIZE == 128, "size macros");
_Static_assert(sizeof(union doca_data) == 8, "union doca_data");
_Static_assert(DOCA_VERSION_EXACT == DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR,
							     DOCA_VERSION_PATCH),
	       "version macros");
_Static_assert(doca_event_invalid_handle == -1, "invalid handle");

/* ---- callbacks written the way C programs write them ---- */
static int calls;

static void send_cb(struct doca_comch_task_send *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task, (void)task_ud, (void)ctx_ud;
	++calls;
}
static void recv_cb(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		    struct doca_comch_connection *conn)
{
	(void)event, (void)buf, (void)len, (void)conn;
}
static void conn_cb(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
		    uint8_t ok)
{
	(void)event, (void)conn, (void)ok;
}
static void consumer_cb(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn, uint32_t id)
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

static int failures;
#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "test_headers_c.c:%d: check failed: %s\n", __LINE__, #cond); \
			++failures;                                                                \
		}                                                                                  \
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

	(void)s, (void)r, (void)c, (void)k, (void)st, (void)t, (void)f, (void)p, (void)cm, (void)d, (void)lg;
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
	CHECK(doca_log_backend_create_with_buf(app_line, sizeof(app_line), app_flush, &backend) == DOCA_SUCCESS);
	CHECK(doca_log_backend_set_level_lower_limit(backend, DOCA_LOG_LEVEL_DEBUG) == DOCA_SUCCESS);
	DOCA_LOG_INFO("headers from C, no arguments");
	CHECK(strstr(last_app_line, "[INF]") != NULL && strstr(last_app_line, "[main] headers from C, no arguments") != NULL);
	DOCA_LOG_ERR("headers from C, %d argument", 1);
	CHECK(strstr(last_app_line, "[ERR]") != NULL && strstr(last_app_line, "headers from C, 1 argument") != NULL);
	DOCA_LOG_DBG("debug %s", "line");
	CHECK(strstr(last_app_line, "[DBG]") != NULL && strstr(last_app_line, "debug line") != NULL);
	DOCA_LOG_WARN("warning");
	DOCA_LOG_CRIT("critical");
	CHECK(strstr(last_app_line, "[CRT]") != NULL);
	DOCA_LOG_TRC("compiled out %d", 1);
	CHECK(strstr(last_app_line, "compiled out") == NULL);

	/* static inline helpers of doca_buf_inventory.h, compiled as C */
	CHECK(doca_buf_inventory_buf_get_by_addr(NULL, NULL, NULL, 0, &buf) == DOCA_ERROR_INVALID_VALUE);
	CHECK(doca_buf_inventory_buf_get_by_data(NULL, NULL, NULL, 0, &buf) == DOCA_ERROR_INVALID_VALUE);
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

	if (failures) {
		fprintf(stderr, "test_headers_c: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_headers_c: all checks passed\n");
	return 0;
}
