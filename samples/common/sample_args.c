// SPDX-License-Identifier: Apache-2.0
#include "sample_args.h"
#include "sample_common.h"

#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

DOCA_LOG_REGISTER(SAMPLES::ARGS);

// Copies a PCI address into a fixed buffer, refusing one that cannot fit.
static doca_error_t copy_pci_addr(char *dst, size_t dst_size, const char *value, const char *what)
{
	size_t len = strnlen(value, dst_size);

	if (len >= dst_size) {
		DOCA_LOG_ERR("The %s '%s' is too long (at most %zu characters)", what, value, dst_size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(dst, value, len + 1);
	return DOCA_SUCCESS;
}

static doca_error_t set_text(struct sample_comch_args *args, const char *value)
{
	size_t len = strlen(value);
	char *copy;

	if (len > UINT32_MAX) {
		DOCA_LOG_ERR("The text is too long");
		return DOCA_ERROR_INVALID_VALUE;
	}
	copy = strdup(value);
	if (copy == NULL)
		return DOCA_ERROR_NO_MEMORY;
	free(args->text);
	args->text = copy;
	args->text_len = (uint32_t)len;
	return DOCA_SUCCESS;
}

// doca_argp hands a STRING flag's value to its callback as the string itself.
static doca_error_t on_pci_addr(void *param, void *config)
{
	struct sample_comch_args *args = config;
	doca_error_t result;

	result = copy_pci_addr(args->pci_addr, sizeof(args->pci_addr), (const char *)param, "device PCI address");
	if (result == DOCA_SUCCESS)
		args->pci_addr_given = true;
	return result;
}

static doca_error_t on_rep_pci(void *param, void *config)
{
	struct sample_comch_args *args = config;
	doca_error_t result;

	result = copy_pci_addr(args->rep_pci_addr, sizeof(args->rep_pci_addr), (const char *)param,
			       "representor PCI address");
	if (result == DOCA_SUCCESS)
		args->rep_pci_given = true;
	return result;
}

static doca_error_t on_text(void *param, void *config)
{
	return set_text(config, (const char *)param);
}

doca_error_t
sample_args_init(struct sample_comch_args *args, const char *pci_addr, const char *rep_pci_addr, const char *text)
{
	doca_error_t result;

	memset(args, 0, sizeof(*args));
	if (pci_addr != NULL) {
		result = copy_pci_addr(args->pci_addr, sizeof(args->pci_addr), pci_addr, "device PCI address");
		if (result != DOCA_SUCCESS)
			return result;
	}
	if (rep_pci_addr != NULL) {
		result = copy_pci_addr(args->rep_pci_addr, sizeof(args->rep_pci_addr), rep_pci_addr,
				       "representor PCI address");
		if (result != DOCA_SUCCESS)
			return result;
	}
	return text != NULL ? set_text(args, text) : DOCA_SUCCESS;
}

static doca_error_t
register_string(const char *short_name, const char *long_name, const char *description, doca_argp_param_cb_t callback)
{
	struct doca_argp_param *param;
	doca_error_t result;

	result = doca_argp_param_create(&param);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot create the --%s flag: %s", long_name, doca_error_get_descr(result));
		return result;
	}
	doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_description(param, description);
	doca_argp_param_set_callback(param, callback);
	doca_argp_param_set_type(param, DOCA_ARGP_TYPE_STRING);
	result = doca_argp_register_param(param);
	if (result != DOCA_SUCCESS)
		DOCA_LOG_ERR("Cannot register the --%s flag: %s", long_name, doca_error_get_descr(result));
	return result;
}

doca_error_t sample_args_register(unsigned int which)
{
	doca_error_t result = DOCA_SUCCESS;

	if (which & SAMPLE_ARG_PCI)
		result = register_string("p", "pci-addr", "DOCA Comm Channel device PCI address", on_pci_addr);
	if (result == DOCA_SUCCESS && (which & SAMPLE_ARG_REP))
		result = register_string("r", "rep-pci",
					 "DOCA Comm Channel device representor PCI address (needed only on DPU)",
					 on_rep_pci);
	if (result == DOCA_SUCCESS && (which & SAMPLE_ARG_TEXT))
		result = register_string("t", "text", "Text to be sent to the other side of channel", on_text);
	return result;
}

void sample_args_release(struct sample_comch_args *args)
{
	free(args->text);
	args->text = NULL;
	args->text_len = 0;
}

doca_error_t sample_argp_parse(int argc, char **argv, void *config, sample_register_fn register_flags, const void *arg)
{
	doca_error_t result;

	result = doca_argp_init(NULL, config);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set up the argument parser: %s", doca_error_get_descr(result));
		return result;
	}
	result = register_flags(arg);
	if (result == DOCA_SUCCESS) {
		result = doca_argp_start(argc, argv);
		if (result != DOCA_SUCCESS)
			DOCA_LOG_ERR("Cannot parse the command line: %s", doca_error_get_descr(result));
	}
	if (result != DOCA_SUCCESS)
		doca_argp_destroy();
	return result;
}

static doca_error_t register_sample_flags(const void *arg)
{
	(void)arg;
	return sample_args_register(SAMPLE_ARG_PCI | SAMPLE_ARG_REP | SAMPLE_ARG_TEXT);
}

int sample_comch_main(int argc,
		      char **argv,
		      const char *pci_addr,
		      const char *rep_pci_addr,
		      const char *text,
		      const char *role,
		      sample_run_fn run)
{
	struct sample_comch_args args;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	result = sample_args_init(&args, pci_addr, rep_pci_addr, text);
	if (result != DOCA_SUCCESS)
		goto out;

	result = sample_logging_init();
	if (result != DOCA_SUCCESS)
		goto out;

	DOCA_LOG_INFO("Starting the sample");

	result = sample_argp_parse(argc, argv, &args, register_sample_flags, NULL);
	if (result != DOCA_SUCCESS)
		goto out;

	result = run(&args);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The %s did not complete: %s", role, doca_error_get_descr(result));
		goto argp_done;
	}
	exit_status = EXIT_SUCCESS;

argp_done:
	doca_argp_destroy();
out:
	sample_args_release(&args);
	if (exit_status == EXIT_SUCCESS)
		DOCA_LOG_INFO("Sample finished successfully");
	else
		DOCA_LOG_INFO("Sample finished with errors");
	return exit_status;
}
