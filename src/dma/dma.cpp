// SPDX-License-Identifier: Apache-2.0
#include "dma/dma.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/buf.hpp"
#include "core/device.hpp"
#include "core/mmap.hpp"

using softcomch::core::tail_of;
using softcomch::core::tail_room;

doca_error_t doca_dma::create(doca_dev *dev, doca_dma **out)
{
    // Every function of the emulated machine supports memcpy (docs/topology.md, "dma_caps").
    *out = new doca_dma(dev);
    return DOCA_SUCCESS;
}

doca_dma::doca_dma(doca_dev *dev) noexcept : engine_ctx("dma"), dev_(dev)
{
    dev_->hold(); // doca_dev_close leaves the device to us until we go
}

doca_dma::~doca_dma()
{
    dev_->release();
}

uint32_t doca_dma::max_num_tasks() const noexcept
{
    return uint32_t(std::min<uint64_t>(dev_->info()->dma().max_num_tasks, UINT32_MAX));
}

doca_error_t doca_dma::task_memcpy_set_conf(doca_dma_task_memcpy_completion_cb_t ok,
                                            doca_dma_task_memcpy_completion_cb_t err, uint32_t num,
                                            const char *func)
{
    return memcpy_tasks_.set_conf<&doca_dma::memcpy_tasks_>(
        this, func, ok, err, "number of memcpy tasks", num, max_num_tasks(),
        "doca_dma_cap_get_max_num_tasks");
}

doca_error_t doca_dma::task_memcpy_alloc_init(const doca_buf *src, doca_buf *dst,
                                              union doca_data user_data,
                                              doca_dma_task_memcpy **task)
{
    const char *func = "doca_dma_task_memcpy_alloc_init";
    if (doca_error_t rc = require_running(func); rc != DOCA_SUCCESS)
        return rc;
    doca_dma_task_memcpy *t = nullptr;
    if (doca_error_t rc = memcpy_tasks_.take(func, "doca_dma_task_memcpy_set_conf", &t);
        rc != DOCA_SUCCESS)
        return rc;
    t->src_ = src;
    t->dst_ = dst;
    t->user_data_ = user_data;
    *task = t;
    return DOCA_SUCCESS;
}

