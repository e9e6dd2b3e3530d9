// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_ctx.h: argument checks and delegation only.
#include <doca_ctx.h>

#include "capi/handle.hpp"
#include "common/guard.hpp"
#include "core/ctx.hpp"

using namespace softcomch::capi;

namespace {

// doca_ctx_set_datapath_on_gpu/dpa: `ctx` usable and IDLE, the device not NULL, then
// NOT_SUPPORTED saying `why`: the offload is not emulated.
doca_error_t offload_not_emulated(const char *func, doca_ctx *ctx, const void *dev,
                                  const char *dev_name, const char *why)
{
    return delegate(func, SC_ARG(ctx), [&](doca_ctx &c) -> doca_error_t {
        if (dev == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: %s is NULL", func, dev_name);
        if (doca_error_t rc = c.require_idle(func); rc != DOCA_SUCCESS)
            return rc;
        SC_REFUSE(DOCA_ERROR_NOT_SUPPORTED, "%s: %s", func, why);
    });
}

} // namespace

extern "C" {

doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
    return delegate(__func__, SC_ARG(ctx), [](auto &o) { return o.start(); });
}

doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
    return delegate(__func__, SC_ARG(ctx), [](auto &o) { return o.stop(); });
}

doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
    return get_into(__func__, SC_ARG(ctx), SC_ARG(num_inflight_tasks),
                    [](auto &o) { return o.inflight(); });
}

doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev)
{
    return offload_not_emulated(__func__, ctx, SC_ARG(gpu_dev),
                                "no GPU is emulated; the data path runs on the CPU");
}

doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
    return delegate(__func__, SC_ARG(ctx), [&](auto &o) { return o.set_user_data(user_data); });
}

doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
    return get_into(__func__, SC_ARG(ctx), SC_ARG(user_data),
                    [](auto &o) { return o.user_data(); });
}

doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx,
                                           doca_ctx_state_changed_callback_t cb)
{
    return delegate(__func__, SC_ARG(ctx), [&](auto &o) { return o.set_state_changed_cb(cb); });
}

doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
    return get_into(__func__, SC_ARG(ctx), SC_ARG(state), [](auto &o) { return o.state(); });
}

void doca_ctx_flush_tasks(struct doca_ctx *ctx)
{
    (void)usable(ctx, "ctx", __func__);
}

doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev)
{
    return offload_not_emulated(__func__, ctx, SC_ARG(dpa_dev), "the emulated device has no DPA");
}

doca_error_t doca_ctx_set_completion_vector(struct doca_ctx *ctx, uint32_t comp_vector)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(ctx);
        if (doca_error_t rc = ctx->require_idle(api_function()); rc != DOCA_SUCCESS)
            return rc;
        if (comp_vector != 0)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                      "%s: completion vector %u does not exist (the emulated device has 1)",
                      api_function(), comp_vector);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_ctx_cap_get_num_completion_vectors(const struct doca_devinfo *devinfo,
                                                     uint32_t *num_comp_vectors)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_CHECK_NOT_NULL(devinfo);
        SC_CHECK_NOT_NULL(num_comp_vectors);
        *num_comp_vectors = 1;
        return DOCA_SUCCESS;
    });
}

} // extern "C"
