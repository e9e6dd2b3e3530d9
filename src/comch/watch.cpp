// SPDX-License-Identifier: Apache-2.0
#include "comch/watch.hpp"

namespace softcomch::comch {

namespace transport = softcomch::transport;

doca_error_t watch_set::watch(doca_pe *pe, transport::pollable &obj) noexcept
{
    transport::watch_handle h[transport::k_max_handles];
    const size_t n = obj.handles(h);
    if (count_ != 0 && pe_ == pe && obj_ == &obj && count_ == n) {
        bool same = true;
        for (size_t i = 0; i < n; ++i)
            same = same && h[i].handle == handles_[i].handle && h[i].events == handles_[i].events;
        if (same)
            return DOCA_SUCCESS;
    }
    unwatch();
    if (pe == nullptr)
        return DOCA_ERROR_BAD_STATE;
    for (size_t i = 0; i < n; ++i) {
        items_[i].set = this;
        items_[i].index = i;
        const doca_error_t rc = pe->watch(h[i].handle, &items_[i], h[i].events);
        if (rc != DOCA_SUCCESS) {
            while (i-- > 0)
                pe->unwatch(h[i].handle);
            return rc;
        }
        handles_[i] = h[i];
    }
    pe_ = pe;
    obj_ = &obj;
    count_ = n;
    return DOCA_SUCCESS;
}

void watch_set::unwatch() noexcept
{
    for (size_t i = 0; i < count_; ++i)
        pe_->unwatch(handles_[i].handle);
    count_ = 0;
    obj_ = nullptr;
}

void watch_set::item::on_ready(uint32_t events)
{
    set->ready = true;
    if (set->obj_ != nullptr)
        set->obj_->on_ready(index, events);
    if (set->fired != nullptr)
        set->fired(set->fired_arg);
}

} // namespace softcomch::comch
