// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/doorbell.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <utility>

#include "common/errno_map.hpp"
#include "transport/shm/peer_checks.hpp"

namespace softcomch::transport::shm {

doca_error_t doorbell_owner::create(std::shared_ptr<doorbell_owner> &out) noexcept
{
    std::shared_ptr<doorbell_owner> d(new (std::nothrow) doorbell_owner());
    if (!d)
        return DOCA_ERROR_NO_MEMORY;
    // Sealed (the client refuses a page it could be cut off from), not reserved, populated.
    void *base = nullptr;
    if (doca_error_t err =
            create_mapped_memfd("softcomch-bell", k_doorbell_size, false, true, d->fd_, &base);
        err != DOCA_SUCCESS)
        return err;
    // The file reads as zeros: the atomics start at 0; only the header is written, before the
    // descriptor travels (the socket message orders it for the client).
    auto *p = static_cast<doorbell_page *>(base);
    p->magic = k_doorbell_magic;
    p->version = k_doorbell_version;
    p->bits = k_doorbell_bits;
    new (&p->summary) std::atomic<uint64_t>(0);
    for (auto &w : p->words)
        new (&w) std::atomic<uint64_t>(0);
    d->page_ = p;
    try {
        d->used_.assign(k_doorbell_bits / 64, 0);
    } catch (const std::bad_alloc &) {
        return DOCA_ERROR_NO_MEMORY;
    }
    out = std::move(d);
    return DOCA_SUCCESS;
}

doorbell_owner::~doorbell_owner()
{
    if (page_ != nullptr)
        ::munmap(page_, k_doorbell_size);
}

uint32_t doorbell_owner::allocate() noexcept
{
    for (size_t w = 0; w < used_.size(); ++w) {
        if (~used_[w] == 0)
            continue;
        const unsigned b = unsigned(__builtin_ctzll(~used_[w]));
        used_[w] |= uint64_t(1) << b;
        // A bit left over from the connection that had it before costs one spurious visit;
        // clear it anyway (relaxed: the owner's own hint).
        page_->words[w].fetch_and(~(uint64_t(1) << b), std::memory_order_relaxed);
        return uint32_t(w * 64 + b);
    }
    return k_no_bell;
}

void doorbell_owner::release(uint32_t bit) noexcept
{
    if (bit < k_doorbell_bits)
        used_[bit / 64] &= ~(uint64_t(1) << (bit % 64));
}

doorbell_ringer::~doorbell_ringer()
{
    if (page_ != nullptr)
        ::munmap(page_, k_doorbell_size);
}

doorbell_ringer::doorbell_ringer(doorbell_ringer &&o) noexcept
    : page_(std::exchange(o.page_, nullptr)), word_(o.word_), mask_(o.mask_),
      summary_mask_(o.summary_mask_)
{}

doorbell_ringer &doorbell_ringer::operator=(doorbell_ringer &&o) noexcept
{
    if (this != &o) {
        if (page_ != nullptr)
            ::munmap(page_, k_doorbell_size);
        page_ = std::exchange(o.page_, nullptr);
        word_ = o.word_;
        mask_ = o.mask_;
        summary_mask_ = o.summary_mask_;
    }
    return *this;
}

const char *doorbell_ringer::attach(unique_fd fd, uint32_t bit) noexcept
{
    if (bit != k_no_bell && bit >= k_doorbell_bits)
        return "the doorbell bit is out of range";
    uint64_t size = 0;
    if (const char *why = check_sealed_memfd(fd.get(), &size))
        return why;
    if (size != k_doorbell_size)
        return "the doorbell is not one page";
    void *base = ::mmap(nullptr, k_doorbell_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (base == MAP_FAILED)
        return "the doorbell cannot be mapped";
    // Read once, here; nothing of the page is read again (the server may change it at will).
    const auto *p = static_cast<const doorbell_page *>(base);
    if (p->magic != k_doorbell_magic || p->version != k_doorbell_version ||
        p->bits != k_doorbell_bits) {
        ::munmap(base, k_doorbell_size);
        return "the doorbell's header is not this version's";
    }
    if (page_ != nullptr)
        ::munmap(page_, k_doorbell_size);
    if (bit == k_no_bell) {
        ::munmap(base, k_doorbell_size);
        page_ = nullptr;
        return nullptr;
    }
    page_ = static_cast<doorbell_page *>(base);
    word_ = bit / 64;
    mask_ = uint64_t(1) << (bit % 64);
    summary_mask_ = uint64_t(1) << word_;
    return nullptr;
}

} // namespace softcomch::transport::shm
