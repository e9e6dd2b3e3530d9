// SPDX-License-Identifier: Apache-2.0
//
// What DOCA Core's engine contexts, exports and imports publish of themselves for `softcomch top`
// (common/live_layout.hpp, resource slots; the file and its slots: transport/live_publisher.hpp).
// An engine context claims its slot when it starts (in the fabric of that start) and keeps it
// until it is destroyed; an export or import claims one when it is made and gives it back with
// it. What the owner counts afterwards is relaxed stores into the slot's first line.
#pragma once

#include <memory>
#include <string>

#include "common/live_layout.hpp"
#include "common/visibility.hpp"
#include "core/engine_ctx.hpp"
#include "core/remote_memory.hpp"
#include "transport/live_publisher.hpp"

namespace softcomch::memory {

// The publication of an engine context: `engine` ("dma", "compress", ...) on device `device`
// (its PCI address). The C facade hands it to the context at creation.
SOFTCOMCH_API std::unique_ptr<core::engine_publication> engine_publication(const char *engine,
                                                                           std::string device);

// A slot for an export (kind live::k_res_export) or an import (live::k_res_import) of `what`
// ("mmap", "sync_event"), claimed in the current fabric; nullptr words when none could be.
class resource_publication {
public:
    resource_publication(uint32_t kind, const char *what, const core::resource_label &label,
                         uint64_t addr, uint64_t len, const std::string &peer) noexcept;
    // Bytes moved to or from the memory (imports; any thread).
    void moved(uint64_t n) noexcept
    {
        if (live::resource_slot *s = slot_.get())
            s->words.bytes.fetch_add(n, std::memory_order_relaxed);
    }

private:
    transport::live_resource_slot slot_;
};

} // namespace softcomch::memory
