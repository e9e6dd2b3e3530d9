// SPDX-License-Identifier: Apache-2.0
//
// The task base and a fixed-size task pool. A context reserves its tasks when it is configured
// (the *_set_conf calls), so allocation on the data path is a free-list pop or, the first time a
// slot is used, a placement new into memory reserved then: a pool of 16384 tasks costs resident
// memory only for the tasks the program actually holds at once.
#pragma once

#include <doca_error.h>
#include <doca_types.h>

#include <cstdint>
#include <memory>

#include "common/log.hpp"
#include "common/object_tag.hpp"

struct doca_ctx;
struct doca_graph_instance;

namespace softcomch::core {

// Which concrete task a doca_task is. The C handles of the task kinds are distinct C types, but a
// C program can cast one to another: the typed accessors check the kind, not only the tag.
enum class task_kind : uint8_t {
    other,                        // tests
    comch_send,                   // doca_comch_task_send
    consumer_post_recv,           // doca_comch_consumer_task_post_recv
    producer_send,                // doca_comch_producer_task_send
    dma_memcpy,                   // doca_dma_task_memcpy
    sync_event_get,               // doca_sync_event_task_get
    sync_event_notify_set,        // doca_sync_event_task_notify_set
    sync_event_notify_add,        // doca_sync_event_task_notify_add
    sync_event_wait_eq,           // doca_sync_event_task_wait_eq
    sync_event_wait_neq,          // doca_sync_event_task_wait_neq
    mmap_advise_invalidate_cache, // doca_mmap_advise_task_invalidate_cache
    compress_deflate,             // doca_compress_task_compress_deflate
    decompress_deflate,           // doca_compress_task_decompress_deflate
    decompress_lz4_stream,        // doca_compress_task_decompress_lz4_stream
    decompress_lz4_block,         // doca_compress_task_decompress_lz4_block
    sha_hash,                     // doca_sha_task_hash
    sha_partial_hash,             // doca_sha_task_partial_hash
};

// A task kind's name in traces and logs ("dma memcpy").
constexpr const char *task_kind_name(task_kind k) noexcept
{
    switch (k) {
    case task_kind::other:
        return "task";
    case task_kind::comch_send:
        return "send";
    case task_kind::consumer_post_recv:
        return "consumer post_recv";
    case task_kind::producer_send:
        return "producer send";
    case task_kind::dma_memcpy:
        return "dma memcpy";
    case task_kind::sync_event_get:
        return "sync_event get";
    case task_kind::sync_event_notify_set:
        return "sync_event notify_set";
    case task_kind::sync_event_notify_add:
        return "sync_event notify_add";
    case task_kind::sync_event_wait_eq:
        return "sync_event wait_eq";
    case task_kind::sync_event_wait_neq:
        return "sync_event wait_neq";
    case task_kind::mmap_advise_invalidate_cache:
        return "mmap_advise invalidate_cache";
    case task_kind::compress_deflate:
        return "compress deflate";
    case task_kind::decompress_deflate:
        return "decompress deflate";
    case task_kind::decompress_lz4_stream:
        return "decompress lz4_stream";
    case task_kind::decompress_lz4_block:
        return "decompress lz4_block";
    case task_kind::sha_hash:
        return "sha hash";
    case task_kind::sha_partial_hash:
        return "sha partial_hash";
    }
    return "task";
}

enum class task_state : uint8_t {
    free,      // in its pool
    allocated, // owned by the program
    submitted, // owned by the library
    completed, // queued for its callback on the progress engine
};

} // namespace softcomch::core

// The C handle `struct doca_task` is this class; every concrete task derives from it.
struct doca_task {
    explicit doca_task(doca_ctx *owner,
                       softcomch::core::task_kind kind = softcomch::core::task_kind::other) noexcept
        : ctx_(owner), kind_(kind)
    {}
    doca_task(const doca_task &) = delete;
    doca_task &operator=(const doca_task &) = delete;

