// SPDX-License-Identifier: Apache-2.0
//
// Control-path server sample, DPU side: waits for one client, prints the message it sends,
// answers with --text and stops as soon as the answer has been sent.
// Flags and defaults are those of NVIDIA's comch_ctrl_path_server sample, so this program and
// NVIDIA's client (or the other way round) can talk to each other.
#include "sample_args.h"

#define SERVER_NAME          "comch_ctrl_path_sample_server"
#define DEFAULT_PCI_ADDR     "03:00.0"
#define DEFAULT_REP_PCI_ADDR "b1:00.0"
#define DEFAULT_TEXT         "Message from the client"

// In comch_ctrl_path_server_sample.c.
doca_error_t run_ctrl_path_server(
	const char *server_name, const char *pci_addr, const char *rep_pci_addr, const char *reply, uint32_t reply_len);

static doca_error_t run(const struct sample_comch_args *args)
{
	return run_ctrl_path_server(SERVER_NAME, args->pci_addr, args->rep_pci_addr, args->text, args->text_len);
}

int main(int argc, char **argv)
{
	return sample_comch_main(argc, argv, DEFAULT_PCI_ADDR, DEFAULT_REP_PCI_ADDR, DEFAULT_TEXT, "server", run);
}
