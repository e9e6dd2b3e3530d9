// SPDX-License-Identifier: Apache-2.0
//
//   comch_ping --role server [-p PCI] [-r REP_PCI] [--epoll] [--name NAME]
//   comch_ping --role client [-p PCI] [-n COUNT] [-s SIZE] [--epoll] [--name NAME]
// Defaults: server -p 03:00.0 -r b1:00.0, client -p b1:00.0, 1000 messages of 64 bytes,
// server name "comch_ping", busy polling (--epoll sleeps on the PE notification handle
// instead).
// COUNT and SIZE are the client's choice; the server learns them from the messages.
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "comch_ping.h"
#include "program_common.h"

DOCA_LOG_REGISTER(COMCH_PING::MAIN);

static doca_error_t on_count(void *param, void *config)
{
	struct ping_config *cfg = config;
	int value = *(const int *)param;

	if (value < 1) {
		DOCA_LOG_ERR("--count must be at least 1");
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->count = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t on_size(void *param, void *config)
{
	struct ping_config *cfg = config;
	int value = *(const int *)param;

	if (value < (int)PING_MIN_SIZE) {
		DOCA_LOG_ERR("--size must be at least %u bytes (the ping header)", PING_MIN_SIZE);
		return DOCA_ERROR_INVALID_VALUE;
	}
	cfg->size = (uint32_t)value;
	return DOCA_SUCCESS;
}

static const struct program_flag ping_flags[] = {
	{"n", "count", "<num>", "Number of messages the client sends (default 1000)", DOCA_ARGP_TYPE_INT, on_count,
	 false},
	{"s", "size", "<bytes>", "Size of each message, header included (default 64)", DOCA_ARGP_TYPE_INT, on_size,
	 false},
};

static doca_error_t run_server(const void *config)
{
	return ping_run_server(config);
}

static doca_error_t run_client(const void *config)
{
	return ping_run_client(config);
}

int main(int argc, char **argv)
{
	const struct program_spec spec = {
		.program = "comch_ping",
		.default_name = PING_DEFAULT_NAME,
		.name_description = "Server name (default comch_ping)",
		.epoll_description = "Sleep on the progress engine's notification handle instead of polling",
		.flags = ping_flags,
		.num_flags = sizeof(ping_flags) / sizeof(ping_flags[0]),
		.run_server = run_server,
		.run_client = run_client,
	};
	struct ping_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.count = PING_DEFAULT_COUNT;
	cfg.size = PING_DEFAULT_SIZE;
	return program_main(argc, argv, &cfg.args, &spec);
}
