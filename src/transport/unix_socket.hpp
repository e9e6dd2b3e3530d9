// SPDX-License-Identifier: Apache-2.0
//
// Unix SOCK_SEQPACKET sockets for the rendezvous and the per-connection liveness channel.
//
// Every socket is created SOCK_NONBLOCK | SOCK_CLOEXEC; nothing here ever blocks (except the
// brief directory lock of listen_at(), see there). Messages are atomic (SEQPACKET): one
// send_msg() is one recv_msg(), and file descriptors travel with them as SCM_RIGHTS. Received
// fds are close-on-exec (MSG_CMSG_CLOEXEC); sends never raise SIGPIPE (MSG_NOSIGNAL).
//
// Error vocabulary (doca_error_t throughout; outputs are written on success only):
//   DOCA_ERROR_AGAIN              nothing to do now (EAGAIN/EWOULDBLOCK): poll and retry
//   DOCA_ERROR_NOT_FOUND          connect_to(): no server at that path (ENOENT), or a stale
//                                 socket file whose server died (ECONNREFUSED)
//   DOCA_ERROR_ALREADY_EXIST      listen_at(): a live server already listens at the path
//   DOCA_ERROR_CONNECTION_RESET   the peer closed (EOF) or reset the connection
//   DOCA_ERROR_INVALID_VALUE      bad argument, path too long for sockaddr_un, or a received
//                                 message/fd list that did not fit (its fds are closed)
//   DOCA_ERROR_TOO_BIG            send_msg(): message larger than the socket allows
//   DOCA_ERROR_NOT_PERMITTED      EACCES/EPERM on the path
//   DOCA_ERROR_NO_MEMORY          out of fds or kernel memory (EMFILE, ENFILE, ENOBUFS, ENOMEM)
//   DOCA_ERROR_OPERATING_SYSTEM   any other system call failure
//
// Thread safety: free functions on caller-owned fds; no shared state.
#pragma once

#include "common/unique_fd.hpp"
#include "common/visibility.hpp"

#include <doca_error.h>

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace softcomch::transport {

// Most fds one message may carry (the kernel allows 253; our protocol needs at most a few).
inline constexpr size_t k_max_msg_fds = 8;

// Longest path a sockaddr_un can hold (without its NUL).
size_t max_socket_path() noexcept;

// Binds and listens at `path` (backlog SOMAXCONN). If a file already exists there:
//   a socket with a live listener         -> DOCA_ERROR_ALREADY_EXIST
//   a socket nobody listens on (stale)    -> unlinked, then bound
//   not a socket                          -> DOCA_ERROR_ALREADY_EXIST (never unlinked)
// The probe-unlink-bind sequence runs under an flock() of the parent directory, so two servers
// racing for one stale path cannot unlink each other's live socket (the lock is held for a few
// system calls only; list_endpoints() cleanup takes the same lock).
// Other errors: DOCA_ERROR_INVALID_VALUE (path empty or too long), DOCA_ERROR_NOT_PERMITTED,
// DOCA_ERROR_NOT_FOUND (parent directory missing), DOCA_ERROR_NO_MEMORY,
// DOCA_ERROR_OPERATING_SYSTEM.
doca_error_t listen_at(const std::string &path, unique_fd &out) noexcept;

// Connects to the listener at `path` without blocking. For Unix sockets a successful connect is
// immediate (DOCA_SUCCESS: the connection is established; the server sees it on accept).
// DOCA_ERROR_NOT_FOUND when no server is there (ENOENT) or the socket is stale (ECONNREFUSED):
// a client that waits for its server retries later. DOCA_ERROR_AGAIN when the server's backlog
// is full (EAGAIN): retry soon. Others as listed above.
doca_error_t connect_to(const std::string &path, unique_fd &out) noexcept;

// Accepts one pending connection (non-blocking, close-on-exec). DOCA_ERROR_AGAIN when none is
// pending (also after ECONNABORTED/EINTR: the caller polls again).
doca_error_t accept_from(int listen_fd, unique_fd &out) noexcept;

// Sends one message of `len` bytes (1..) with `nfds` (0..k_max_msg_fds) descriptors attached.
// The fds stay owned by the caller (the kernel duplicates them into the message).
// DOCA_ERROR_AGAIN (socket buffer full), DOCA_ERROR_CONNECTION_RESET (peer gone: EPIPE,
// ECONNRESET), DOCA_ERROR_TOO_BIG (EMSGSIZE), DOCA_ERROR_INVALID_VALUE (len 0, nfds too big).
doca_error_t send_msg(int fd, const void *buf, size_t len, const int *fds, size_t nfds) noexcept;

// Receives one message into `buf` (`cap` bytes): `*len` = its size, `fds[0..*nfds)` = the
// descriptors that came with it (close-on-exec, now owned by the caller). `fds`/`nfds` may be
// null when `max_fds` is 0: any fd that arrives is then closed and the call fails.
// DOCA_ERROR_AGAIN: no message. DOCA_ERROR_CONNECTION_RESET: the peer closed (EOF; our
// protocol never sends empty messages, so a 0-byte read is always EOF) or reset.
// DOCA_ERROR_INVALID_VALUE: the message was longer than `cap` (MSG_TRUNC), carried more fds than
// `max_fds` or than fit (MSG_CTRUNC) - every received fd is closed and the message is consumed.
doca_error_t recv_msg(int fd, void *buf, size_t cap, size_t *len, int *fds, size_t *nfds,
                      size_t max_fds) noexcept;

// Credentials of the connected peer (SO_PEERCRED): its pid, or DOCA_ERROR_OPERATING_SYSTEM.
doca_error_t peer_pid(int fd, pid_t *pid) noexcept;

// What is at a socket path (used by listen_at() and the fabric's stale-endpoint cleanup).
enum class socket_probe {
    live,       // a listener accepted our probe connection
    stale,      // a socket file nobody listens on (ECONNREFUSED)
    absent,     // no such file
    not_socket, // something else is at the path
    error,      // could not tell (permission, path too long, ...)
};
// Probes `path` with a non-blocking connect (closed at once; a live server sees a connection
// that hangs up before sending anything - servers must tolerate that).
SOFTCOMCH_API socket_probe probe_socket(const std::string &path) noexcept;

// Exclusive flock() on directory `dir`, held until the returned fd is closed. Serialises
// endpoint creation and cleanup inside one fabric directory. Blocks only while another process
// holds it (a few system calls). Returns an empty unique_fd on failure (errno set).
unique_fd lock_directory(const std::string &dir) noexcept;

} // namespace softcomch::transport
