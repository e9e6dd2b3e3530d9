// SPDX-License-Identifier: Apache-2.0
#include "compress/compress.hpp"

#include <zlib.h>

#include <algorithm>
#include <type_traits>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "compress/lz4_codec.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"

namespace softcomch::compress {

bool supports(const doca_devinfo *devinfo, core::task_kind kind) noexcept
{
    const core::engine_caps e = devinfo->engines();
    switch (kind) {
    case core::task_kind::compress_deflate:
        return e.compress_deflate;
    case core::task_kind::decompress_deflate:
        return e.decompress_deflate;
    case core::task_kind::decompress_lz4_stream:
    case core::task_kind::decompress_lz4_block:
        return e.decompress_lz4;
    default:
        return false;
    }
}

namespace {

task_fields &fields_of(doca_task &t) noexcept
{
    switch (t.kind_) {
    case core::task_kind::compress_deflate:
        return static_cast<doca_compress_task_compress_deflate &>(t);
    case core::task_kind::decompress_deflate:
        return static_cast<doca_compress_task_decompress_deflate &>(t);
    case core::task_kind::decompress_lz4_stream:
        return static_cast<doca_compress_task_decompress_lz4_stream &>(t);
    default:
        return static_cast<doca_compress_task_decompress_lz4_block &>(t);
    }
}

const char *kind_text(core::task_kind k) noexcept
{
    switch (k) {
    case core::task_kind::compress_deflate:
        return "deflate compression";
    case core::task_kind::decompress_deflate:
        return "deflate decompression";
    case core::task_kind::decompress_lz4_stream:
        return "LZ4 stream decompression";
    default:
        return "LZ4 block decompression";
    }
}

} // namespace

} // namespace softcomch::compress

using softcomch::compress::fields_of;
using softcomch::compress::task_fields;

// The zlib stream of the deflate task at the front of the queue.
struct doca_compress::zstate {
    z_stream zs{};
    bool compress = false;
    size_t in_done = 0;  // source bytes given to zlib
    size_t out_done = 0; // bytes written after the destination's data
    uint32_t crc = 0;
    uint32_t adler = 0;

    explicit zstate(bool deflating) : compress(deflating)
    {
        crc = uint32_t(crc32(0, nullptr, 0));
        adler = uint32_t(adler32(0, nullptr, 0));
    }
    ~zstate()
    {
        if (compress)
            deflateEnd(&zs);
        else
            inflateEnd(&zs);
    }
    zstate(const zstate &) = delete;
    zstate &operator=(const zstate &) = delete;
};

doca_error_t doca_compress::create(doca_dev *dev, doca_compress **out)
{
    *out = new doca_compress(dev);
    return DOCA_SUCCESS;
}

doca_compress::doca_compress(doca_dev *dev) noexcept : engine_ctx("compress"), dev_(dev)
{
    dev_->hold();
}

doca_compress::~doca_compress()
{
    z_.reset();
    dev_->release();
}

uint32_t doca_compress::max_num_tasks() const noexcept
{
    return uint32_t(std::min<uint64_t>(dev_->info()->dma().max_num_tasks, UINT32_MAX));
}

// The task set of `Kind`, as the member pointer task_set::set_conf names it by.
template <typename Kind> constexpr auto doca_compress::pool() noexcept
{
    if constexpr (std::is_same_v<Kind, doca_compress_task_compress_deflate>)
        return &doca_compress::compress_deflate_;
    else if constexpr (std::is_same_v<Kind, doca_compress_task_decompress_deflate>)
        return &doca_compress::decompress_deflate_;
    else if constexpr (std::is_same_v<Kind, doca_compress_task_decompress_lz4_stream>)
        return &doca_compress::lz4_stream_;
    else
        return &doca_compress::lz4_block_;
}

