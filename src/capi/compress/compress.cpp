// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_compress.h (libdoca_compress): argument checks and delegation only. The four task
// kinds have the same shape; SC_COMPRESS_KIND writes each kind's functions once.
#include <doca_compress.h>

#include "capi/engine_publication.hpp"
#include "capi/handle.hpp"
#include "compress/compress.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_compress, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_compress_task_compress_deflate, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));
SC_HANDLE(doca_compress_task_decompress_deflate, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));
SC_HANDLE(doca_compress_task_decompress_lz4_stream, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));
SC_HANDLE(doca_compress_task_decompress_lz4_block, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));

namespace {

template <typename Kind> doca_error_t cap_supported(const char *func, const doca_devinfo *devinfo)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        return compress::supports(devinfo, Kind::k_kind) ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
    });
}

// A limit of a task kind: NOT_SUPPORTED for a device without it.
template <typename Kind, typename Out>
doca_error_t cap_value(const char *func, const doca_devinfo *devinfo, Out *out, Out value)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(out);
        if (!compress::supports(devinfo, Kind::k_kind))
            return DOCA_ERROR_NOT_SUPPORTED;
        *out = value;
        return DOCA_SUCCESS;
    });
}

template <typename Kind>
doca_error_t alloc(const char *func, doca_compress *c, const doca_buf *src, doca_buf *dst,
                   union doca_data ud, Kind **task)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(c);
        SC_REQUIRE(src);
        SC_REQUIRE(dst);
        SC_CHECK_NOT_NULL(task);
        return c->alloc(src, dst, ud, task, api_function());
    });
}

template <typename Kind> void set_buf(const char *func, Kind *task, const doca_buf *b, bool dst)
{
    if (!usable(task, "task", func) || !usable(b, dst ? "dst_buff" : "src_buff", func))
        return;
    if (!task->reconfigurable(func))
        return;
    if (dst)
        task->dst_ = const_cast<doca_buf *>(b);
    else
        task->src_ = b;
}

} // namespace

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_compress_create(struct doca_dev *dev, struct doca_compress **compress)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(dev);
        SC_CHECK_NOT_NULL(compress);
        return softcomch::capi::create_published(&doca_compress::create, dev, compress, "compress");
    });
}

doca_error_t doca_compress_destroy(struct doca_compress *compress)
{
    return destroy_idle(__func__, SC_ARG(compress), "compress context");
}

struct doca_ctx *doca_compress_as_ctx(struct doca_compress *compress)
{
    return usable(compress, "compress", __func__) ? compress : nullptr;
}

doca_error_t doca_compress_cap_get_max_num_tasks(struct doca_compress *compress,
                                                 uint32_t *max_num_tasks)
{
    return get_into(__func__, SC_ARG(compress), SC_ARG(max_num_tasks),
                    [](auto &c) { return c.max_num_tasks(); });
}

// Every function of one task kind `K` (doca_compress_task_K). `CS2` names its second checksum
// getter (adler for deflate, xxh for LZ4) and `cs2_` the field it reads.
#define SC_COMPRESS_KIND(K, CS2, cs2_)                                                             \
    doca_error_t doca_compress_cap_task_##K##_is_supported(const struct doca_devinfo *devinfo)     \
    {                                                                                              \
        return cap_supported<doca_compress_task_##K>(__func__, devinfo);                           \
    }                                                                                              \
    doca_error_t doca_compress_cap_task_##K##_get_max_buf_size(const struct doca_devinfo *devinfo, \
                                                               uint64_t *max_buffer_size)          \
    {                                                                                              \
        return cap_value<doca_compress_task_##K, uint64_t>(__func__, devinfo, max_buffer_size,     \
                                                           softcomch::compress::k_max_buf_size);   \
    }                                                                                              \
    doca_error_t doca_compress_cap_task_##K##_get_max_buf_list_len(                                \
        const struct doca_devinfo *devinfo, uint32_t *max_buf_list_len)                            \
    {                                                                                              \
        return cap_value<doca_compress_task_##K, uint32_t>(                                        \
            __func__, devinfo, max_buf_list_len, softcomch::compress::k_max_buf_list_len);         \
    }                                                                                              \
    doca_error_t doca_compress_task_##K##_set_conf(                                                \
        struct doca_compress *compress,                                                            \
        doca_compress_task_##K##_completion_cb_t task_completion_cb,                               \
        doca_compress_task_##K##_completion_cb_t task_error_cb, uint32_t num_tasks)                \
    {                                                                                              \
        return delegate(__func__, SC_ARG(compress), [&](doca_compress &c) {                        \
            return c.set_conf<doca_compress_task_##K>(task_completion_cb, task_error_cb,           \
                                                      num_tasks, api_function());                  \
        });                                                                                        \
    }                                                                                              \
    struct doca_task *doca_compress_task_##K##_as_task(struct doca_compress_task_##K *task)        \
    {                                                                                              \
        return usable(task, "task", __func__) ? task : nullptr;                                    \
    }                                                                                              \
    void doca_compress_task_##K##_set_src(struct doca_compress_task_##K *task,                     \
                                          struct doca_buf const *src_buff)                         \
    {                                                                                              \
        set_buf(__func__, task, src_buff, false);                                                  \
    }                                                                                              \
    struct doca_buf const *doca_compress_task_##K##_get_src(                                       \
        const struct doca_compress_task_##K *task)                                                 \
    {                                                                                              \
        return why_unusable(task) ? nullptr : task->src_;                                          \
    }                                                                                              \
    void doca_compress_task_##K##_set_dst(struct doca_compress_task_##K *task,                     \
                                          struct doca_buf *dst_buff)                               \
    {                                                                                              \
        set_buf(__func__, task, dst_buff, true);                                                   \
    }                                                                                              \
    struct doca_buf *doca_compress_task_##K##_get_dst(const struct doca_compress_task_##K *task)   \
    {                                                                                              \
        return why_unusable(task) ? nullptr : task->dst_;                                          \
    }                                                                                              \
    uint32_t doca_compress_task_##K##_get_crc_cs(const struct doca_compress_task_##K *task)        \
    {                                                                                              \
        return usable(task, "task", __func__) ? task->crc_ : 0;                                    \
    }                                                                                              \
    uint32_t doca_compress_task_##K##_get_##CS2##_cs(const struct doca_compress_task_##K *task)    \
    {                                                                                              \
        return usable(task, "task", __func__) ? task->cs2_ : 0;                                    \
    }

