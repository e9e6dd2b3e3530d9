// SPDX-License-Identifier: Apache-2.0
//
// DOCA Compress (include/doca_compress.h): deflate compression and decompression with zlib (raw
// DEFLATE, RFC 1951), LZ4 decompression with lz4_codec. An engine context (core/engine_ctx.hpp):
// tasks run from poll() in submission order; deflate works through its input 1 MiB per poll, so
// a large task stays in flight over several progress calls; a task that fails stops the context.
// Which task kinds a device has follows its BlueField's model (core::engine_caps).
//
// Layer: compress depends on core and common only.
#pragma once

#include <doca_compress.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/visibility.hpp"
#include "core/engine_ctx.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_dev;
struct doca_devinfo;

namespace softcomch::compress {

// What every compress task holds: its buffers and the checksums of its last completion.
struct task_fields {
    const doca_buf *src_ = nullptr;
    doca_buf *dst_ = nullptr;
    uint32_t crc_ = 0;
    uint32_t adler_ = 0;
    uint32_t xxh_ = 0;
};

// The limits of every task kind (docs/design.md, "Compress and SHA").
inline constexpr uint64_t k_max_buf_size = uint64_t(128) << 20;
inline constexpr uint32_t k_max_buf_list_len = 1;

// Whether `devinfo` has the engine of a task kind (by its BlueField's model).
SOFTCOMCH_API bool supports(const doca_devinfo *devinfo, softcomch::core::task_kind kind) noexcept;

} // namespace softcomch::compress

#define SC_COMPRESS_TASK(type, kind_name)                                                          \
    struct type : doca_task, softcomch::compress::task_fields {                                    \
        static constexpr softcomch::core::task_kind k_kind =                                       \
            softcomch::core::task_kind::kind_name;                                                 \
        explicit type(doca_ctx *owner) noexcept : doca_task(owner, k_kind) {}                      \
    }
SC_COMPRESS_TASK(doca_compress_task_compress_deflate, compress_deflate);
SC_COMPRESS_TASK(doca_compress_task_decompress_deflate, decompress_deflate);
SC_COMPRESS_TASK(doca_compress_task_decompress_lz4_block, decompress_lz4_block);
#undef SC_COMPRESS_TASK

struct doca_compress_task_decompress_lz4_stream : doca_task, softcomch::compress::task_fields {
    static constexpr softcomch::core::task_kind k_kind =
        softcomch::core::task_kind::decompress_lz4_stream;
    explicit doca_compress_task_decompress_lz4_stream(doca_ctx *owner) noexcept
        : doca_task(owner, k_kind)
    {}
    bool has_block_checksum_ = false;
    bool blocks_independent_ = false;
};

// SOFTCOMCH_API on the class: the C API's doca_ctx::as<doca_compress>() needs its typeinfo.
struct SOFTCOMCH_API doca_compress final : softcomch::core::engine_ctx {
    static constexpr size_t k_slice_bytes = size_t(1) << 20; // deflate input per poll

    static doca_error_t create(doca_dev *dev, doca_compress **out);
    ~doca_compress() override;

    uint32_t max_num_tasks() const noexcept;

    // The *_set_conf calls: `Kind` is one of the four task types.
    template <typename Kind>
    doca_error_t set_conf(void (*ok)(Kind *, union doca_data, union doca_data),
                          void (*err)(Kind *, union doca_data, union doca_data), uint32_t num,
                          const char *func);
    // The *_alloc_init calls (the LZ4 stream task's flags are set by the C API afterwards).
    template <typename Kind>
    doca_error_t alloc(const doca_buf *src, doca_buf *dst, union doca_data user_data, Kind **task,
                       const char *func);

    SOFTCOMCH_LOCAL void free_task(doca_task *task) override;

private:
    struct zstate;
    SOFTCOMCH_LOCAL explicit doca_compress(doca_dev *dev) noexcept;
    SOFTCOMCH_LOCAL unsigned execute() override;
    SOFTCOMCH_LOCAL void reset_cursor() noexcept override;
    SOFTCOMCH_LOCAL doca_error_t check_task(const doca_task &task, const char **why, char *,
                                            size_t) const noexcept override
    {
        return check(task, why);
    }
    // The buffer checks of any task: DOCA_SUCCESS or the failure status and *why.
    SOFTCOMCH_LOCAL doca_error_t check(const doca_task &task, const char **why) const noexcept;
    // One step of a deflate task (the whole of an LZ4 task): DOCA_ERROR_IN_PROGRESS while more
    // polls are needed, else the task's status (and *why for a failure).
    SOFTCOMCH_LOCAL doca_error_t step_deflate(doca_task &task, bool compress, const char **why);
    SOFTCOMCH_LOCAL doca_error_t run_lz4(doca_task &task, const char **why) noexcept;
    template <typename Kind> static constexpr auto pool() noexcept;

    doca_dev *dev_;
    softcomch::core::task_set<doca_compress_task_compress_deflate> compress_deflate_;
    softcomch::core::task_set<doca_compress_task_decompress_deflate> decompress_deflate_;
    softcomch::core::task_set<doca_compress_task_decompress_lz4_stream> lz4_stream_;
    softcomch::core::task_set<doca_compress_task_decompress_lz4_block> lz4_block_;
    std::unique_ptr<zstate> z_; // the front deflate task's stream, while one is under way
};
