// SPDX-License-Identifier: Apache-2.0
//
// DOCA Core's memory exporter (core/remote_memory.hpp) over the transports: an mmap export is a
// transport's region export (transport_ops::export_region), its import the transport's region
// import, named in the descriptor. The C facade hands it to the mmap calls. A layer of its own,
// above core and transport (docs/design.md, "Layers"): core includes no transport.
#pragma once

#include "common/visibility.hpp"
#include "core/remote_memory.hpp"

namespace softcomch::memory {

// The process's exporter: exports through the transport SOFTCOMCH_TRANSPORT selects (read at
// each export), imports through the transport the descriptor names.
SOFTCOMCH_API core::memory_exporter &exporter() noexcept;

} // namespace softcomch::memory
