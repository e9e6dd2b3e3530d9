// SPDX-License-Identifier: Apache-2.0
//
//   comch_ping --role server [-p PCI] [-r REP_PCI] [--epoll] [--name NAME]
//   comch_ping --role client [-p PCI] [-n COUNT] [-s SIZE] [--epoll] [--name NAME]
// Defaults: server -p 03:00.0 -r b1:00.0, client -p b1:00.0, 1000 messages of 64 bytes,
// server name "comch_ping", busy polling (--epoll sleeps on the PE notification handle
// instead).
// COUNT and SIZE are the client's choice; the server learns them from the messages.
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "comch_ping.h"
#include "sample_args.h"
#include "sample_common.h"

DOCA_LOG_REGISTER(COMCH_PING::MAIN);

static doca_error_t on_role(void *param, void *config)
{
	struct ping_config *cfg = config;
	const char *value = param;

	if (strcmp(value, "server") == 0) {
		cfg->role = PING_ROLE_SERVER;
	} else if (strcmp(value, "client") == 0) {
		cfg->role = PING_ROLE_CLIENT;
	} else {
		DOCA_LOG_ERR("--role must be 'server' or 'client', not '%s'", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

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

static doca_error_t on_epoll(void *param, void *config)
{
	struct ping_config *cfg = config;

	cfg->use_epoll = *(const bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t on_name(void *param, void *config)
{
	struct ping_config *cfg = config;
	const char *value = param;
	size_t len = strnlen(value, sizeof(cfg->name));

	if (len == 0 || len >= sizeof(cfg->name)) {
		DOCA_LOG_ERR("--name must have 1 to %zu characters", sizeof(cfg->name) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(cfg->name, value, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t register_flag(const char *short_name,
				  const char *long_name,
				  const char *arguments,
				  const char *description,
				  enum doca_argp_type type,
				  doca_argp_param_cb_t callback,
				  bool mandatory)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the --%s flag: %s", long_name, doca_error_get_descr(result));
		return result;
	}
	if (short_name != NULL)
		doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	if (arguments != NULL)
		doca_argp_param_set_arguments(param, arguments);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, type);
	if (mandatory)
		doca_argp_param_set_mandatory(param);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot register the --%s flag: %s", long_name, doca_error_get_descr(result));
	return result;
}

static doca_error_t register_ping_flags(void)
{
	doca_error_t result;

	result = sample_args_register(SAMPLE_ARG_PCI | SAMPLE_ARG_REP);
	if (result == DOCA_SUCCESS)
		result = register_flag(NULL, "role", "<server|client>", "Which side to play", DOCA_ARGP_TYPE_STRING,
				       on_role, true);
	if (result == DOCA_SUCCESS)
		result = register_flag("n", "count", "<num>", "Number of messages the client sends (default 1000)",
				       DOCA_ARGP_TYPE_INT, on_count, false);
	if (result == DOCA_SUCCESS)
		result = register_flag("s", "size", "<bytes>", "Size of each message, header included (default 64)",
				       DOCA_ARGP_TYPE_INT, on_size, false);
	if (result == DOCA_SUCCESS)
		result = register_flag(NULL, "epoll", NULL,
				       "Sleep on the progress engine's notification handle instead of polling",
				       DOCA_ARGP_TYPE_BOOLEAN, on_epoll, false);
	if (result == DOCA_SUCCESS)
		result = register_flag(NULL, "name", "<name>", "Server name (default comch_ping)",
				       DOCA_ARGP_TYPE_STRING, on_name, false);
	return result;
}

int main(int argc, char **argv)
{
	struct ping_config cfg;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	memset(&cfg, 0, sizeof(cfg));
	cfg.count = PING_DEFAULT_COUNT;
	cfg.size = PING_DEFAULT_SIZE;
	strcpy(cfg.name, PING_DEFAULT_NAME);
	result = sample_args_init(&cfg.comch, NULL, PING_DEFAULT_REP_PCI, NULL);
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
	result = register_ping_flags();
	if (result != DOCA_SUCCESS)
		goto argp_done;
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot parse the command line: %s", doca_error_get_descr(result));
		goto argp_done;
	}

	if (!cfg.comch.pci_addr_given)
		strcpy(cfg.comch.pci_addr,
		       cfg.role == PING_ROLE_SERVER ? PING_DEFAULT_SERVER_PCI : PING_DEFAULT_CLIENT_PCI);

	switch (cfg.role) {
	case PING_ROLE_SERVER:
		result = ping_run_server(&cfg);
		break;
	case PING_ROLE_CLIENT:
		result = ping_run_client(&cfg);
		break;
	default:
		DOCA_LOG_ERR("--role server or --role client is required");
		result = DOCA_ERROR_INVALID_VALUE;
		break;
	}
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("comch_ping failed: %s", doca_error_get_descr(result));

argp_done:
	doca_argp_destroy();
out:
	sample_args_release(&cfg.comch);
	return exit_status;
}
