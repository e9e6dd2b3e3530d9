// SPDX-License-Identifier: Apache-2.0
//
// The caps on what a peer may ask (peer_limits.hpp), and the check of a consumer announce before
// anything of it is mapped (link::check_announce, link.hpp).
#include "transport/shm/peer_limits.hpp"

#include "transport/shm/fast_channel.hpp"
#include "transport/shm/link.hpp"
#include "transport/shm/peer_checks.hpp"
#include "transport/shm/ring.hpp"
#include "transport/shm/segment.hpp"
#include "transport/shm/shared_memory.hpp"

namespace softcomch::transport::shm {

uint32_t cap_or(uint32_t cap, uint32_t bound) noexcept
{
    return cap != 0 && cap < bound ? cap : bound;
}

uint64_t max_channel_size(const link_params &limits) noexcept
{
    return fast_channel::size_for(cap_or(limits.max_peer_consumer_tasks, k_fast_max_capacity));
}

const char *check_accept(const wire::accept_msg &a, const link_params &mine) noexcept
{
    if (a.max_msg_size > mine.max_msg_size)
        return "a maximum message size above the client's";
    if (a.s2c_limit > mine.recv_queue_size)
        return "a receive queue above the client's";
    if (a.c2s_limit > cap_or(mine.max_peer_recv_queue_size, k_ring_max_limit))
        return "a server receive queue above the device maximum";
    const ring_params c = ring_layout::params_for(a.c2s_limit, a.max_msg_size);
    const ring_params s = ring_layout::params_for(a.s2c_limit, a.max_msg_size);
    if (a.c2s_capacity != c.capacity || a.s2c_capacity != s.capacity ||
        a.max_record != c.max_record || a.segment_size != segment::size_for(c, s))
        return "rings or a segment of another size than the negotiated values give";
    return nullptr;
}

const char *link::check_announce(const wire::consumer_announce_msg &m, int *fds, size_t nfds) const
{
    const bool shared = m.mechanism == uint32_t(memory_mechanism::shared);
    if (nfds != (shared ? 3u : 2u))
        return "a consumer announce with the wrong number of descriptors";
    for (const announced &a : remote_) {
        if (a.id == m.consumer_id)
            return "a consumer announce with the id of a live consumer";
    }
    if (remote_.size() >= cap_or(limits_.max_peer_consumers, UINT32_MAX))
        return "more consumers announced than the device maximum (max_consumers)";
    if (m.channel_size > max_channel_size(limits_))
        return "a consumer channel larger than the device's maximum number of tasks needs";
    uint64_t chan_size = 0;
    if (const char *why = check_sealed_memfd(fds[0], &chan_size))
        return why;
    if (chan_size != m.channel_size)
        return "a consumer channel whose file is not the announced size";
    if (const char *why = check_wake_socket(fds[1], peer_.pid))
        return why;
    if (shared) {
        if (const char *why = check_sealed_memfd(fds[2], nullptr))
            return why;
    } else if (!claimed_pid_matches(peer_.pid, m.pid)) {
        // process_vm_writev goes to the kernel's pid of the connection, never the message's;
        // a message naming another process is a lie.
        return "a process_vm_writev consumer in another process than the peer";
    }
    return nullptr;
}

} // namespace softcomch::transport::shm
