// SPDX-License-Identifier: Apache-2.0
//
// Makes a started doca_mmap's memory reachable from the peer process, once per mmap however
// many consumers use it: preferably by turning its pages into shared memory (the peer maps them
// and copies into them directly), otherwise by letting the peer write with process_vm_writev.
// The last consumer to let go restores private memory, which also revokes the peer's access.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <memory>

#include "transport/shm/shared_memory.hpp"
#include "transport/wire.hpp"

struct doca_mmap;

namespace softcomch::comch {

struct shared_mmap {
    doca_mmap *mmap = nullptr;
    softcomch::transport::shm::exported_memory exported; // desc for the peer (+ memfd if shared)
    ~shared_mmap();
};

// The sharing of `mmap` (created on first use). nullptr and a logged reason on failure.
std::shared_ptr<shared_mmap> share_mmap(doca_mmap *mmap, doca_error_t &rc);

} // namespace softcomch::comch
