// SPDX-License-Identifier: Apache-2.0
//
// Bad input to every public function of doca_dma.h, through the public headers only: NULL for
// each pointer argument, objects of the wrong kind (a zeroed block, a Comch context), calls in
// the wrong state and values over the device's caps return the code the header documents, never
// crash, and leave an SDK log line naming the function.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_pe.h>
#include <gtest/gtest.h>

#include "dma_fixture.hpp"
#include "sdk_log_capture.hpp"

inline void PrintTo(doca_error e, std::ostream *os)
{
    *os << doca_error_get_name(e) << " (" << int(e) << ")";
}

namespace {

using namespace dma_test;

const int env_reset = [] {
    unsetenv("SOFTCOMCH_SIDE");
    unsetenv("SOFTCOMCH_TOPOLOGY");
    unsetenv("SOFTCOMCH_LOG_LEVEL");
    return 0;
}();

void noop_cb(doca_dma_task_memcpy *, union doca_data, union doca_data) {}

class DmaBadInput : public ::testing::Test {
protected:
    void SetUp() override { sdk_log::mark(); }
};

TEST_F(DmaBadInput, CreateDestroyAndCasts)
{
    doca_dma *dma = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_create, nullptr, &dma);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_create, junk<doca_dev>(), &dma);
    context c("b1:00.0", 0);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_create, c.dev, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_destroy, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_destroy, junk<doca_dma>());
    EXPECT_LOGGED(doca_dma_as_ctx, EXPECT_EQ(doca_dma_as_ctx(nullptr), nullptr));
    EXPECT_LOGGED(doca_dma_as_ctx, EXPECT_EQ(doca_dma_as_ctx(junk<doca_dma>()), nullptr));
    EXPECT_LOGGED(doca_dma_task_memcpy_as_task,
                  EXPECT_EQ(doca_dma_task_memcpy_as_task(nullptr), nullptr));
    EXPECT_LOGGED(doca_dma_task_memcpy_as_task,
                  EXPECT_EQ(doca_dma_task_memcpy_as_task(junk<doca_dma_task_memcpy>()), nullptr));
    // A Comch server passed as a DMA context is refused, not misused.
    doca_dev *dpu = sc_devices::open_dev("03:00.0");
    doca_dev_rep *rep = sc_devices::open_rep(dpu, "b1:00.0");
    doca_comch_server *srv = nullptr;
    ASSERT_EQ(doca_comch_server_create(dpu, rep, "bad-input-dma", &srv), DOCA_SUCCESS);
    auto *not_dma = reinterpret_cast<doca_dma *>(doca_comch_server_as_ctx(srv));
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_destroy, not_dma);
    EXPECT_LOGGED(doca_dma_as_ctx, EXPECT_EQ(doca_dma_as_ctx(not_dma), nullptr));
    EXPECT_EQ(doca_comch_server_destroy(srv), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_rep_close(rep), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dpu), DOCA_SUCCESS);
}

TEST_F(DmaBadInput, Capabilities)
{
    context c("03:00.0", 0);
    const doca_devinfo *info = doca_dev_as_devinfo(c.dev);
    uint64_t size = 0;
    uint32_t n = 0;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_is_supported, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_is_supported,
                   junk<doca_devinfo>());
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_get_max_buf_size, nullptr,
                   &size);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_get_max_buf_size, info,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_get_max_buf_list_len, nullptr,
                   &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_task_memcpy_get_max_buf_list_len, info,
                   nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_get_max_num_tasks, nullptr, &n);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_get_max_num_tasks, c.dma, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_cap_get_max_num_tasks, junk<doca_dma>(), &n);
    doca_gpu_dma *gpu = nullptr;
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_get_gpu_handle, nullptr, &gpu);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_get_gpu_handle, c.dma, nullptr);
    EXPECT_REFUSED(DOCA_ERROR_NOT_SUPPORTED, doca_dma_get_gpu_handle, c.dma, &gpu);
}

TEST_F(DmaBadInput, TaskConfiguration)
{
    context c("03:00.0", 0);
    uint32_t max = 0;
    ASSERT_EQ(doca_dma_cap_get_max_num_tasks(c.dma, &max), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_set_conf, nullptr, noop_cb,
                   noop_cb, 4);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_set_conf, c.dma, nullptr, noop_cb,
                   4);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_set_conf, c.dma, noop_cb, nullptr,
                   4);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_set_conf, c.dma, noop_cb, noop_cb,
                   0);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_set_conf, c.dma, noop_cb, noop_cb,
                   max + 1);
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(c.dma, noop_cb, noop_cb, max), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_dma_task_memcpy_set_conf, c.dma, noop_cb, noop_cb, 4);
}

