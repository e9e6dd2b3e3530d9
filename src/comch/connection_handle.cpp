// SPDX-License-Identifier: Apache-2.0
#include "comch/connection_handle.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>

#include "common/log.hpp"

namespace softcomch::comch {

namespace handle_detail {
std::atomic<uintptr_t> base{0};
std::atomic<uint64_t> slots[k_connection_slots];
} // namespace handle_detail

namespace {

using namespace handle_detail;

struct table_state {
    std::mutex mu;
    size_t never_used = 0;     // slots [never_used, k_connection_slots) were never bound
    std::deque<uint32_t> free; // freed slots, least recently freed first
};

table_state &state()
{
    static table_state *s = new table_state(); // never destroyed: connections may outlive main
    return *s;
}

// Caller holds the mutex.
bool reserve_range() noexcept
{
    if (base.load(std::memory_order_relaxed) != 0)
        return true;
    void *p =
        ::mmap(nullptr, k_range, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        SC_LOG_ERR("cannot reserve %zu MiB of address space for connection handles: %s",
                   k_range >> 20, std::strerror(errno));
        return false;
    }
    base.store(reinterpret_cast<uintptr_t>(p), std::memory_order_release);
    return true;
}

doca_comch_connection *handle_at(uint32_t slot, uint32_t generation) noexcept
{
    const uintptr_t index = uintptr_t(generation) * k_connection_slots + slot;
    return reinterpret_cast<doca_comch_connection *>(base.load(std::memory_order_relaxed) +
                                                     index * k_stride);
}

} // namespace

doca_comch_connection *bind_handle(doca_comch_connection *conn) noexcept
{
    const auto addr = uint64_t(reinterpret_cast<uintptr_t>(conn));
    if (conn == nullptr || (addr & ~k_ptr_mask) != 0)
        return nullptr;
    table_state &s = state();
    std::lock_guard lock(s.mu);
    if (!reserve_range())
        return nullptr;
    uint32_t slot;
    if (s.never_used < k_connection_slots) {
        slot = uint32_t(s.never_used++);
    } else if (!s.free.empty()) {
        slot = s.free.front();
        s.free.pop_front();
    } else {
        SC_LOG_ERR("no connection handle left: %zu connections are open in this process",
                   k_connection_slots);
        return nullptr;
    }
    const uint64_t old = slots[slot].load(std::memory_order_relaxed);
    // A slot never bound starts at generation 1, so the first handle is not the range's start.
    const uint32_t gen =
        old == 0 ? 1 : uint32_t((old >> k_ptr_bits) + 1) % k_connection_generations;
    slots[slot].store((uint64_t(gen) << k_ptr_bits) | addr, std::memory_order_release);
    return handle_at(slot, gen);
}

void unbind_handle(doca_comch_connection *handle) noexcept
{
    if (!is_connection_handle(handle))
        return;
    const uintptr_t off =
        reinterpret_cast<uintptr_t>(handle) - base.load(std::memory_order_relaxed);
    const uint32_t slot = uint32_t((off / k_stride) % k_connection_slots);
    table_state &s = state();
    std::lock_guard lock(s.mu);
    const uint64_t w = slots[slot].load(std::memory_order_relaxed);
    if ((w & k_ptr_mask) == 0)
        return;
    slots[slot].store(w & ~k_ptr_mask, std::memory_order_release);
    try {
        s.free.push_back(slot);
    } catch (...) { // out of memory: the slot is lost, its handles stay refused
    }
}

} // namespace softcomch::comch