template <typename Kind>
doca_error_t doca_compress::set_conf(void (*ok)(Kind *, union doca_data, union doca_data),
                                     void (*err)(Kind *, union doca_data, union doca_data),
                                     uint32_t num, const char *func)
{
    if (!softcomch::compress::supports(dev_->info(), Kind::k_kind)) {
        SC_LOG_ERR("%s: the device's %s has no %s engine (docs/topology.md, \"model\")", func,
                   dev_->info()->board().model_.c_str(),
                   softcomch::compress::kind_text(Kind::k_kind));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    // The four kinds share the context's tasks: the others' pools count against the cap.
    uint64_t others = compress_deflate_.capacity() + decompress_deflate_.capacity() +
                      lz4_stream_.capacity() + lz4_block_.capacity() -
                      (this->*pool<Kind>()).capacity();
    const uint32_t cap = uint32_t(
        std::min<uint64_t>(max_num_tasks() > others ? max_num_tasks() - others : 0, UINT32_MAX));
    return (this->*pool<Kind>())
        .template set_conf<pool<Kind>()>(
            this, func, ok, err, "number of tasks", num, cap,
            "doca_compress_cap_get_max_num_tasks (all kinds together)");
}

template <typename Kind>
doca_error_t doca_compress::alloc(const doca_buf *src, doca_buf *dst, union doca_data user_data,
                                  Kind **task, const char *func)
{
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    Kind *t = nullptr;
    if (doca_error_t rc = (this->*pool<Kind>()).take(func, "the task kind's *_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->src_ = src;
    t->dst_ = dst;
    t->crc_ = t->adler_ = t->xxh_ = 0;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

#define SC_COMPRESS_INSTANTIATE(Kind)                                                              \
    template SOFTCOMCH_API doca_error_t doca_compress::set_conf<Kind>(                             \
        void (*)(Kind *, union doca_data, union doca_data),                                        \
        void (*)(Kind *, union doca_data, union doca_data), uint32_t, const char *);               \
    template SOFTCOMCH_API doca_error_t doca_compress::alloc<Kind>(                                \
        const doca_buf *, doca_buf *, union doca_data, Kind **, const char *)
SC_COMPRESS_INSTANTIATE(doca_compress_task_compress_deflate);
SC_COMPRESS_INSTANTIATE(doca_compress_task_decompress_deflate);
SC_COMPRESS_INSTANTIATE(doca_compress_task_decompress_lz4_stream);
SC_COMPRESS_INSTANTIATE(doca_compress_task_decompress_lz4_block);
#undef SC_COMPRESS_INSTANTIATE

doca_error_t doca_compress::check(const doca_task &t, const char **why) const noexcept
{
    const task_fields &f = fields_of(const_cast<doca_task &>(t));
    if (doca_error_t rc = softcomch::core::check_src_dst(f.src_, f.dst_, dev_, why);
        rc != DOCA_SUCCESS)
        return rc;
    if (f.src_->data_len() == 0) {
        *why = "the source buffer has no data (its data length is 0)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (f.src_->data_len() > softcomch::compress::k_max_buf_size ||
        f.dst_->len() > softcomch::compress::k_max_buf_size) {
        *why =
            "a buffer is larger than the engine takes (doca_compress_cap_task_*_get_max_buf_size)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_compress::free_task(doca_task *t)
{
    switch (t->kind_) {
    case softcomch::core::task_kind::compress_deflate:
        compress_deflate_.release(static_cast<doca_compress_task_compress_deflate *>(t));
        break;
    case softcomch::core::task_kind::decompress_deflate:
        decompress_deflate_.release(static_cast<doca_compress_task_decompress_deflate *>(t));
        break;
    case softcomch::core::task_kind::decompress_lz4_stream:
        lz4_stream_.release(static_cast<doca_compress_task_decompress_lz4_stream *>(t));
        break;
    default:
        lz4_block_.release(static_cast<doca_compress_task_decompress_lz4_block *>(t));
        break;
    }
}

void doca_compress::reset_cursor() noexcept
{
    z_.reset();
}

unsigned doca_compress::execute()
{
    doca_task &t = *queue_.front();
    const char *why = nullptr;
    doca_error_t rc;
    if (!z_) {
        rc = check(t, &why);
        if (rc == DOCA_SUCCESS)
            rc = DOCA_ERROR_IN_PROGRESS;
    } else {
        rc = DOCA_ERROR_IN_PROGRESS;
    }
    if (rc == DOCA_ERROR_IN_PROGRESS) {
        switch (t.kind_) {
        case softcomch::core::task_kind::compress_deflate:
            rc = step_deflate(t, true, &why);
            break;
        case softcomch::core::task_kind::decompress_deflate:
            rc = step_deflate(t, false, &why);
            break;
        default:
            rc = run_lz4(t, &why);
            break;
        }
    }
    if (rc == DOCA_ERROR_IN_PROGRESS)
        return 1;
    if (rc != DOCA_SUCCESS)
        SC_LOG_INFO("compress context %p: %s task failed (%s): %s; the context stops",
                    static_cast<void *>(this), softcomch::compress::kind_text(t.kind_),
                    softcomch::error_name(rc), why);
    const doca_buf *src = fields_of(t).src_;
    finish_front(rc, rc == DOCA_SUCCESS && src != nullptr ? src->data_len() : 0);
    return 1;
}

doca_error_t doca_compress::step_deflate(doca_task &t, bool compress, const char **why)
{
    task_fields &f = fields_of(t);
    if (!z_) {
        z_ = std::make_unique<zstate>(compress);
        const int zrc = compress ? deflateInit2(&z_->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                                                -MAX_WBITS, 8, Z_DEFAULT_STRATEGY)
                                 : inflateInit2(&z_->zs, -MAX_WBITS);
        if (zrc != Z_OK) {
            *why = "zlib could not set up a stream (out of memory)";
            return DOCA_ERROR_NO_MEMORY;
        }
    }
    zstate &z = *z_;
    const auto *src = static_cast<const uint8_t *>(f.src_->data());
    const size_t src_len = f.src_->data_len();
    uint8_t *out = softcomch::core::tail_of(*f.dst_);
    const size_t room = softcomch::core::tail_room(*f.dst_);
    const size_t in_now = std::min(src_len - z.in_done, k_slice_bytes);
    const bool last = z.in_done + in_now == src_len;
    z.zs.next_in = const_cast<Bytef *>(src + z.in_done);
    z.zs.avail_in = uInt(in_now);
    z.zs.next_out = out + z.out_done;
    z.zs.avail_out = uInt(std::min<size_t>(room - z.out_done, UINT32_MAX));
    const Bytef *out_before = z.zs.next_out;
    int zrc = compress ? deflate(&z.zs, last ? Z_FINISH : Z_NO_FLUSH) : inflate(&z.zs, Z_NO_FLUSH);
    const size_t consumed = in_now - z.zs.avail_in;
    const size_t produced = size_t(z.zs.next_out - out_before);
    // Checksums of the uncompressed side: the input when compressing, the output otherwise.
    const uint8_t *plain = compress ? src + z.in_done : out_before;
    const size_t plain_len = compress ? consumed : produced;
    z.crc = uint32_t(crc32(z.crc, plain, uInt(plain_len)));
    z.adler = uint32_t(adler32(z.adler, plain, uInt(plain_len)));
    z.in_done += consumed;
    z.out_done += produced;
    if (zrc == Z_STREAM_END) {
        if (!compress && z.in_done != src_len) {
            *why = "data follows the end of the deflate stream";
            return DOCA_ERROR_INVALID_VALUE;
        }
        (void)f.dst_->set_data_len(f.dst_->data_len() + z.out_done);
        f.crc_ = z.crc;
        f.adler_ = z.adler;
        z_.reset();
        return DOCA_SUCCESS;
    }
    if (zrc == Z_DATA_ERROR || zrc == Z_NEED_DICT) {
        *why = "the source is not a valid raw deflate stream";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (zrc == Z_MEM_ERROR) {
        *why = "zlib ran out of memory";
        return DOCA_ERROR_NO_MEMORY;
    }
    if (z.out_done == room && (z.zs.avail_in != 0 || zrc == Z_OK || zrc == Z_BUF_ERROR)) {
        *why = "the output does not fit in the room after the destination's data";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!compress && z.in_done == src_len && zrc == Z_BUF_ERROR) {
        *why = "the deflate stream is cut off (no final block)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_ERROR_IN_PROGRESS;
}

doca_error_t doca_compress::run_lz4(doca_task &t, const char **why) noexcept
{
    task_fields &f = fields_of(t);
    const auto *src = static_cast<const uint8_t *>(f.src_->data());
    const size_t src_len = f.src_->data_len();
    uint8_t *out = softcomch::core::tail_of(*f.dst_);
    const size_t room = softcomch::core::tail_room(*f.dst_);
    size_t produced = 0;
    softcomch::compress::lz4_status st;
    if (t.kind_ == softcomch::core::task_kind::decompress_lz4_stream) {
        const auto &s = static_cast<const doca_compress_task_decompress_lz4_stream &>(t);
        st = softcomch::compress::lz4_decode_stream(
            src, src_len, s.has_block_checksum_, s.blocks_independent_, out, room, &produced, why);
    } else {
        st = softcomch::compress::lz4_decode_block(src, src_len, out, room, 0, &produced, why);
    }
    if (st == softcomch::compress::lz4_status::out_of_room) {
        *why = "the output does not fit in the room after the destination's data";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (st != softcomch::compress::lz4_status::ok)
        return DOCA_ERROR_INVALID_VALUE;
    (void)f.dst_->set_data_len(f.dst_->data_len() + produced);
    f.crc_ = uint32_t(crc32(crc32(0, nullptr, 0), out, uInt(produced)));
    // DOCA reports XXH32 byte-swapped against the frame's little-endian content checksum:
    // NVIDIA's LZ4 sample compares it with htobe32() of that field (docs/design.md).
    f.xxh_ = __builtin_bswap32(softcomch::compress::xxh32(out, produced, 0));
    return DOCA_SUCCESS;
}
