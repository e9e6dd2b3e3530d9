// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_sha.h (libdoca_sha): argument checks and delegation only.
#include <doca_sha.h>

#include <cstring>

#include "capi/engine_publication.hpp"
#include "capi/handle.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "sha/sha.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_sha, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_sha_task_hash, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_sha_task_partial_hash, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));

namespace {

// The raw value of an algorithm argument: a C caller may pass any int, which is not a valid C++
// value of the enum (read without loading the enum, as doca_pe_set_event_mode does).
int raw(const doca_sha_algorithm &alg) noexcept
{
    int v;
    std::memcpy(&v, &alg, sizeof v);
    return v;
}

bool valid_alg(const doca_sha_algorithm &alg) noexcept
{
    const int v = raw(alg);
    return v == DOCA_SHA_ALGORITHM_SHA1 || v == DOCA_SHA_ALGORITHM_SHA256 ||
           v == DOCA_SHA_ALGORITHM_SHA512;
}

// The capability shape: a devinfo, an algorithm when the query has one, the engine on the
// device's BlueField (NOT_SUPPORTED otherwise), then the value.
template <typename Out, typename Get>
doca_error_t cap(const char *func, const doca_devinfo *devinfo, const doca_sha_algorithm *alg,
                 Out *out, Get &&get) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        if (alg && !valid_alg(*alg))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: algorithm %d is not a doca_sha_algorithm",
                      api_function(), raw(*alg));
        if (out == nullptr && !std::is_same_v<Out, void>)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: the output pointer is NULL", api_function());
        if (!devinfo->engines().sha)
            return DOCA_ERROR_NOT_SUPPORTED;
        if constexpr (!std::is_same_v<Out, void>)
            *out = get();
        return DOCA_SUCCESS;
    });
}

// The setter shape of both task kinds: a task the program holds (BAD_STATE in flight).
template <typename Task, typename Fn>
doca_error_t set(const char *func, Task *task, Fn &&fn) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(task);
        if (task->state_ != core::task_state::allocated)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: the task is in flight", api_function());
        return fn(*task);
    });
}

// For a partial hash task: refused while a session is under way (set_dst, set_algorithm).
template <typename Fn>
doca_error_t set_outside_session(const char *func, doca_sha_task_partial_hash *task, Fn &&fn)
{
    return set(func, task, [&](doca_sha_task_partial_hash &t) -> doca_error_t {
        if (t.in_session())
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: a partial hash is under way; reset the task first "
                      "(doca_sha_task_partial_hash_reset)",
                      api_function());
        return fn(t);
    });
}

// The *_alloc_init shape of both kinds: the handles, the algorithm, then `alloc`.
template <typename Task, typename Alloc>
doca_error_t alloc_init(const char *func, doca_sha *sha, doca_sha_algorithm algorithm,
                        const doca_buf *src_buf, doca_buf *dst_buf, Task **task, Alloc &&alloc)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(sha);
        SC_REQUIRE(src_buf);
        SC_REQUIRE(dst_buf);
        SC_CHECK_NOT_NULL(task);
        if (!valid_alg(algorithm))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: algorithm %d is not a doca_sha_algorithm",
                      api_function(), raw(algorithm));
        return alloc();
    });
}

// set_src of either kind (allowed between the segments of a partial hash).
template <typename Task>
doca_error_t set_src(const char *func, Task *task, const doca_buf *src_buf) noexcept
{
    return set(func, task, [&](Task &t) -> doca_error_t {
        SC_REQUIRE(src_buf);
        t.src_ = src_buf;
        return DOCA_SUCCESS;
    });
}

// set_algorithm of either kind, once `check` (the kind's own state rule) allowed it.
template <typename Task> doca_error_t set_algorithm(Task &t, doca_sha_algorithm algorithm) noexcept
{
    if (!valid_alg(algorithm))
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: algorithm %d is not a doca_sha_algorithm",
                  api_function(), raw(algorithm));
    t.alg_ = algorithm;
    return DOCA_SUCCESS;
}

} // namespace

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_sha_create(struct doca_dev *dev, struct doca_sha **sha)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(sha);
        return softcomch::capi::create_published(&doca_sha::create, dev, sha, "sha");
    });
}

doca_error_t doca_sha_destroy(struct doca_sha *sha)
{
    return destroy_idle(__func__, SC_ARG(sha), "SHA context");
}

