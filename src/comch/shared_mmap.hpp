// SPDX-License-Identifier: Apache-2.0
//
// Makes a started doca_mmap's memory reachable from the peer process, once per mmap however
// many consumers use it (transport_ops::export_memory: the shm transport turns its pages into
// shared memory the peer maps, or lets the peer write with process_vm_writev). The last
// consumer to let go restores private memory, which also revokes the peer's access.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>

#include "transport/transport.hpp"

struct doca_mmap;

namespace softcomch::comch {

struct shared_mmap {
    doca_mmap *mmap = nullptr;
    void *addr = nullptr; // of the exported memory
    const softcomch::transport::transport_ops *transport = nullptr;
    std::unique_ptr<softcomch::transport::memory_export> exported; // announced to the peer
    ~shared_mmap();
};

// The sharing of `mmap` through `transport` (created on first use). nullptr and a logged reason
// on failure.
std::shared_ptr<shared_mmap>
share_mmap(doca_mmap *mmap, const softcomch::transport::transport_ops &transport, doca_error_t &rc);

} // namespace softcomch::comch
