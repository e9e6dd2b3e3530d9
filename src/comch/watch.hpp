// SPDX-License-Identifier: Apache-2.0
//
// Keeps the handles of one transport object (transport::pollable, transport/transport.hpp) in a
// progress engine's epoll set. When one fires, its watcher records it (`ready`) and tells the
// object; like every watcher it runs in the engine's slow path and calls no user code.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>

#include "core/pe.hpp"
#include "core/task.hpp" // pe.hpp needs doca_task complete
#include "transport/transport.hpp"

namespace softcomch::comch {

class watch_set {
public:
    watch_set() noexcept = default;
    watch_set(const watch_set &) = delete;
    watch_set &operator=(const watch_set &) = delete;
    ~watch_set() { unwatch(); }

    // Adds every handle `obj` has now to `pe`'s epoll set (all or none). Watching the same
    // object with the same handles again changes nothing; other handles replace the old ones.
    // A handle is unwatched before its descriptor is closed: a registration outlives a closed
    // descriptor whose file another process still holds, and a new descriptor that reuses the
    // number would look the same to the shortcut above.
    doca_error_t watch(doca_pe *pe, softcomch::transport::pollable &obj) noexcept;
    // Removes them (nothing when none are watched).
    void unwatch() noexcept;
    bool watching() const noexcept { return count_ != 0; }

    // Set when a handle fired; cleared by the owner once it acted on it. Starts set, so that the
    // owner tries once right away.
    bool ready = true;
    // Called after the object heard of a fired handle (nullptr: nothing): a parked connection's
    // owner polls it again.
    void (*fired)(void *arg) noexcept = nullptr;
    void *fired_arg = nullptr;

private:
    struct item final : softcomch::core::fd_watcher {
        watch_set *set = nullptr;
        size_t index = 0;
        void on_ready(uint32_t events) override;
    };

    doca_pe *pe_ = nullptr;
    softcomch::transport::pollable *obj_ = nullptr;
    softcomch::transport::watch_handle handles_[softcomch::transport::k_max_handles] = {};
    item items_[softcomch::transport::k_max_handles];
    size_t count_ = 0;
};

} // namespace softcomch::comch
