/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A DPU/host pair written as a DOCA 1.5 - 2.x program of the legacy Comm Channel endpoint API
 * (doca_comm_channel.h), in C, as programs of that era are: the service sets its device and
 * representor, listens, and sleeps on its receive event channel (arm, epoll, recvfrom until
 * DOCA_ERROR_AGAIN), echoing every message; the client connects, waits for the connection with
 * doca_comm_channel_peer_addr_update_info, sends COUNT messages and checks every echo, reads the
 * peer's counters, says "bye" and disconnects.
 *
 * Usage: legacy_cc_pair [--messages COUNT] [--name NAME]
 * Output: "service: echoed N messages from 1 client, ok" and "client: N of N echoes intact, sent N
 * messages, ok" (any failure: a line on stderr, exit 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <doca_comm_channel.h>
#include <doca_dev.h>
#include <doca_error.h>

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "c_devices.h"

#define MAX_MSG 4080

static const char *g_name = "legacy-cc-pair";
static unsigned g_count = 200;

static int fail(const char *side, const char *what, doca_error_t rc)
{
    fprintf(stderr, "%s: %s: %s\n", side, what, doca_error_get_name(rc));
    return 1;
}

/* Sleeps until the channel is readable (at most timeout_ms). */
static bool wait_channel(doca_event_channel_t ch, int timeout_ms)
{
    struct pollfd p = {ch, POLLIN, 0};
    return poll(&p, 1, timeout_ms) == 1;
}

/* recvfrom, sleeping on the receive channel while nothing came (bounded). */
static doca_error_t recv_blocking(struct doca_comm_channel_ep_t *ep, doca_event_channel_t ch,
                                  char *buf, size_t *len, struct doca_comm_channel_addr_t **peer)
{
    for (int turns = 0; turns < 2000; turns++) {
        size_t n = *len;
        doca_error_t rc = doca_comm_channel_ep_recvfrom(ep, buf, &n, DOCA_CC_MSG_FLAG_NONE, peer);
        if (rc != DOCA_ERROR_AGAIN) {
            *len = n;
            return rc;
        }
        doca_comm_channel_ep_event_handle_arm_recv(ep);
        (void)wait_channel(ch, 10);
    }
    return DOCA_ERROR_TIME_OUT;
}

/* sendto, sleeping on the send channel while the queue is full (bounded). */
static doca_error_t send_blocking(struct doca_comm_channel_ep_t *ep, doca_event_channel_t ch,
                                  const void *msg, size_t len,
                                  struct doca_comm_channel_addr_t *peer)
{
    for (int turns = 0; turns < 2000; turns++) {
        doca_error_t rc = doca_comm_channel_ep_sendto(ep, msg, len, DOCA_CC_MSG_FLAG_NONE, peer);
        if (rc != DOCA_ERROR_AGAIN)
            return rc;
        doca_comm_channel_ep_event_handle_arm_send(ep);
        (void)wait_channel(ch, 10);
    }
    return DOCA_ERROR_TIME_OUT;
}

