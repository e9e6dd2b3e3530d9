// SPDX-License-Identifier: Apache-2.0
//
// A Comch server in a program of its own, for the diagnostics tests
// (tests/integration/test_diagnostics.cpp) that need a server under another environment than
// the test process (a topology file with a small client limit: a forked child would keep the
// machine its parent already loaded). Public API only; no SDK log backend, so the library's
// WARNING and ERROR lines go to stderr, where the test reads them.
//
// Usage: comch_diag_server NAME [DEV_PCI [REP_PCI]]   (default 03:00.0, b1:00.0)
//   prints "ready" on stdout once listening, serves until stdin reaches end of file, exits 0.
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>

#include "program_util.hpp"

namespace {

constexpr const char *k_prog = "comch_diag_server";

void on_connect(doca_comch_event_connection_status_changed *, doca_comch_connection *, uint8_t) {}

void on_recv(doca_comch_event_msg_recv *, uint8_t *, uint32_t, doca_comch_connection *) {}

void on_send(doca_comch_task_send *task, union doca_data, union doca_data)
{
    doca_task_free(doca_comch_task_send_as_task(task));
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        std::fprintf(stderr, "usage: %s NAME [DEV_PCI [REP_PCI]]\n", k_prog);
        return 2;
    }
    const char *dev_pci = argc > 2 ? argv[2] : "03:00.0";
    const char *rep_pci = argc > 3 ? argv[3] : "b1:00.0";
    doca_dev *dev = sc_prog::open_dev(dev_pci);
    doca_dev_rep *rep = dev ? sc_prog::open_rep(dev, rep_pci) : nullptr;
    if (!rep)
        sc_prog::die(k_prog, "device or representor not found", DOCA_ERROR_NOT_FOUND);
    doca_pe *pe = nullptr;
    doca_comch_server *srv = nullptr;
    doca_error_t rc = doca_pe_create(&pe);
    if (rc == DOCA_SUCCESS)
        rc = doca_comch_server_create(dev, rep, argv[1], &srv);
    doca_ctx *ctx = srv ? doca_comch_server_as_ctx(srv) : nullptr;
    if (rc == DOCA_SUCCESS)
        rc = doca_comch_server_task_send_set_conf(srv, on_send, on_send, 16);
    if (rc == DOCA_SUCCESS)
        rc = doca_comch_server_event_msg_recv_register(srv, on_recv);
    if (rc == DOCA_SUCCESS)
        rc =
            doca_comch_server_event_connection_status_changed_register(srv, on_connect, on_connect);
    if (rc == DOCA_SUCCESS)
        rc = doca_pe_connect_ctx(pe, ctx);
    if (rc == DOCA_SUCCESS)
        rc = doca_ctx_start(ctx);
    if (rc != DOCA_SUCCESS)
        sc_prog::die(k_prog, "server start", rc);
    std::printf("ready\n");
    std::fflush(stdout);
    // Serve until stdin closes: progress, and between rounds wait a millisecond on stdin.
    for (;;) {
        while (doca_pe_progress(pe) != 0) {
        }
        pollfd p{STDIN_FILENO, POLLIN, 0};
        if (::poll(&p, 1, 1) > 0) {
            char buf[64];
            if (::read(STDIN_FILENO, buf, sizeof buf) <= 0)
                break;
        }
    }
    if (doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS) {
        doca_ctx_states st = DOCA_CTX_STATE_STOPPING;
        while (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE)
            (void)doca_pe_progress(pe);
    }
    doca_comch_server_destroy(srv);
    doca_pe_destroy(pe);
    doca_dev_rep_close(rep);
    doca_dev_close(dev);
    return 0;
}