struct doca_ctx *doca_sha_as_ctx(struct doca_sha *sha)
{
    return usable(sha, "sha", __func__) ? sha : nullptr;
}

doca_error_t doca_sha_cap_task_hash_get_supported(struct doca_devinfo const *devinfo,
                                                  enum doca_sha_algorithm algorithm)
{
    return cap<void>(__func__, devinfo, &algorithm, nullptr, [] {});
}

doca_error_t doca_sha_cap_task_partial_hash_get_supported(struct doca_devinfo const *devinfo,
                                                          enum doca_sha_algorithm algorithm)
{
    return cap<void>(__func__, devinfo, &algorithm, nullptr, [] {});
}

doca_error_t doca_sha_cap_get_max_list_buf_num_elem(struct doca_devinfo const *devinfo,
                                                    uint32_t *max_list_buf_num_elem)
{
    return cap(__func__, devinfo, nullptr, max_list_buf_num_elem,
               [] { return softcomch::sha::k_max_list_buf_num_elem; });
}

doca_error_t doca_sha_cap_get_max_src_buf_size(struct doca_devinfo const *devinfo,
                                               uint64_t *max_src_buf_size)
{
    return cap(__func__, devinfo, nullptr, max_src_buf_size,
               [] { return softcomch::sha::k_max_src_buf_size; });
}

doca_error_t doca_sha_cap_get_min_dst_buf_size(struct doca_devinfo const *devinfo,
                                               enum doca_sha_algorithm algorithm,
                                               uint32_t *min_dst_buf_size)
{
    return cap(__func__, devinfo, &algorithm, min_dst_buf_size,
               [&] { return softcomch::sha::digest_len(algorithm); });
}

doca_error_t doca_sha_cap_get_partial_hash_block_size(struct doca_devinfo const *devinfo,
                                                      enum doca_sha_algorithm algorithm,
                                                      uint32_t *partial_block_size)
{
    return cap(__func__, devinfo, &algorithm, partial_block_size,
               [&] { return softcomch::sha::block_len(algorithm); });
}

doca_error_t doca_sha_cap_get_max_num_tasks(struct doca_sha *sha, uint32_t *max_num_tasks)
{
    return get_into(__func__, SC_ARG(sha), SC_ARG(max_num_tasks),
                    [](auto &s) { return s.max_num_tasks(); });
}

doca_error_t doca_sha_task_hash_set_conf(struct doca_sha *sha,
                                         doca_sha_task_hash_completion_cb_t task_completion_cb,
                                         doca_sha_task_hash_completion_cb_t task_error_cb,
                                         uint8_t log_num_tasks)
{
    return delegate(__func__, SC_ARG(sha), [&](doca_sha &s) {
        return s.hash_set_conf(task_completion_cb, task_error_cb, log_num_tasks);
    });
}

doca_error_t doca_sha_task_partial_hash_set_conf(
    struct doca_sha *sha, doca_sha_task_partial_hash_completion_cb_t task_completion_cb,
    doca_sha_task_partial_hash_completion_cb_t task_error_cb, uint8_t log_num_tasks)
{
    return delegate(__func__, SC_ARG(sha), [&](doca_sha &s) {
        return s.partial_set_conf(task_completion_cb, task_error_cb, log_num_tasks);
    });
}

doca_error_t doca_sha_task_hash_alloc_init(struct doca_sha *sha, enum doca_sha_algorithm algorithm,
                                           struct doca_buf const *src_buf, struct doca_buf *dst_buf,
                                           union doca_data user_data,
                                           struct doca_sha_task_hash **task)
{
    return alloc_init(__func__, sha, algorithm, src_buf, dst_buf, task, [&] {
        return sha->hash_alloc(algorithm, src_buf, dst_buf, user_data, task);
    });
}

doca_error_t doca_sha_task_partial_hash_alloc_init(
    struct doca_sha *sha, enum doca_sha_algorithm algorithm, struct doca_buf const *src_buf,
    struct doca_buf *dst_buf, union doca_data user_data, struct doca_sha_task_partial_hash **task)
{
    return alloc_init(__func__, sha, algorithm, src_buf, dst_buf, task, [&] {
        return sha->partial_alloc(algorithm, src_buf, dst_buf, user_data, task);
    });
}

