// SPDX-License-Identifier: Apache-2.0
//
// The Comch sample command-line flags, registered with doca_argp:
//   -p, --pci-addr   PCI address of the Comch device
//   -r, --rep-pci    PCI address of the representor (the host function it stands for; DPU side)
//   -t, --text       text to send to the other side
// The program configuration handed to doca_argp_init() must begin with a struct
// sample_comch_args: the flag callbacks write into it.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sample_arg_flags {
	SAMPLE_ARG_PCI = 1u << 0,
	SAMPLE_ARG_REP = 1u << 1,
	SAMPLE_ARG_TEXT = 1u << 2,
};

struct sample_comch_args {
	char pci_addr[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char rep_pci_addr[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char *text;          // heap copy; released by sample_args_release()
	uint32_t text_len;   // without the terminating NUL
	bool pci_addr_given; // -p was on the command line
	bool rep_pci_given;  // -r was on the command line
};

// Fills in the defaults (any of them may be NULL: empty address / no text).
doca_error_t
sample_args_init(struct sample_comch_args *args, const char *pci_addr, const char *rep_pci_addr, const char *text);

// Registers the flags selected by `which` (an OR of enum sample_arg_flags). Call between
// doca_argp_init() and doca_argp_start().
doca_error_t sample_args_register(unsigned int which);

void sample_args_release(struct sample_comch_args *args);

// Registers a program's flags (between doca_argp_init() and doca_argp_start()).
typedef doca_error_t (*sample_register_fn)(const void *arg);

// doca_argp_init(NULL, config), register_flags(arg), doca_argp_start(argc, argv); failures are
// logged. On success the caller destroys the parser (doca_argp_destroy()) when it is done with
// the flags; on failure it is destroyed already.
doca_error_t sample_argp_parse(int argc, char **argv, void *config, sample_register_fn register_flags, const void *arg);

// What a sample does once its flags are parsed.
typedef doca_error_t (*sample_run_fn)(const struct sample_comch_args *args);

// The main() of the Comch samples, shaped like NVIDIA's: defaults (`rep_pci_addr` NULL for the
// host side, whose -r is accepted and ignored as in NVIDIA's client samples), logging, the -p/-r/-t
// flags, then `run`; it logs "Sample finished successfully" or "Sample finished with errors" and
// returns the exit status. `role` ("client", "server") names the side in the error line.
int sample_comch_main(int argc,
		      char **argv,
		      const char *pci_addr,
		      const char *rep_pci_addr,
		      const char *text,
		      const char *role,
		      sample_run_fn run);

#ifdef __cplusplus
}
#endif