static int run_service(int ready_fd)
{
    struct doca_dev *dev = sc_open_dev("03:00.0");
    struct doca_dev_rep *rep = dev ? sc_open_rep(dev, "b1:00.0") : NULL;
    struct doca_comm_channel_ep_t *ep = NULL;
    doca_event_channel_t send_ch = -1, recv_ch = -1;
    doca_error_t rc;
    char one = 1;
    if (dev == NULL || rep == NULL)
        return fail("service", "open the device and its representor", DOCA_ERROR_NOT_FOUND);
    if ((rc = doca_comm_channel_ep_create(&ep)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_device(ep, dev)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_device_rep(ep, rep)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_max_msg_size(ep, MAX_MSG)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_send_queue_size(ep, 16)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_recv_queue_size(ep, 16)) != DOCA_SUCCESS)
        return fail("service", "endpoint properties", rc);
    if ((rc = doca_comm_channel_ep_listen(ep, g_name)) != DOCA_SUCCESS)
        return fail("service", "doca_comm_channel_ep_listen", rc);
    if ((rc = doca_comm_channel_ep_get_event_channel(ep, &send_ch, &recv_ch)) != DOCA_SUCCESS)
        return fail("service", "doca_comm_channel_ep_get_event_channel", rc);
    if (write(ready_fd, &one, 1) != 1)
        return 1;
    unsigned echoed = 0;
    struct doca_comm_channel_addr_t *client = NULL;
    for (;;) {
        char buf[MAX_MSG];
        size_t len = sizeof(buf);
        struct doca_comm_channel_addr_t *peer = NULL;
        if ((rc = recv_blocking(ep, recv_ch, buf, &len, &peer)) != DOCA_SUCCESS)
            return fail("service", "recvfrom", rc);
        if (client == NULL) {
            client = peer; /* the first message of a new client carries its address */
            (void)doca_comm_channel_peer_addr_set_user_data(client, 42);
        }
        uint64_t tag = 0;
        (void)doca_comm_channel_peer_addr_get_user_data(peer, &tag);
        if (peer != client || tag != 42)
            return fail("service", "a message from an unknown peer", DOCA_ERROR_UNEXPECTED);
        if ((rc = send_blocking(ep, send_ch, buf, len, peer)) != DOCA_SUCCESS)
            return fail("service", "sendto", rc);
        if (len == 4 && memcmp(buf, "bye", 4) == 0)
            break;
        echoed++;
    }
    /* The client disconnects after our "bye": wait for it (bounded), then free its address. */
    uint32_t peers = 1;
    for (int i = 0; i < 2000 && peers != 0; i++) {
        struct doca_comm_channel_addr_t **list = NULL;
        (void)doca_comm_channel_ep_update_service_state_info(ep);
        (void)doca_comm_channel_ep_get_peer_addr_list(ep, &list, &peers);
        if (peers != 0) {
            doca_event_channel_t sch = -1;
            (void)doca_comm_channel_ep_get_service_event_channel(ep, &sch);
            (void)wait_channel(sch, 10);
        }
    }
    if (peers != 0)
        return fail("service", "the client never left", DOCA_ERROR_TIME_OUT);
    if ((rc = doca_comm_channel_ep_disconnect(ep, client)) != DOCA_SUCCESS)
        return fail("service", "doca_comm_channel_ep_disconnect", rc);
    if ((rc = doca_comm_channel_ep_destroy(ep)) != DOCA_SUCCESS)
        return fail("service", "doca_comm_channel_ep_destroy", rc);
    (void)doca_dev_rep_close(rep);
    (void)doca_dev_close(dev);
    bool ok = echoed == g_count;
    printf("service: echoed %u messages from 1 client, %s\n", echoed, ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok ? 0 : 1;
}

static int run_client(void)
{
    struct doca_dev *dev = sc_open_dev("b1:00.0");
    struct doca_comm_channel_ep_t *ep = NULL;
    struct doca_comm_channel_addr_t *peer = NULL;
    doca_event_channel_t send_ch = -1, recv_ch = -1;
    doca_error_t rc;
    if (dev == NULL)
        return fail("client", "open the device", DOCA_ERROR_NOT_FOUND);
    uint32_t max_msg = 0;
    if ((rc = doca_comm_channel_get_max_message_size(doca_dev_as_devinfo(dev), &max_msg)) !=
            DOCA_SUCCESS ||
        max_msg < MAX_MSG)
        return fail("client", "doca_comm_channel_get_max_message_size", rc);
    if ((rc = doca_comm_channel_ep_create(&ep)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_device(ep, dev)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_ep_set_max_msg_size(ep, MAX_MSG)) != DOCA_SUCCESS)
        return fail("client", "endpoint properties", rc);
    if ((rc = doca_comm_channel_ep_connect(ep, g_name, &peer)) != DOCA_SUCCESS)
        return fail("client", "doca_comm_channel_ep_connect", rc);
    /* As the DOCA 2.x samples wait for the connection. */
    while ((rc = doca_comm_channel_peer_addr_update_info(peer)) ==
           DOCA_ERROR_CONNECTION_INPROGRESS) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, &ts);
    }
    if (rc != DOCA_SUCCESS)
        return fail("client", "doca_comm_channel_peer_addr_update_info", rc);
    if ((rc = doca_comm_channel_ep_get_event_channel(ep, &send_ch, &recv_ch)) != DOCA_SUCCESS)
        return fail("client", "doca_comm_channel_ep_get_event_channel", rc);
    unsigned intact = 0;
    for (unsigned i = 0; i < g_count; i++) {
        char msg[128], buf[MAX_MSG];
        int n = snprintf(msg, sizeof(msg), "legacy message %u of %u", i, g_count);
        size_t len = sizeof(buf);
        struct doca_comm_channel_addr_t *from = NULL;
        if ((rc = send_blocking(ep, send_ch, msg, (size_t)n + 1, peer)) != DOCA_SUCCESS)
            return fail("client", "sendto", rc);
        if ((rc = recv_blocking(ep, recv_ch, buf, &len, &from)) != DOCA_SUCCESS)
            return fail("client", "recvfrom", rc);
        if (from == peer && len == (size_t)n + 1 && memcmp(buf, msg, len) == 0)
            intact++;
    }
    uint64_t sent = 0, recv = 0;
    if ((rc = doca_comm_channel_peer_addr_update_info(peer)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_peer_addr_get_send_messages(peer, &sent)) != DOCA_SUCCESS ||
        (rc = doca_comm_channel_peer_addr_get_recv_messages(peer, &recv)) != DOCA_SUCCESS)
        return fail("client", "peer counters", rc);
    char buf[MAX_MSG];
    size_t len = sizeof(buf);
    struct doca_comm_channel_addr_t *from = NULL;
    if ((rc = send_blocking(ep, send_ch, "bye", 4, peer)) != DOCA_SUCCESS ||
        (rc = recv_blocking(ep, recv_ch, buf, &len, &from)) != DOCA_SUCCESS)
        return fail("client", "bye", rc);
    if ((rc = doca_comm_channel_ep_disconnect(ep, peer)) != DOCA_SUCCESS)
        return fail("client", "doca_comm_channel_ep_disconnect", rc);
    if ((rc = doca_comm_channel_ep_destroy(ep)) != DOCA_SUCCESS)
        return fail("client", "doca_comm_channel_ep_destroy", rc);
    (void)doca_dev_close(dev);
    bool ok = intact == g_count && sent == g_count && recv == g_count;
    printf("client: %u of %u echoes intact, sent %llu messages, %s\n", intact, g_count,
           (unsigned long long)sent, ok ? "ok" : "FAILED");
    fflush(stdout);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc)
            g_count = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
            g_name = argv[++i];
        else {
            fprintf(stderr, "usage: legacy_cc_pair [--messages COUNT] [--name NAME]\n");
            return 2;
        }
    }
    int ready[2];
    if (g_count == 0 || pipe(ready) != 0)
        return 2;
    fflush(stdout);
    pid_t service = fork();
    if (service == 0) {
        close(ready[0]);
        _exit(run_service(ready[1]));
    }
    close(ready[1]);
    char one = 0;
    if (service < 0 || read(ready[0], &one, 1) != 1) {
        fprintf(stderr, "legacy_cc_pair: the service did not start\n");
        return 1;
    }
    close(ready[0]);
    int client_rc = run_client();
    int status = 0;
    if (client_rc != 0)
        kill(service, SIGTERM);
    if (waitpid(service, &status, 0) != service)
        return 1;
    return client_rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
