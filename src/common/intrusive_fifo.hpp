// SPDX-License-Identifier: Apache-2.0
//
// A singly linked FIFO threaded through a `next_` member of the element type. No allocation:
// queues of tasks live in the tasks themselves (the data path never allocates).
#pragma once

#include <cstddef>

namespace softcomch {

template <typename T> class intrusive_fifo {
public:
    bool empty() const noexcept { return head_ == nullptr; }
    size_t size() const noexcept { return size_; }
    T *front() const noexcept { return head_; }

    void push_back(T *item) noexcept
    {
        item->next_ = nullptr;
        if (tail_)
            tail_->next_ = item;
        else
            head_ = item;
        tail_ = item;
        ++size_;
    }

    T *pop_front() noexcept
    {
        T *item = head_;
        if (item) {
            head_ = static_cast<T *>(item->next_);
            if (!head_)
                tail_ = nullptr;
            item->next_ = nullptr;
            --size_;
        }
        return item;
    }

    // Removes `item` if present (linear; control path only). Returns whether it was found.
    bool remove(T *item) noexcept
    {
        T *prev = nullptr;
        for (T *cur = head_; cur; prev = cur, cur = static_cast<T *>(cur->next_)) {
            if (cur != item)
                continue;
            if (prev)
                prev->next_ = cur->next_;
            else
                head_ = static_cast<T *>(cur->next_);
            if (tail_ == cur)
                tail_ = prev;
            cur->next_ = nullptr;
            --size_;
            return true;
        }
        return false;
    }

private:
    T *head_ = nullptr;
    T *tail_ = nullptr;
    size_t size_ = 0;
};

} // namespace softcomch
