// SPDX-License-Identifier: Apache-2.0
//
// The C facade's part of an engine context's live figures: at creation it hands the context
// (core::engine_ctx) its publication (memory/live_figures.hpp), so that `softcomch top` shows it
// once started. Core includes no transport; this is where the two meet.
#pragma once

#include "core/device.hpp"
#include "core/engine_ctx.hpp"
#include "memory/live_figures.hpp"

namespace softcomch::capi {

// Creates an engine context named `engine` with `create(dev, out)` and hands it its publication.
template <class Ctx>
doca_error_t create_published(doca_error_t (*create)(doca_dev *, Ctx **), doca_dev *dev, Ctx **out,
                              const char *engine)
{
    const doca_error_t rc = create(dev, out);
    if (rc == DOCA_SUCCESS)
        (*out)->set_publication(
            softcomch::memory::engine_publication(engine, dev->info()->pci_addr()));
    return rc;
}

} // namespace softcomch::capi
