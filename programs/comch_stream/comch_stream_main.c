// SPDX-License-Identifier: Apache-2.0
//
//   comch_stream --role server [-p PCI] [-r REP_PCI] [--epoll] [--name NAME]
//   comch_stream --role client [-p PCI] [--block-size BYTES] [--interval-us N] [--duration-ms N]
//                              [--epoll] [--name NAME]
// Defaults: server -p 03:00.0 -r b1:00.0, client -p b1:00.0, 65536-byte blocks every 100 us for
// 3000 ms, server name "comch_stream", busy polling (--epoll sleeps on the PE notification
// handles instead). Block size, interval and duration are the client's choice; the server learns
// them from the client's hello (given to the server, they are ignored).
// Exit status 0 only if every block arrived intact and in order.
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "comch_stream.h"
#include "program_common.h"

DOCA_LOG_REGISTER(COMCH_STREAM::MAIN);

// Reads an INT flag's value into *out if it lies in [min, max].
static doca_error_t int_in_range(const void *param, long long min, long long max, const char *flag, uint32_t *out)
{
	int value = *(const int *)param;

	if (value < min || value > max) {
		DOCA_LOG_ERR("--%s must be between %lld and %lld", flag, min, max);
		return DOCA_ERROR_INVALID_VALUE;
	}
	*out = (uint32_t)value;
	return DOCA_SUCCESS;
}

static doca_error_t on_block_size(void *param, void *config)
{
	return int_in_range(param, STREAM_MIN_BLOCK_SIZE, STREAM_MAX_BLOCK_SIZE, "block-size",
			    &((struct stream_config *)config)->block_size);
}

static doca_error_t on_interval(void *param, void *config)
{
	return int_in_range(param, 0, 1000000, "interval-us", &((struct stream_config *)config)->interval_us);
}

static doca_error_t on_duration(void *param, void *config)
{
	return int_in_range(param, 1, STREAM_MAX_DURATION_MS, "duration-ms",
			    &((struct stream_config *)config)->duration_ms);
}

static const struct program_flag stream_flags[] = {
	{NULL, "block-size", "<bytes>", "Client: size of each block, header included (default 65536, at least 32)",
	 DOCA_ARGP_TYPE_INT, on_block_size, false},
	{NULL, "interval-us", "<us>",
	 "Client: one block every this many microseconds (default 100; 0: as fast as possible)", DOCA_ARGP_TYPE_INT,
	 on_interval, false},
	{NULL, "duration-ms", "<ms>", "Client: how long to stream (default 3000)", DOCA_ARGP_TYPE_INT, on_duration,
	 false},
};

static doca_error_t run_server(const void *config)
{
	return stream_run_server(config);
}

static doca_error_t run_client(const void *config)
{
	return stream_run_client(config);
}

int main(int argc, char **argv)
{
	const struct program_spec spec = {
		.program = "comch_stream",
		.default_name = STREAM_DEFAULT_NAME,
		.name_description = "Server name (default comch_stream)",
		.epoll_description = "Sleep on the progress engines' notification handles instead of polling",
		.flags = stream_flags,
		.num_flags = sizeof(stream_flags) / sizeof(stream_flags[0]),
		.run_server = run_server,
		.run_client = run_client,
	};
	struct stream_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.block_size = STREAM_DEFAULT_BLOCK_SIZE;
	cfg.interval_us = STREAM_DEFAULT_INTERVAL_US;
	cfg.duration_ms = STREAM_DEFAULT_DURATION_MS;
	return program_main(argc, argv, &cfg.args, &spec);
}