doca_error_t doca_dma::check(const doca_dma_task_memcpy &task, const char **why, char *buf,
                             size_t buf_len) const noexcept
{
    const softcomch::core::dma_caps &caps = dev_->info()->dma();
    // One list: every element a live buffer of a started map this device may use, with the
    // access the copy needs; at most the device's list length.
    auto list_ok = [&](const doca_buf *head, const char *which, bool write,
                       size_t &bytes) -> doca_error_t {
        if (head == nullptr || !head->tag_.is(softcomch::object_kind::buf) || !head->in_use()) {
            std::snprintf(buf, buf_len, "the %s buffer is NULL or was released", which);
            *why = buf;
            return DOCA_ERROR_INVALID_VALUE;
        }
        uint64_t n = 0;
        bytes = 0;
        const doca_mmap *previous = nullptr;
        for (const doca_buf *b = head; b != nullptr; b = b->next()) {
            ++n;
            const doca_mmap *m = b->mmap();
            if (m == nullptr || !m->started() || !m->has_device(dev_)) {
                std::snprintf(buf, buf_len,
                              "the %s buffer's mmap does not have this context's device "
                              "(doca_mmap_add_dev before doca_mmap_start)",
                              which);
                *why = buf;
                return DOCA_ERROR_NOT_PERMITTED;
            }
            // Another process's memory: its exporter still runs and the export lives (the slices
            // then check only the revocation, without a system call). Once per mmap of a run.
            if (m->from_export() && m != previous) {
                if (doca_error_t rc = m->remote()->alive(why); rc != DOCA_SUCCESS)
                    return rc;
            }
            previous = m;
            // Local memory is written through the local permission, another process's through
            // the one its export granted.
            const uint32_t write_flag = m->from_export()
                                            ? uint32_t(DOCA_ACCESS_FLAG_PCI_READ_WRITE)
                                            : uint32_t(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
            if (write && (m->permissions() & write_flag) == 0) {
                *why =
                    m->from_export()
                        ? "the destination is another process's memory exported read-only "
                          "(DOCA_ACCESS_FLAG_PCI_READ_ONLY)"
                        : "the destination buffer's mmap is read-only (doca_mmap_set_permissions "
                          "with DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)";
                return DOCA_ERROR_NOT_PERMITTED;
            }
            bytes += write ? tail_room(*b) : b->data_len();
        }
        if (n > caps.max_buf_list_len) {
            std::snprintf(buf, buf_len,
                          "the %s list has %llu elements; the device takes at most %llu "
                          "(doca_dma_cap_task_memcpy_get_max_buf_list_len)",
                          which, (unsigned long long)n, (unsigned long long)caps.max_buf_list_len);
            *why = buf;
            return DOCA_ERROR_INVALID_VALUE;
        }
        return DOCA_SUCCESS;
    };
    size_t src_bytes = 0, dst_space = 0;
    if (doca_error_t rc = list_ok(task.src_, "source", false, src_bytes); rc != DOCA_SUCCESS)
        return rc;
    if (doca_error_t rc = list_ok(task.dst_, "destination", true, dst_space); rc != DOCA_SUCCESS)
        return rc;
    if (src_bytes == 0) {
        *why = "the source buffer has no data (its data length is 0)";
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (src_bytes > caps.max_buf_size) {
        std::snprintf(buf, buf_len,
                      "%zu bytes to copy; the device copies at most %llu per task "
                      "(doca_dma_cap_task_memcpy_get_max_buf_size)",
                      src_bytes, (unsigned long long)caps.max_buf_size);
        *why = buf;
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (dst_space < src_bytes) {
        std::snprintf(buf, buf_len,
                      "%zu bytes to copy, %zu bytes of room after the destination's data",
                      src_bytes, dst_space);
        *why = buf;
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_dma::free_task(doca_task *t)
{
    memcpy_tasks_.release(static_cast<doca_dma_task_memcpy *>(t));
}

unsigned doca_dma::execute()
{
    auto *t = static_cast<doca_dma_task_memcpy *>(queue_.front());
    if (!cur_.started) {
        char buf[192];
        const char *why = nullptr;
        if (const doca_error_t rc = check(*t, &why, buf, sizeof buf); rc != DOCA_SUCCESS) {
            // The program learns it from the task's status; the line is for whoever reads logs.
            SC_LOG_INFO("DMA context %p: memcpy task failed (%s): %s; the context stops",
                        static_cast<void *>(this), softcomch::error_name(rc), why);
            finish_front(rc);
            return 1;
        }
        size_t total = 0;
        for (const doca_buf *b = t->src_; b != nullptr; b = b->next())
            total += b->data_len();
        cur_ = cursor{t->src_, 0, t->dst_, 0, total, true};
    }
    // One slice: from the source elements' data windows into the destination elements' room.
    size_t budget = std::min(cur_.left, k_slice_bytes);
    cur_.left -= budget;
    while (budget != 0) {
        if (cur_.src_off == cur_.src->data_len()) {
            cur_.src = cur_.src->next();
            cur_.src_off = 0;
            continue;
        }
        if (cur_.dst_off == tail_room(*cur_.dst)) {
            cur_.dst = cur_.dst->next();
            cur_.dst_off = 0;
            continue;
        }
        const size_t n = std::min(
            {budget, cur_.src->data_len() - cur_.src_off, tail_room(*cur_.dst) - cur_.dst_off});
        const char *why = nullptr;
        if (const doca_error_t rc =
                copy(static_cast<const uint8_t *>(cur_.src->data()) + cur_.src_off,
                     cur_.src->mmap()->remote(), tail_of(*cur_.dst) + cur_.dst_off,
                     cur_.dst->mmap()->remote(), n, &why);
            rc != DOCA_SUCCESS) {
            SC_LOG_INFO("DMA context %p: memcpy task failed (%s): %s; the context stops",
                        static_cast<void *>(this), softcomch::error_name(rc), why);
            finish_front(rc);
            return 1;
        }
        cur_.src_off += n;
        cur_.dst_off += n;
        budget -= n;
    }
    if (cur_.left == 0) {
        size_t copied = 0;
        for (const doca_buf *b = t->src_; b != nullptr; b = b->next())
            copied += b->data_len();
        commit_dst(t->dst_, copied);
        finish_front(DOCA_SUCCESS, copied);
    }
    return 1;
}

doca_error_t doca_dma::copy(const uint8_t *src, softcomch::core::remote_memory *src_remote,
                            uint8_t *dst, softcomch::core::remote_memory *dst_remote, size_t n,
                            const char **why) noexcept
{
    const auto addr = [](const void *p) {
        return uint64_t(reinterpret_cast<uintptr_t>(p));
    };
    if (!src_remote && !dst_remote) {
        // memmove: a careless program's overlapping buffers must not be undefined behaviour.
        std::memmove(dst, src, n);
        return DOCA_SUCCESS;
    }
    if (!src_remote)
        return dst_remote->write(addr(dst), src, n, why);
    if (!dst_remote)
        return src_remote->read(addr(src), dst, n, why);
    // Both another process's: through a buffer of ours, allocated once.
    if (bounce_.empty())
        bounce_.resize(k_bounce_bytes);
    for (size_t done = 0; done < n;) {
        const size_t chunk = std::min(n - done, bounce_.size());
        if (doca_error_t rc = src_remote->read(addr(src + done), bounce_.data(), chunk, why);
            rc != DOCA_SUCCESS)
            return rc;
        if (doca_error_t rc = dst_remote->write(addr(dst + done), bounce_.data(), chunk, why);
            rc != DOCA_SUCCESS)
            return rc;
        done += chunk;
    }
    return DOCA_SUCCESS;
}

void doca_dma::commit_dst(doca_buf *dst, size_t bytes) noexcept
{
    for (doca_buf *b = dst; b != nullptr && bytes != 0; b = b->next()) {
        const size_t n = std::min(bytes, tail_room(*b));
        (void)b->set_data_len(b->data_len() + n);
        bytes -= n;
    }
}
