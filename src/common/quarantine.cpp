// SPDX-License-Identifier: Apache-2.0
#include "common/quarantine.hpp"

#include <algorithm>

namespace softcomch {

void *quarantine::allocate(size_t size)
{
    {
        std::lock_guard lock(mu_);
        for (auto &[block_size, fifo] : fifos_) {
            if (block_size != size)
                continue;
            if (fifo.size() > depth_) {
                void *p = fifo.front();
                fifo.pop_front();
                return p;
            }
            break;
        }
    }
    return ::operator new(size);
}

void quarantine::release(void *p, size_t size) noexcept
{
    if (p == nullptr)
        return;
    try {
        std::lock_guard lock(mu_);
        auto it = std::find_if(fifos_.begin(), fifos_.end(),
                               [size](const auto &f) { return f.first == size; });
        if (it == fifos_.end()) {
            fifos_.emplace_back(size, std::deque<void *>{});
            it = fifos_.end() - 1;
        }
        it->second.push_back(p);
        return;
    } catch (...) { // out of memory for the bookkeeping: this block goes back at once
    }
    ::operator delete(p);
}

size_t quarantine::waiting() const noexcept
{
    std::lock_guard lock(mu_);
    size_t n = 0;
    for (const auto &f : fifos_)
        n += f.second.size();
    return n;
}

quarantine &process_quarantine() noexcept
{
    // Never destroyed: objects may be destroyed from static destructors and atexit handlers.
    static quarantine *q = new quarantine(k_quarantine_depth);
    return *q;
}

} // namespace softcomch