TEST_F(DmaBadInput, TaskAllocationAndAccessors)
{
    context c("03:00.0", 1);
    region r(c.dev, 8192);
    doca_buf *src = r.source(0, 64, 1), *dst = r.buf(4096, 64, 0);
    doca_dma_task_memcpy *t = nullptr;
    const union doca_data ud = {};
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_dma_task_memcpy_alloc_init, c.dma, src, dst, ud, &t);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_alloc_init, nullptr, src, dst, ud,
                   &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_alloc_init, c.dma, nullptr, dst,
                   ud, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_alloc_init, c.dma, src, nullptr,
                   ud, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_alloc_init, c.dma,
                   junk<doca_buf>(), dst, ud, &t);
    EXPECT_REFUSED(DOCA_ERROR_INVALID_VALUE, doca_dma_task_memcpy_alloc_init, c.dma, src, dst, ud,
                   nullptr);
    ASSERT_EQ(doca_dma_task_memcpy_alloc_init(c.dma, src, dst, ud, &t), DOCA_SUCCESS);
    doca_dma_task_memcpy *second = nullptr;
    EXPECT_EQ(doca_dma_task_memcpy_alloc_init(c.dma, src, dst, ud, &second), DOCA_ERROR_NO_MEMORY)
        << "one task configured";
    // Accessors: NULL and foreign tasks.
    EXPECT_EQ(doca_dma_task_memcpy_get_src(nullptr), nullptr);
    EXPECT_EQ(doca_dma_task_memcpy_get_dst(nullptr), nullptr);
    EXPECT_EQ(doca_dma_task_memcpy_get_src(junk<doca_dma_task_memcpy>()), nullptr);
    EXPECT_LOGGED(doca_dma_task_memcpy_set_src, doca_dma_task_memcpy_set_src(nullptr, src));
    EXPECT_LOGGED(doca_dma_task_memcpy_set_dst, doca_dma_task_memcpy_set_dst(nullptr, dst));
    EXPECT_LOGGED(doca_dma_task_memcpy_set_src, doca_dma_task_memcpy_set_src(t, nullptr));
    EXPECT_LOGGED(doca_dma_task_memcpy_set_dst, doca_dma_task_memcpy_set_dst(t, nullptr));
    EXPECT_EQ(doca_dma_task_memcpy_get_src(t), src) << "a refused set_src changed the task";
    EXPECT_EQ(doca_dma_task_memcpy_get_dst(t), dst);
    // In flight: the buffers cannot change.
    ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_SUCCESS);
    doca_buf *other = r.buf(8000, 64, 0);
    EXPECT_LOGGED(doca_dma_task_memcpy_set_dst, doca_dma_task_memcpy_set_dst(t, other));
    EXPECT_EQ(doca_dma_task_memcpy_get_dst(t), dst);
    EXPECT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(t)), DOCA_ERROR_INVALID_VALUE)
        << "already submitted";
    ASSERT_TRUE(c.progress_until([&] { return c.done.size() == 1; }));
    doca_buf_dec_refcount(other, nullptr);
}

TEST_F(DmaBadInput, TryingToSubmitWhenNotRunning)
{
    context c("03:00.0", 2);
    region r(c.dev, 8192);
    ASSERT_EQ(doca_ctx_start(c.ctx), DOCA_SUCCESS);
    c.free_in_callback = false;
    doca_buf *src = r.source(0, 64, 1), *dst = r.buf(4096, 64, 0);
    doca_dma_task_memcpy *t = c.task(src, dst);
    ASSERT_EQ(doca_ctx_stop(c.ctx), DOCA_SUCCESS);
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_task_submit, doca_dma_task_memcpy_as_task(t));
    EXPECT_REFUSED(DOCA_ERROR_BAD_STATE, doca_task_try_submit, doca_dma_task_memcpy_as_task(t));
    doca_task_free(doca_dma_task_memcpy_as_task(t));
    doca_buf_dec_refcount(src, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
}

} // namespace
