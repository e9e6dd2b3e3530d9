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
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "comch_stream.h"
#include "sample_args.h"
#include "sample_common.h"

DOCA_LOG_REGISTER(COMCH_STREAM::MAIN);

static doca_error_t on_role(void *param, void *config)
{
	struct stream_config *cfg = config;
	const char *value = param;

	if (strcmp(value, "server") == 0) {
		cfg->role = STREAM_ROLE_SERVER;
	} else if (strcmp(value, "client") == 0) {
		cfg->role = STREAM_ROLE_CLIENT;
	} else {
		DOCA_LOG_ERR("--role must be 'server' or 'client', not '%s'", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

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

static doca_error_t on_epoll(void *param, void *config)
{
	((struct stream_config *)config)->use_epoll = *(const bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t on_name(void *param, void *config)
{
	struct stream_config *cfg = config;
	const char *value = param;
	size_t len = strnlen(value, sizeof(cfg->name));

	if (len == 0 || len >= sizeof(cfg->name)) {
		DOCA_LOG_ERR("--name must have 1 to %zu characters", sizeof(cfg->name) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(cfg->name, value, len + 1);
	return DOCA_SUCCESS;
}

struct flag_spec {
	const char *long_name;
	const char *arguments; // NULL for a boolean flag
	const char *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

static const struct flag_spec stream_flags[] = {
	{"role", "<server|client>", "Which side to play", DOCA_ARGP_TYPE_STRING, on_role, true},
	{"block-size", "<bytes>", "Client: size of each block, header included (default 65536, at least 32)",
	 DOCA_ARGP_TYPE_INT, on_block_size, false},
	{"interval-us", "<us>", "Client: one block every this many microseconds (default 100; 0: as fast as possible)",
	 DOCA_ARGP_TYPE_INT, on_interval, false},
	{"duration-ms", "<ms>", "Client: how long to stream (default 3000)", DOCA_ARGP_TYPE_INT, on_duration, false},
	{"epoll", NULL, "Sleep on the progress engines' notification handles instead of polling",
	 DOCA_ARGP_TYPE_BOOLEAN, on_epoll, false},
	{"name", "<name>", "Server name (default comch_stream)", DOCA_ARGP_TYPE_STRING, on_name, false},
};

static doca_error_t register_stream_flags(void)
{
	struct doca_argp_param *param;
	doca_error_t result;
	size_t i;

	result = sample_args_register(SAMPLE_ARG_PCI | SAMPLE_ARG_REP);
	for (i = 0; result == DOCA_SUCCESS && i < sizeof(stream_flags) / sizeof(stream_flags[0]); i++) {
		const struct flag_spec *f = &stream_flags[i];

		result = doca_argp_param_create(&param);
		if (result != DOCA_SUCCESS) {
			DOCA_LOG_ERR("Cannot create the --%s flag: %s", f->long_name, doca_error_get_descr(result));
			break;
		}
		doca_argp_param_set_long_name(param, f->long_name);
		if (f->arguments != NULL)
			doca_argp_param_set_arguments(param, f->arguments);
		doca_argp_param_set_description(param, f->description);
		doca_argp_param_set_callback(param, f->callback);
		doca_argp_param_set_type(param, f->type);
		if (f->mandatory)
			doca_argp_param_set_mandatory(param);
		result = doca_argp_register_param(param);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot register the --%s flag: %s", f->long_name, doca_error_get_descr(result));
	}
	return result;
}

int main(int argc, char **argv)
{
	struct stream_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	memset(&cfg, 0, sizeof(cfg));
	cfg.block_size = STREAM_DEFAULT_BLOCK_SIZE;
	cfg.interval_us = STREAM_DEFAULT_INTERVAL_US;
	cfg.duration_ms = STREAM_DEFAULT_DURATION_MS;
	strcpy(cfg.name, STREAM_DEFAULT_NAME);
	result = sample_args_init(&cfg.comch, NULL, STREAM_DEFAULT_REP_PCI, NULL);
	if (result != DOCA_SUCCESS)
		goto out;

	result = sample_logging_init();
	if (result != DOCA_SUCCESS)
		goto out;

	result = doca_argp_init(NULL, &cfg);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set up the argument parser: %s", doca_error_get_descr(result));
		goto out;
	}
	result = register_stream_flags();
	if (result != DOCA_SUCCESS)
		goto argp_done;
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot parse the command line: %s", doca_error_get_descr(result));
		goto argp_done;
	}

	if (!cfg.comch.pci_addr_given)
		strcpy(cfg.comch.pci_addr,
		       cfg.role == STREAM_ROLE_SERVER ? STREAM_DEFAULT_SERVER_PCI : STREAM_DEFAULT_CLIENT_PCI);

	switch (cfg.role) {
	case STREAM_ROLE_SERVER:
		result = stream_run_server(&cfg);
		break;
	case STREAM_ROLE_CLIENT:
		result = stream_run_client(&cfg);
		break;
	default:
		DOCA_LOG_ERR("--role server or --role client is required");
		result = DOCA_ERROR_INVALID_VALUE;
		break;
	}
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("comch_stream failed: %s", doca_error_get_descr(result));

argp_done:
	doca_argp_destroy();
out:
	sample_args_release(&cfg.comch);
	return exit_status;
}
