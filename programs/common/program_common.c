// SPDX-License-Identifier: Apache-2.0
#include "program_common.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "sample_common.h"

DOCA_LOG_REGISTER(PROGRAMS::COMMON);

static doca_error_t on_role(void *param, void *config)
{
	struct program_args *args = config;
	const char *value = param;

	if (strcmp(value, "server") == 0) {
		args->role = PROGRAM_ROLE_SERVER;
	} else if (strcmp(value, "client") == 0) {
		args->role = PROGRAM_ROLE_CLIENT;
	} else {
		DOCA_LOG_ERR("--role must be 'server' or 'client', not '%s'", value);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t on_epoll(void *param, void *config)
{
	((struct program_args *)config)->use_epoll = *(const bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t on_name(void *param, void *config)
{
	struct program_args *args = config;
	const char *value = param;
	size_t len = strnlen(value, sizeof(args->name));

	if (len == 0 || len >= sizeof(args->name)) {
		DOCA_LOG_ERR("--name must have 1 to %zu characters", sizeof(args->name) - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(args->name, value, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t register_flag(const struct program_flag *f)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the --%s flag: %s", f->long_name, doca_error_get_descr(result));
		return result;
	}
	if (f->short_name != NULL)
		doca_argp_param_set_short_name(param, f->short_name);
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
	return result;
}

static doca_error_t register_flags(const void *arg)
{
	const struct program_spec *spec = arg;
	const struct program_flag role = {
		NULL, "role", "<server|client>", "Which side to play", DOCA_ARGP_TYPE_STRING, on_role, true};
	const struct program_flag epoll = {NULL,     "epoll", NULL, spec->epoll_description, DOCA_ARGP_TYPE_BOOLEAN,
					   on_epoll, false};
	const struct program_flag name = {NULL,    "name", "<name>", spec->name_description, DOCA_ARGP_TYPE_STRING,
					  on_name, false};
	doca_error_t result;
	size_t i;

	result = sample_args_register(SAMPLE_ARG_PCI | SAMPLE_ARG_REP);
	if (result == DOCA_SUCCESS)
		result = register_flag(&role);
	for (i = 0; result == DOCA_SUCCESS && i < spec->num_flags; i++)
		result = register_flag(&spec->flags[i]);
	if (result == DOCA_SUCCESS)
		result = register_flag(&epoll);
	if (result == DOCA_SUCCESS)
		result = register_flag(&name);
	return result;
}

int program_main(int argc, char **argv, struct program_args *args, const struct program_spec *spec)
{
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	strcpy(args->name, spec->default_name);
	result = sample_args_init(&args->comch, NULL, PROGRAM_DEFAULT_REP_PCI, NULL);
	if (result != DOCA_SUCCESS)
		goto out;

	result = sample_logging_init();
	if (result != DOCA_SUCCESS)
		goto out;

	result = sample_argp_parse(argc, argv, args, register_flags, spec);
	if (result != DOCA_SUCCESS)
		goto out;

	if (!args->comch.pci_addr_given)
		strcpy(args->comch.pci_addr,
		       args->role == PROGRAM_ROLE_SERVER ? PROGRAM_DEFAULT_SERVER_PCI : PROGRAM_DEFAULT_CLIENT_PCI);

	switch (args->role) {
	case PROGRAM_ROLE_SERVER:
		result = spec->run_server(args);
		break;
	case PROGRAM_ROLE_CLIENT:
		result = spec->run_client(args);
		break;
	default:
		DOCA_LOG_ERR("--role server or --role client is required");
		result = DOCA_ERROR_INVALID_VALUE;
		break;
	}
	if (result == DOCA_SUCCESS)
		exit_status = EXIT_SUCCESS;
	else
		DOCA_LOG_ERR("%s failed: %s", spec->program, doca_error_get_descr(result));
	doca_argp_destroy();
out:
	sample_args_release(&args->comch);
	return exit_status;
}

const char *program_mode_name(const struct program_args *args)
{
	return args->use_epoll ? "epoll" : "poll";
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a;
	uint64_t y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void program_sort_u64(uint64_t *values, size_t n)
{
	qsort(values, n, sizeof(values[0]), compare_u64);
}

uint64_t program_percentile(const uint64_t *sorted, size_t n, unsigned int pct)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = (n * pct + 99) / 100;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

void program_poll_idle(uint64_t last_work_ns, uint64_t wake_at_ns)
{
	uint64_t now = sample_now_ns();

	if (wake_at_ns != 0 && wake_at_ns <= now)
		return;
	if (now - last_work_ns < PROGRAM_SPIN_NS || (wake_at_ns != 0 && wake_at_ns - now < PROGRAM_SPIN_NS)) {
		sched_yield();
		return;
	}
	sample_nap(wake_at_ns != 0 ? wake_at_ns - now : 0);
}
