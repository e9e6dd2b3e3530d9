// SPDX-License-Identifier: Apache-2.0
//
// Ownership of one mmap()ed range: unmapped by the destructor, moved (never copied). The shared
// segments, the fast channels and the mappings of a peer's memory hold their memory this way.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <utility>

namespace softcomch {

class mapped_region {
public:
    mapped_region() noexcept = default;
    // Adopts [base, base + size), a mapping made by the caller (not MAP_FAILED).
    mapped_region(void *base, size_t size) noexcept : base_(base), size_(size) {}
    mapped_region(mapped_region &&other) noexcept
        : base_(std::exchange(other.base_, nullptr)), size_(std::exchange(other.size_, 0))
    {}
    mapped_region &operator=(mapped_region &&other) noexcept
    {
        if (this != &other) {
            reset();
            base_ = std::exchange(other.base_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    mapped_region(const mapped_region &) = delete;
    mapped_region &operator=(const mapped_region &) = delete;
    ~mapped_region() { reset(); }

    // Unmaps now. munmap cannot fail for a mapping we made, and there would be nothing useful to
    // do about it here anyway.
    void reset() noexcept
    {
        if (base_ != nullptr)
            ::munmap(base_, size_);
        base_ = nullptr;
        size_ = 0;
    }

    // Gives the mapping up without unmapping it (its new owner unmaps it).
    void *release() noexcept
    {
        size_ = 0;
        return std::exchange(base_, nullptr);
    }

    void *base() const noexcept { return base_; }
    size_t size() const noexcept { return size_; }
    explicit operator bool() const noexcept { return base_ != nullptr; }

private:
    void *base_ = nullptr;
    size_t size_ = 0;
};

} // namespace softcomch