    union doca_data user_data() const noexcept { return user_data_; }
    void set_user_data(union doca_data d) noexcept { user_data_ = d; }
    // True while the program may change the task's parameters (it is allocated, not in flight);
    // otherwise false, with an error line naming the API function `func`.
    bool reconfigurable(const char *func) const noexcept
    {
        if (state_ == softcomch::core::task_state::allocated)
            return true;
        SC_LOG_ERR("%s: the task is in flight", func);
        return false;
    }

    softcomch::object_tag tag_{softcomch::object_kind::task};
    doca_ctx *ctx_;
    const softcomch::core::task_kind kind_;
    union doca_data user_data_ {};
    doca_error_t status_ = DOCA_SUCCESS;
    softcomch::core::task_state state_ = softcomch::core::task_state::free;
    // The program freed the task while it was in flight (doca_task_free returns void and
    // NVIDIA's code frees posted receives before stopping). It stays with the library until
    // its work ends, then goes back to its pool without a callback (docs/design.md).
    bool abandoned_ = false;
    // Calls the typed completion or error callback (chosen by status_). Set by the pool.
    void (*invoke_)(doca_task *) = nullptr;
    doca_task *next_ = nullptr; // link for the intrusive queues (free list, completions, ...)
    // While the task runs as a node of a graph instance (core/graph.hpp): the instance and the
    // node. Its completion then goes to the instance, not to the task's callbacks.
    doca_graph_instance *graph_instance_ = nullptr;
    uint32_t graph_node_ = 0;
};

