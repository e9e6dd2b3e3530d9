// SPDX-License-Identifier: Apache-2.0
//
// DOCA SHA (include/doca_sha.h): SHA-1, SHA-256 and SHA-512 digests with OpenSSL's libcrypto. An
// engine context (core/engine_ctx.hpp): tasks run from poll() in submission order, 1 MiB of
// input per poll; a partial hash task keeps its running digest between submissions and writes
// the digest when its final segment completes. Only BlueField-2 has the engine
// (core::engine_caps).
//
// Layer: sha depends on core and common only.
#pragma once

#include <doca_sha.h>

#include <cstddef>
#include <cstdint>

#include "common/visibility.hpp"
#include "core/engine_ctx.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_dev;
struct doca_devinfo;

namespace softcomch::sha {

inline constexpr uint64_t k_max_src_buf_size = uint64_t(128) << 20;
inline constexpr uint32_t k_max_list_buf_num_elem = 1;
// Digest length and block size of an algorithm; 0 for a value outside the enum.
SOFTCOMCH_API uint32_t digest_len(doca_sha_algorithm alg) noexcept;
SOFTCOMCH_API uint32_t block_len(doca_sha_algorithm alg) noexcept;

// An OpenSSL digest context (EVP_MD_CTX), owned.
class digest {
public:
    digest() = default;
    SOFTCOMCH_API ~digest();
    digest(const digest &) = delete;
    digest &operator=(const digest &) = delete;
    bool active() const noexcept { return ctx_ != nullptr; }
    bool begin(doca_sha_algorithm alg) noexcept;
    bool update(const void *p, size_t n) noexcept;
    // Writes the digest to `out` (digest_len bytes) and ends the session.
    bool finish(uint8_t *out) noexcept;
    SOFTCOMCH_API void reset() noexcept;

private:
    void *ctx_ = nullptr; // EVP_MD_CTX *
};

// What both task kinds hold.
struct task_fields {
    doca_sha_algorithm alg_ = DOCA_SHA_ALGORITHM_SHA256;
    const doca_buf *src_ = nullptr;
    doca_buf *dst_ = nullptr;
    size_t done_ = 0; // source bytes of the current submission hashed so far
};

} // namespace softcomch::sha

struct doca_sha_task_hash : doca_task, softcomch::sha::task_fields {
    static constexpr softcomch::core::task_kind k_kind = softcomch::core::task_kind::sha_hash;
    explicit doca_sha_task_hash(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
};

struct doca_sha_task_partial_hash : doca_task, softcomch::sha::task_fields {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::sha_partial_hash;
    explicit doca_sha_task_partial_hash(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}
    // A session: begun by the first segment's submission, ended by the final one or reset().
    bool in_session() const noexcept { return session_.active(); }
    softcomch::sha::digest session_;
    bool is_final_ = false;
    bool has_result_ = false;
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_sha>() needs its typeinfo.
struct SOFTCOMCH_API doca_sha final : softcomch::core::engine_ctx {
    static constexpr size_t k_slice_bytes = size_t(1) << 20; // input hashed per poll

    // NOT_SUPPORTED (logged) for a device without the engine.
    static doca_error_t create(doca_dev *dev, doca_sha **out);
    ~doca_sha() override;

    uint32_t max_num_tasks() const noexcept;
    doca_error_t hash_set_conf(doca_sha_task_hash_completion_cb_t ok,
                               doca_sha_task_hash_completion_cb_t err, uint8_t log_num);
    doca_error_t partial_set_conf(doca_sha_task_partial_hash_completion_cb_t ok,
                                  doca_sha_task_partial_hash_completion_cb_t err, uint8_t log_num);
    doca_error_t hash_alloc(doca_sha_algorithm alg, const doca_buf *src, doca_buf *dst,
                            union doca_data user_data, doca_sha_task_hash **task);
    doca_error_t partial_alloc(doca_sha_algorithm alg, const doca_buf *src, doca_buf *dst,
                               union doca_data user_data, doca_sha_task_partial_hash **task);

    SOFTCOMCH_LOCAL void free_task(doca_task *task) override;

private:
    SOFTCOMCH_LOCAL explicit doca_sha(doca_dev *dev) noexcept;
    SOFTCOMCH_LOCAL unsigned execute() override;
    SOFTCOMCH_LOCAL void reset_cursor() noexcept override;
    SOFTCOMCH_LOCAL doca_error_t check_task(const doca_task &task, const char **why, char *,
                                            size_t) const noexcept override
    {
        return check(task, why);
    }
    SOFTCOMCH_LOCAL doca_error_t check(const doca_task &task, const char **why) const noexcept;
    // One slice of the front task: IN_PROGRESS while more polls are needed, else its status.
    SOFTCOMCH_LOCAL doca_error_t step(doca_task &task, const char **why) noexcept;
    // The *_alloc_init shape of both kinds: RUNNING, a task of `pool`, its fields.
    template <typename T>
    SOFTCOMCH_LOCAL doca_error_t alloc(softcomch::core::task_set<T> &pool, const char *func,
                                       const char *conf_fn, doca_sha_algorithm alg,
                                       const doca_buf *src, doca_buf *dst,
                                       union doca_data user_data, T **task);
    // Pool sizes from log2, checked against the cap (both kinds together).
    SOFTCOMCH_LOCAL doca_error_t pool_size(uint8_t log_num, uint32_t other, const char *func,
                                           uint32_t *num) const noexcept;

    doca_dev *dev_;
    softcomch::core::task_set<doca_sha_task_hash> hash_tasks_;
    softcomch::core::task_set<doca_sha_task_partial_hash> partial_tasks_;
    softcomch::sha::digest front_; // the front hash task's running digest
};
