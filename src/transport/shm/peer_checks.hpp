// SPDX-License-Identifier: Apache-2.0
//
// What the shm transport checks about the things a peer hands over besides bytes: the kernel's
// word on who the peer is, the descriptors it sends (memfds, wake-up sockets) and the pid it
// writes into messages. Nothing here trusts a message; every answer comes from the kernel
// (SO_PEERCRED, SO_PEERPIDFD, fstat, F_GET_SEALS, getsockopt, /proc/<pid>/status).
//
// The checks return nullptr when the descriptor is what it claims, or a static text saying what
// is wrong (for the protocol-violation log line; docs/failure-model.md, "Peer input").
//
// Threat model (docs/failure-model.md): the peer may do anything with what the protocol gives
// it (bytes, shared memory, the descriptors it sent or received), but is assumed not to use
// powers it has over any process of its uid outside the protocol (ptrace, /proc/<pid>/mem,
// pidfd_getfd); those SoftComch cannot take away from a same-uid process. A peer of another
// uid is refused before a byte is read (peer_uid_allowed).
#pragma once

#include "common/unique_fd.hpp"

#include <doca_error.h>

#include <sys/types.h>

#include <cstdint>

namespace softcomch::transport::shm {

// The process at the other end of a connected Unix socket, as the kernel saw it at connect().
struct peer_identity {
    pid_t pid = 0; // in our pid namespace
    uid_t uid = 0; // effective uid at connect()
};

// Reads the peer's credentials of `sock`. DOCA_ERROR_OPERATING_SYSTEM when the kernel has none
// (not a connected Unix socket).
doca_error_t identify_peer(int sock, peer_identity &out) noexcept;

// A pidfd of the peer of `sock`, whose pid is `pid`: SO_PEERPIDFD (Linux 6.5: the process of
// connect() time, immune to pid reuse, however late it is asked), else pidfd_open(pid) (the
// process holding the pid now; the connection being alive, normally the peer). Taken when it is
// needed (a process_vm_writev consumer), so that a connection holds no extra descriptor.
// Empty when neither works.
unique_fd peer_pidfd(int sock, pid_t pid) noexcept;

// Whether a peer of `uid` may talk to us: the same effective uid as ours, or root (which could
// reach this process anyway). Any other uid is refused at accept and at connect.
bool peer_uid_allowed(uid_t uid) noexcept;

// Whether `claimed` (a pid the peer wrote in a message: HELLO, CONSUMER_ANNOUNCE) is the pid of
// the process the kernel says is at the other end (`kernel_pid`, in our namespace), seen from
// that process's own pid namespace (the last NSpid entry of /proc/<pid>/status): a client in a
// container sends the pid it sees, which is not ours.
bool claimed_pid_matches(pid_t kernel_pid, uint32_t claimed) noexcept;

// The process `pidfd` refers to still runs (it has not exited, so its pid is not reused).
// True when there is no pidfd (-1): nothing better is known.
bool peer_running(int pidfd) noexcept;

// A memfd the peer sends (segment, fast channel, consumer memory): a regular file on a
// page-sized filesystem whose seals include F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL, so the
// peer can neither truncate it under our mapping (SIGBUS) nor change the seals. `*size` gets the
// file's size.
const char *check_sealed_memfd(int fd, uint64_t *size) noexcept;

// Adds those seals to a memfd of ours (created with MFD_ALLOW_SEALING) before it is sent.
// DOCA_ERROR_OPERATING_SYSTEM when the kernel refuses.
doca_error_t seal_memfd(int fd) noexcept;

// A memfd of ours to send (segment, fast channel, doorbell, consumer memory), named `name`:
// close-on-exec (a program that forks and execs must not leak it), `size` bytes (a fresh file
// reads as zeros), its blocks reserved now if `reserve` (posix_fallocate: a full tmpfs fails
// here with DOCA_ERROR_NO_MEMORY instead of raising SIGBUS on first touch in the data path; a
// filesystem that cannot reserve is no error), and sealed (seal_memfd) so that the peer can
// neither shrink nor grow it. There is no POSIX shm fallback: the peer refuses a file that is
// not sealed. `out` gets the file on success only.
doca_error_t create_sealed_memfd(const char *name, uint64_t size, bool reserve,
                                 unique_fd &out) noexcept;

// create_sealed_memfd(), then mapped whole, shared and read-write at an address the kernel
// picks, its page tables populated now if `populate` (MAP_POPULATE: first touch is slow). On
// success `fd` gets the file and `*base` the mapping (the caller unmaps it); on failure nothing
// is left behind and neither is written.
doca_error_t create_mapped_memfd(const char *name, uint64_t size, bool reserve, bool populate,
                                 unique_fd &fd, void **base) noexcept;

// Pre-faults the pages of a mapping of a peer's file that the file already has (its data
// extents, found with SEEK_DATA/SEEK_HOLE), so that the data path does not fault on them, and
// never allocates for holes: a sparse file the peer sends costs this side nothing. `map` maps
// `len` bytes of `fd` from `file_offset`; at most `budget` bytes and a bounded number of extents
// are populated (MADV_POPULATE_WRITE, Linux 5.14; nothing on older kernels). Best effort.
void populate_allocated(void *map, uint64_t len, int fd, uint64_t file_offset,
                        uint64_t budget) noexcept;

// Maps a memfd the peer sent (segment, fast channel) whole, shared and read-write, once it is
// checked to be a sealed memfd (check_sealed_memfd) of exactly `size` bytes: mapping more than
// the file holds would raise SIGBUS beyond its end, and the seals keep the peer from truncating
// it under the mapping later. Checked on the fd itself (not a path): what is mapped is what was
// checked. With `prefault`, only the pages the file already holds are populated
// (populate_allocated: a sparse file costs this side nothing). DOCA_ERROR_INVALID_VALUE for a
// file that is not so; `*base` gets the mapping on success only (the caller unmaps it).
doca_error_t map_peer_memfd(int fd, uint64_t size, bool prefault, void **base) noexcept;

// A wake-up descriptor the peer sends (wake.hpp): one end of an AF_UNIX SOCK_DGRAM socket pair
// created by the peer process `peer` (its SO_PEERCRED is the creator's).
const char *check_wake_socket(int fd, pid_t peer) noexcept;

} // namespace softcomch::transport::shm
