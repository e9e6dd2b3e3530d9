// SPDX-License-Identifier: Apache-2.0
//
// Data-path client sample, host side: connects to the server and, once both sides agreed to
// start over the control channel, sends --text to the server's consumer through a producer, then
// receives the server's text through a consumer of its own and prints it. Flags, defaults and
// the server name are those of NVIDIA's comch_data_path_high_speed_client sample.
#include "sample_args.h"

#define SERVER_NAME      "comch_data_path_sample_server"
#define DEFAULT_PCI_ADDR "b1:00.0"
#define DEFAULT_TEXT     "Message from the client"

// In comch_data_path_high_speed_client_sample.c.
doca_error_t run_data_path_client(const char *server_name, const char *pci_addr, const char *text, uint32_t text_len);

static doca_error_t run(const struct sample_comch_args *args)
{
	return run_data_path_client(SERVER_NAME, args->pci_addr, args->text, args->text_len);
}

int main(int argc, char **argv)
{
	// The client has no representor; -r is accepted (and ignored) like in NVIDIA's sample.
	return sample_comch_main(argc, argv, DEFAULT_PCI_ADDR, NULL, DEFAULT_TEXT, "client", run);
}