SC_COMPRESS_KIND(compress_deflate, adler, adler_)
SC_COMPRESS_KIND(decompress_deflate, adler, adler_)
SC_COMPRESS_KIND(decompress_lz4_stream, xxh, xxh_)
SC_COMPRESS_KIND(decompress_lz4_block, xxh, xxh_)
#undef SC_COMPRESS_KIND

doca_error_t doca_compress_task_compress_deflate_alloc_init(
    struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
    union doca_data user_data, struct doca_compress_task_compress_deflate **task)
{
    return alloc(__func__, compress, src_buff, dst_buff, user_data, task);
}

doca_error_t doca_compress_task_decompress_deflate_alloc_init(
    struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
    union doca_data user_data, struct doca_compress_task_decompress_deflate **task)
{
    return alloc(__func__, compress, src_buff, dst_buff, user_data, task);
}

doca_error_t doca_compress_task_decompress_lz4_block_alloc_init(
    struct doca_compress *compress, struct doca_buf const *src_buff, struct doca_buf *dst_buff,
    union doca_data user_data, struct doca_compress_task_decompress_lz4_block **task)
{
    return alloc(__func__, compress, src_buff, dst_buff, user_data, task);
}

doca_error_t doca_compress_task_decompress_lz4_stream_alloc_init(
    struct doca_compress *compress, uint8_t has_block_checksum, uint8_t are_blocks_independent,
    struct doca_buf const *src_buff, struct doca_buf *dst_buff, union doca_data user_data,
    struct doca_compress_task_decompress_lz4_stream **task)
{
    const doca_error_t rc = alloc(__func__, compress, src_buff, dst_buff, user_data, task);
    if (rc == DOCA_SUCCESS) {
        (*task)->has_block_checksum_ = has_block_checksum != 0;
        (*task)->blocks_independent_ = are_blocks_independent != 0;
    }
    return rc;
}

void doca_compress_task_decompress_lz4_stream_set_has_block_checksum(
    struct doca_compress_task_decompress_lz4_stream *task, uint8_t has_block_checksum)
{
    if (usable(task, "task", __func__) && task->reconfigurable(__func__))
        task->has_block_checksum_ = has_block_checksum != 0;
}

uint8_t doca_compress_task_decompress_lz4_stream_get_has_block_checksum(
    const struct doca_compress_task_decompress_lz4_stream *task)
{
    return usable(task, "task", __func__) && task->has_block_checksum_ ? 1 : 0;
}

void doca_compress_task_decompress_lz4_stream_set_are_blocks_independent(
    struct doca_compress_task_decompress_lz4_stream *task, uint8_t are_blocks_independent)
{
    if (usable(task, "task", __func__) && task->reconfigurable(__func__))
        task->blocks_independent_ = are_blocks_independent != 0;
}

uint8_t doca_compress_task_decompress_lz4_stream_get_are_blocks_independent(
    const struct doca_compress_task_decompress_lz4_stream *task)
{
    return usable(task, "task", __func__) && task->blocks_independent_ ? 1 : 0;
}

} // extern "C"