doca_error_t doca_sha_task_hash_set_src(struct doca_sha_task_hash *task,
                                        struct doca_buf const *src_buf)
{
    return set_src(__func__, task, src_buf);
}

struct doca_buf const *doca_sha_task_hash_get_src(struct doca_sha_task_hash const *task)
{
    return why_unusable(task) ? nullptr : task->src_;
}

doca_error_t doca_sha_task_hash_set_dst(struct doca_sha_task_hash *task, struct doca_buf *dst_buf)
{
    return set(__func__, task, [&](doca_sha_task_hash &t) -> doca_error_t {
        SC_REQUIRE(dst_buf);
        t.dst_ = dst_buf;
        return DOCA_SUCCESS;
    });
}

struct doca_buf const *doca_sha_task_hash_get_dst(struct doca_sha_task_hash const *task)
{
    return why_unusable(task) ? nullptr : task->dst_;
}

doca_error_t doca_sha_task_hash_set_algorithm(struct doca_sha_task_hash *task,
                                              enum doca_sha_algorithm algorithm)
{
    return set(__func__, task, [&](doca_sha_task_hash &t) { return set_algorithm(t, algorithm); });
}

enum doca_sha_algorithm doca_sha_task_hash_get_algorithm(struct doca_sha_task_hash const *task)
{
    return usable(task, "task", __func__) ? task->alg_ : DOCA_SHA_ALGORITHM_SHA1;
}

struct doca_task *doca_sha_task_hash_as_task(struct doca_sha_task_hash *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

doca_error_t doca_sha_task_partial_hash_reset(struct doca_sha_task_partial_hash *task)
{
    return set(__func__, task, [](doca_sha_task_partial_hash &t) -> doca_error_t {
        t.session_.reset();
        t.is_final_ = false;
        t.has_result_ = false;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_sha_task_partial_hash_set_src(struct doca_sha_task_partial_hash *task,
                                                struct doca_buf const *src_buf)
{
    return set_src(__func__, task, src_buf);
}

struct doca_buf const *
doca_sha_task_partial_hash_get_src(struct doca_sha_task_partial_hash const *task)
{
    return why_unusable(task) ? nullptr : task->src_;
}

doca_error_t doca_sha_task_partial_hash_set_dst(struct doca_sha_task_partial_hash *task,
                                                struct doca_buf *dst_buf)
{
    return set_outside_session(__func__, task, [&](doca_sha_task_partial_hash &t) -> doca_error_t {
        SC_REQUIRE(dst_buf);
        t.dst_ = dst_buf;
        return DOCA_SUCCESS;
    });
}

struct doca_buf const *
doca_sha_task_partial_hash_get_dst(struct doca_sha_task_partial_hash const *task)
{
    return why_unusable(task) ? nullptr : task->dst_;
}

doca_error_t doca_sha_task_partial_hash_set_algorithm(struct doca_sha_task_partial_hash *task,
                                                      enum doca_sha_algorithm algorithm)
{
    return set_outside_session(
        __func__, task, [&](doca_sha_task_partial_hash &t) { return set_algorithm(t, algorithm); });
}

enum doca_sha_algorithm
doca_sha_task_partial_hash_get_algorithm(struct doca_sha_task_partial_hash const *task)
{
    return usable(task, "task", __func__) ? task->alg_ : DOCA_SHA_ALGORITHM_SHA1;
}

doca_error_t doca_sha_task_partial_hash_set_is_final_buf(struct doca_sha_task_partial_hash *task)
{
    return set(__func__, task, [](doca_sha_task_partial_hash &t) -> doca_error_t {
        t.is_final_ = true;
        return DOCA_SUCCESS;
    });
}

uint8_t doca_sha_task_partial_hash_get_is_final(struct doca_sha_task_partial_hash const *task)
{
    return usable(task, "task", __func__) && task->is_final_ ? 1 : 0;
}

uint8_t doca_sha_task_partial_hash_get_has_result(struct doca_sha_task_partial_hash const *task)
{
    return usable(task, "task", __func__) && task->has_result_ ? 1 : 0;
}

struct doca_task *doca_sha_task_partial_hash_as_task(struct doca_sha_task_partial_hash *task)
{
    return usable(task, "task", __func__) ? task : nullptr;
}

} // extern "C"
