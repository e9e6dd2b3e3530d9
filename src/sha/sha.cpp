// SPDX-License-Identifier: Apache-2.0
#include "sha/sha.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"

namespace softcomch::sha {

uint32_t digest_len(doca_sha_algorithm alg) noexcept
{
    switch (alg) {
    case DOCA_SHA_ALGORITHM_SHA1:
        return 20;
    case DOCA_SHA_ALGORITHM_SHA256:
        return 32;
    case DOCA_SHA_ALGORITHM_SHA512:
        return 64;
    }
    return 0;
}

uint32_t block_len(doca_sha_algorithm alg) noexcept
{
    switch (alg) {
    case DOCA_SHA_ALGORITHM_SHA1:
    case DOCA_SHA_ALGORITHM_SHA256:
        return 64;
    case DOCA_SHA_ALGORITHM_SHA512:
        return 128;
    }
    return 0;
}

digest::~digest()
{
    reset();
}

void digest::reset() noexcept
{
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(ctx_));
    ctx_ = nullptr;
}

bool digest::begin(doca_sha_algorithm alg) noexcept
{
    reset();
    const EVP_MD *md = alg == DOCA_SHA_ALGORITHM_SHA1     ? EVP_sha1()
                       : alg == DOCA_SHA_ALGORITHM_SHA256 ? EVP_sha256()
                                                          : EVP_sha512();
    auto *c = EVP_MD_CTX_new();
    if (c == nullptr || EVP_DigestInit_ex(c, md, nullptr) != 1) {
        EVP_MD_CTX_free(c);
        return false;
    }
    ctx_ = c;
    return true;
}

bool digest::update(const void *p, size_t n) noexcept
{
    return EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(ctx_), p, n) == 1;
}

bool digest::finish(uint8_t *out) noexcept
{
    unsigned int len = 0;
    const bool ok = EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(ctx_), out, &len) == 1;
    reset();
    return ok;
}

} // namespace softcomch::sha

namespace {

softcomch::sha::task_fields &fields_of(doca_task &t) noexcept
{
    if (t.kind_ == softcomch::core::task_kind::sha_hash)
        return static_cast<doca_sha_task_hash &>(t);
    return static_cast<doca_sha_task_partial_hash &>(t);
}

} // namespace

