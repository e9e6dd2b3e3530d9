// SPDX-License-Identifier: Apache-2.0
//
// What the project's test programs (comch_ping, comch_stream) share beyond samples/common: their
// main() (the -p/-r flags of the samples, --role, the program's own flags, --epoll and --name;
// the default device address of each role), percentiles of the latencies they measure, and the
// idle step of their busy polling.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_error.h>

#include "sample_args.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROGRAM_DEFAULT_SERVER_PCI "03:00.0"
#define PROGRAM_DEFAULT_CLIENT_PCI "b1:00.0"
#define PROGRAM_DEFAULT_REP_PCI    "b1:00.0"
#define PROGRAM_NAME_MAX           128
#define PROGRAM_SPIN_NS            200000ull // keep polling this long after the last piece of work

enum program_role {
	PROGRAM_ROLE_NONE = 0,
	PROGRAM_ROLE_SERVER,
	PROGRAM_ROLE_CLIENT,
};

// The beginning of every program's configuration, which program_main() hands to doca_argp_init():
// the shared flag callbacks write into it.
struct program_args {
	struct sample_comch_args comch; // must come first: the samples' flag callbacks write into it
	enum program_role role;
	bool use_epoll;
	char name[PROGRAM_NAME_MAX]; // the server's name
};

// One flag of a program's own; short_name and arguments may be NULL. The callback receives the
// whole configuration.
struct program_flag {
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
	enum doca_argp_type type;
	doca_argp_param_cb_t callback;
	bool mandatory;
};

struct program_spec {
	const char *program;              // "comch_ping": names the program in its failure line
	const char *default_name;         // default server name
	const char *name_description;     // --name's
	const char *epoll_description;    // --epoll's
	const struct program_flag *flags; // the program's own, registered between --role and --epoll
	size_t num_flags;
	// The two roles; `config` is the whole configuration, which begins with the program_args.
	doca_error_t (*run_server)(const void *config);
	doca_error_t (*run_client)(const void *config);
};

// The main() of a program: sets the default name and representor, starts logging, registers
// -p/-r, --role, spec->flags, --epoll and --name, parses the command line, gives -p the default of
// the role when it was not given, and runs the role. `args` begins the program's configuration,
// whose other fields hold their defaults already. Logs "<program> failed: ..." on failure and
// returns the exit status.
int program_main(int argc, char **argv, struct program_args *args, const struct program_spec *spec);

// "poll" or "epoll"
const char *program_mode_name(const struct program_args *args);

// Sorts `n` values in place, smallest first.
void program_sort_u64(uint64_t *values, size_t n);

// Nearest-rank percentile (0..100) of `n` sorted values; 0 when n == 0.
uint64_t program_percentile(const uint64_t *sorted, size_t n, unsigned int pct);

// The idle step of a busy-polling latency tool, after a round of progress calls that found nothing
// to do: while work came in the last PROGRAM_SPIN_NS (or the deadline is that close), yields the
// CPU to anything else runnable, so a peer sharing it still runs; otherwise naps
// (sample_nap()), so an idle side does not burn a CPU. Never past wake_at_ns (0: no deadline).
void program_poll_idle(uint64_t last_work_ns, uint64_t wake_at_ns);

#ifdef __cplusplus
}
#endif
