// SPDX-License-Identifier: Apache-2.0
//
// Data-path server sample, DPU side: once a client has connected and both sides agreed to start
// over the control channel, receives the client's text through a consumer of its own, prints it,
// then sends --text to the client's consumer through a producer. Flags, defaults and the server
// name are those of NVIDIA's comch_data_path_high_speed_server sample, so this program and
// NVIDIA's client (or the other way round) can talk to each other.
#include <stdlib.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

#include "sample_args.h"
#include "sample_common.h"

#define SERVER_NAME "comch_data_path_sample_server"
#define DEFAULT_PCI_ADDR "03:00.0"
#define DEFAULT_REP_PCI_ADDR "b1:00.0"
#define DEFAULT_TEXT "Message from the client"

DOCA_LOG_REGISTER(DATA_PATH_SERVER::MAIN);

// In comch_data_path_high_speed_server_sample.c.
doca_error_t run_data_path_server(
    const char *server_name, const char *pci_addr, const char *rep_pci_addr, const char *text, uint32_t text_len);

int main(int argc, char **argv)
{
	struct sample_comch_args args;
	int exit_status = EXIT_FAILURE;
	doca_error_t result;

	result = sample_args_init(&args, DEFAULT_PCI_ADDR, DEFAULT_REP_PCI_ADDR, DEFAULT_TEXT);
	if (result != DOCA_SUCCESS)
		goto out;

	result = sample_logging_init();
	if (result != DOCA_SUCCESS)
		goto out;

	DOCA_LOG_INFO("Starting the sample");

	result = doca_argp_init(NULL, &args);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot set up the argument parser: %s", doca_error_get_descr(result));
		goto out;
	}
	result = sample_args_register(SAMPLE_ARG_PCI | SAMPLE_ARG_REP | SAMPLE_ARG_TEXT);
	if (result != DOCA_SUCCESS)
		goto argp_done;
	result = doca_argp_start(argc, argv);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cannot parse the command line: %s", doca_error_get_descr(result));
		goto argp_done;
	}

	result = run_data_path_server(SERVER_NAME, args.pci_addr, args.rep_pci_addr, args.text, args.text_len);
	if (result != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The server did not complete: %s", doca_error_get_descr(result));
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