doca_error_t doca_sha::create(doca_dev *dev, doca_sha **out)
{
    if (!dev->info()->engines().sha) {
        SC_LOG_ERR("doca_sha_create: the device's %s has no SHA engine (BlueField-2 has one; "
                   "docs/topology.md, \"model\")",
                   dev->info()->board().model_.c_str());
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *out = new doca_sha(dev);
    return DOCA_SUCCESS;
}

doca_sha::doca_sha(doca_dev *dev) noexcept : engine_ctx("sha"), dev_(dev)
{
    dev_->hold();
}

doca_sha::~doca_sha()
{
    dev_->release();
}

uint32_t doca_sha::max_num_tasks() const noexcept
{
    return uint32_t(std::min<uint64_t>(dev_->info()->dma().max_num_tasks, UINT32_MAX));
}

doca_error_t doca_sha::pool_size(uint8_t log_num, uint32_t other, const char *func,
                                 uint32_t *num) const noexcept
{
    const uint32_t cap = max_num_tasks() > other ? max_num_tasks() - other : 0;
    if (log_num >= 32 || (uint64_t(1) << log_num) > cap) {
        SC_LOG_ERR("%s: 2^%u tasks; the context takes at most %u more "
                   "(doca_sha_cap_get_max_num_tasks, both task kinds together)",
                   func, unsigned(log_num), cap);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *num = uint32_t(1) << log_num;
    return DOCA_SUCCESS;
}

doca_error_t doca_sha::hash_set_conf(doca_sha_task_hash_completion_cb_t ok,
                                     doca_sha_task_hash_completion_cb_t err, uint8_t log_num)
{
    const char *func = "doca_sha_task_hash_set_conf";
    uint32_t num = 0;
    if (doca_error_t rc = pool_size(log_num, partial_tasks_.capacity(), func, &num);
        rc != DOCA_SUCCESS)
        return rc;
    return hash_tasks_.set_conf<&doca_sha::hash_tasks_>(this, func, ok, err, "number of hash tasks",
                                                        num, num, "doca_sha_cap_get_max_num_tasks");
}

doca_error_t doca_sha::partial_set_conf(doca_sha_task_partial_hash_completion_cb_t ok,
                                        doca_sha_task_partial_hash_completion_cb_t err,
                                        uint8_t log_num)
{
    const char *func = "doca_sha_task_partial_hash_set_conf";
    uint32_t num = 0;
    if (doca_error_t rc = pool_size(log_num, hash_tasks_.capacity(), func, &num);
        rc != DOCA_SUCCESS)
        return rc;
    return partial_tasks_.set_conf<&doca_sha::partial_tasks_>(
        this, func, ok, err, "number of partial hash tasks", num, num,
        "doca_sha_cap_get_max_num_tasks");
}

template <typename T>
doca_error_t doca_sha::alloc(softcomch::core::task_set<T> &pool, const char *func,
                             const char *conf_fn, doca_sha_algorithm alg, const doca_buf *src,
                             doca_buf *dst, union doca_data user_data, T **task)
{
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    T *t = nullptr;
    if (doca_error_t rc = pool.take(func, conf_fn, &t); rc != DOCA_SUCCESS)
        return rc;
    t->alg_ = alg;
    t->src_ = src;
    t->dst_ = dst;
    t->done_ = 0;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_sha::hash_alloc(doca_sha_algorithm alg, const doca_buf *src, doca_buf *dst,
                                  union doca_data user_data, doca_sha_task_hash **task)
{
    return alloc(hash_tasks_, "doca_sha_task_hash_alloc_init", "doca_sha_task_hash_set_conf", alg,
                 src, dst, user_data, task);
}

doca_error_t doca_sha::partial_alloc(doca_sha_algorithm alg, const doca_buf *src, doca_buf *dst,
                                     union doca_data user_data, doca_sha_task_partial_hash **task)
{
    const doca_error_t rc =
        alloc(partial_tasks_, "doca_sha_task_partial_hash_alloc_init",
              "doca_sha_task_partial_hash_set_conf", alg, src, dst, user_data, task);
    if (rc == DOCA_SUCCESS) {
        (*task)->session_.reset();
        (*task)->is_final_ = false;
        (*task)->has_result_ = false;
    }
    return rc;
}

doca_error_t doca_sha::check(const doca_task &t, const char **why) const noexcept
{
    const auto &f = fields_of(const_cast<doca_task &>(t));
    if (doca_error_t rc = softcomch::core::check_src_dst(f.src_, f.dst_, dev_, why);
        rc != DOCA_SUCCESS)
        return rc;
    if (f.src_->data_len() > softcomch::sha::k_max_src_buf_size) {
        *why = "the source is larger than the engine takes (doca_sha_cap_get_max_src_buf_size)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (t.kind_ == softcomch::core::task_kind::sha_partial_hash) {
        const auto &p = static_cast<const doca_sha_task_partial_hash &>(t);
        if (!p.is_final_ && f.src_->data_len() % softcomch::sha::block_len(f.alg_) != 0) {
            *why = "a segment before the final one is not a multiple of the partial hash block "
                   "size (doca_sha_cap_get_partial_hash_block_size)";
            return DOCA_ERROR_INVALID_VALUE;
        }
    }
    const bool writes = t.kind_ == softcomch::core::task_kind::sha_hash ||
                        static_cast<const doca_sha_task_partial_hash &>(t).is_final_;
    if (writes && softcomch::core::tail_room(*f.dst_) < softcomch::sha::digest_len(f.alg_)) {
        *why = "the destination has less room after its data than the digest needs "
               "(doca_sha_cap_get_min_dst_buf_size)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_sha::free_task(doca_task *t)
{
    if (t->kind_ == softcomch::core::task_kind::sha_hash) {
        hash_tasks_.release(static_cast<doca_sha_task_hash *>(t));
        return;
    }
    auto *p = static_cast<doca_sha_task_partial_hash *>(t);
    p->session_.reset();
    partial_tasks_.release(p);
}

void doca_sha::reset_cursor() noexcept
{
    front_.reset();
}

unsigned doca_sha::execute()
{
    doca_task &t = *queue_.front();
    const char *why = nullptr;
    doca_error_t rc = fields_of(t).done_ == 0 ? check(t, &why) : DOCA_SUCCESS;
    if (rc == DOCA_SUCCESS)
        rc = step(t, &why);
    if (rc == DOCA_ERROR_IN_PROGRESS)
        return 1;
    fields_of(t).done_ = 0;
    if (rc != DOCA_SUCCESS) {
        SC_LOG_INFO("SHA context %p: task failed (%s): %s; the context stops",
                    static_cast<void *>(this), softcomch::error_name(rc), why);
        if (t.kind_ == softcomch::core::task_kind::sha_partial_hash)
            static_cast<doca_sha_task_partial_hash &>(t).session_.reset();
    }
    const doca_buf *src = fields_of(t).src_;
    finish_front(rc, rc == DOCA_SUCCESS && src != nullptr ? src->data_len() : 0);
    return 1;
}

doca_error_t doca_sha::step(doca_task &t, const char **why) noexcept
{
    auto &f = fields_of(t);
    const bool partial = t.kind_ == softcomch::core::task_kind::sha_partial_hash;
    auto *p = partial ? &static_cast<doca_sha_task_partial_hash &>(t) : nullptr;
    softcomch::sha::digest &d = partial ? p->session_ : front_;
    if (!d.active() && !d.begin(f.alg_)) {
        *why = "libcrypto could not set up the digest";
        return DOCA_ERROR_NO_MEMORY;
    }
    const size_t len = f.src_->data_len();
    const size_t n = std::min(len - f.done_, k_slice_bytes);
    if (n != 0 && !d.update(static_cast<const uint8_t *>(f.src_->data()) + f.done_, n)) {
        *why = "libcrypto failed to hash the data";
        return DOCA_ERROR_UNEXPECTED;
    }
    f.done_ += n;
    if (f.done_ < len)
        return DOCA_ERROR_IN_PROGRESS;
    if (partial && !p->is_final_)
        return DOCA_SUCCESS; // the session goes on with the next segment
    uint8_t out[64];
    if (!d.finish(out)) {
        *why = "libcrypto failed to finish the digest";
        return DOCA_ERROR_UNEXPECTED;
    }
    const uint32_t dl = softcomch::sha::digest_len(f.alg_);
    std::memcpy(softcomch::core::tail_of(*f.dst_), out, dl);
    (void)f.dst_->set_data_len(f.dst_->data_len() + dl);
    if (partial)
        p->has_result_ = true;
    return DOCA_SUCCESS;
}