namespace softcomch::core {

// A live task of concrete type T (T::k_kind): the check behind every typed task accessor.
template <typename T> bool is_task_of(const T *t) noexcept
{
    return t && t->tag_.is(softcomch::object_kind::task) && t->kind_ == T::k_kind;
}

// A pool of `T` (derived from doca_task), sized once. T must be constructible from (Owner *).
template <typename T> class task_pool {
public:
    task_pool() = default;
    task_pool(const task_pool &) = delete;
    task_pool &operator=(const task_pool &) = delete;

    // (Re)creates the pool. Only while the context is IDLE; tasks of the old pool the program
    // still holds become invalid (as after a destroy).
    template <typename Owner>
    void configure(Owner *owner, uint32_t count, void (*invoke)(doca_task *))
    {
        storage_.reset();
        free_ = nullptr;
        capacity_ = 0;
        constructed_ = 0;
        in_use_ = 0;
        if (count == 0)
            return;
        // Raw storage, constructed slot by slot on first use (T is neither copyable nor movable).
        storage_.reset(
            static_cast<T *>(::operator new[](sizeof(T) * count, std::align_val_t(alignof(T)))));
        owner_ = static_cast<doca_ctx *>(owner);
        invoke_ = invoke;
        capacity_ = count;
    }

    ~task_pool() { storage_.reset(); }

    T *alloc() noexcept
    {
        T *t;
        if (free_) {
            t = static_cast<T *>(free_);
            free_ = t->next_;
        } else if (constructed_ < capacity_) {
            t = new (&storage_.get()[constructed_]) T(owner_); // T's constructor is noexcept
            t->invoke_ = invoke_;
            ++constructed_;
        } else {
            return nullptr;
        }
        t->next_ = nullptr;
        t->state_ = task_state::allocated;
        t->status_ = DOCA_SUCCESS;
        t->user_data_.u64 = 0;
        ++in_use_;
        return t;
    }

    void release(T *t) noexcept
    {
        t->state_ = task_state::free;
        t->abandoned_ = false;
        t->next_ = free_;
        free_ = t;
        --in_use_;
    }

    bool owns(const doca_task *t) const noexcept
    {
        auto *base = reinterpret_cast<const unsigned char *>(storage_.get());
        auto *p = reinterpret_cast<const unsigned char *>(t);
        return storage_ && p >= base && p < base + sizeof(T) * constructed_ &&
               (p - base) % sizeof(T) == 0;
    }

    // Position of a task of this pool (0..capacity-1), and back: lets a task be named by index
    // in shared memory. at() answers nullptr for a slot never used (so for any index a peer
    // could name that no task of ours ever had).
    uint32_t index_of(const T *t) const noexcept { return uint32_t(t - storage_.get()); }
    T *at(uint32_t i) const noexcept { return i < constructed_ ? &storage_.get()[i] : nullptr; }
    // Slots constructed so far: every index below this one names a task (free or not).
    uint32_t constructed() const noexcept { return constructed_; }

    uint32_t capacity() const noexcept { return capacity_; }
    uint32_t in_use() const noexcept { return in_use_; }

private:
    struct destroyer {
        uint32_t *count; // constructed slots
        void operator()(T *p) const noexcept
        {
            for (uint32_t i = 0; i < *count; ++i)
                p[i].~T();
            ::operator delete[](p, std::align_val_t(alignof(T)));
        }
    };
    std::unique_ptr<T, destroyer> storage_{nullptr, destroyer{&constructed_}};
    doca_task *free_ = nullptr;
    doca_ctx *owner_ = nullptr;
    void (*invoke_)(doca_task *) = nullptr;
    uint32_t capacity_ = 0;
    uint32_t constructed_ = 0; // slots [0, constructed_) hold tasks
    uint32_t in_use_ = 0;
};

// A context's tasks of one kind: their pool and the completion and error callbacks of the kind's
// *_task_*_set_conf, the typed C callback every DOCA task kind has:
//   void (*)(T *task, union doca_data task_user_data, union doca_data ctx_user_data)
// `Pool` (a template argument of set_conf) names this set in its context `Owner`, so that a
// completed task finds its callbacks from its context pointer alone, with a constant offset.
template <typename T> class task_set : public task_pool<T> {
public:
    using callback = void (*)(T *, union doca_data, union doca_data);

    // The task_*_set_conf shape: the checks of doca_ctx::check_task_conf, then `num` tasks whose
    // completions go to `ok` (DOCA_SUCCESS) or `err` (any other status).
    template <auto Pool, typename Owner>
    doca_error_t set_conf(Owner *owner, const char *func, callback ok, callback err,
                          const char *what, uint32_t num, uint32_t cap, const char *cap_fn)
    {
        if (doca_error_t rc = owner->check_task_conf(func, ok && err, what, num, cap, cap_fn);
            rc != DOCA_SUCCESS)
            return rc;
        // A new pool replaces the old one's storage: tasks the program still holds would dangle.
        if (const uint32_t held = this->in_use(); held != 0) {
            SC_LOG_ERR("%s: %u task(s) of the current configuration are still allocated; free "
                       "them first",
                       func, held);
            return DOCA_ERROR_BAD_STATE;
        }
        this->configure(owner, num, &invoke<Pool, Owner>);
        ok_ = ok;
        err_ = err;
        return DOCA_SUCCESS;
    }

    // The end of the *_task_*_alloc_init shape, once the kind's own checks passed: NO_MEMORY
    // when no task is configured (logged, naming `func` and the call that configures them,
    // `conf_fn`) or every task is in use (a debug line: common back-pressure), else a task.
    doca_error_t take(const char *func, const char *conf_fn, T **out) noexcept
    {
        if (this->capacity() == 0) {
            SC_LOG_ERR("%s: no tasks configured (call %s before doca_ctx_start)", func, conf_fn);
            return DOCA_ERROR_NO_MEMORY;
        }
        T *t = this->alloc();
        if (!t) {
            SC_LOG_DBG("%s: all %u tasks are in use", func, this->capacity());
            return DOCA_ERROR_NO_MEMORY;
        }
        *out = t;
        return DOCA_SUCCESS;
    }

private:
    template <auto Pool, typename Owner> static void invoke(doca_task *t)
    {
        auto *owner = static_cast<Owner *>(t->ctx_);
        const task_set &set = owner->*Pool;
        const callback cb = t->status_ == DOCA_SUCCESS ? set.ok_ : set.err_;
        cb(static_cast<T *>(t), t->user_data_, owner->user_data());
    }

    callback ok_ = nullptr;
    callback err_ = nullptr;
};

} // namespace softcomch::core
