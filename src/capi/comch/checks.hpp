// SPDX-License-Identifier: Apache-2.0
//
// Checks shared by the C API files of libdoca_comch (comch.cpp, consumer.cpp, producer.cpp,
// msgq.cpp). capi-internal.
#pragma once

#include <doca_comch.h>

#include "capi/handle.hpp"
#include "comch/comch_ctx.hpp"
#include "comch/connection.hpp"
#include "common/guard.hpp"
#include "core/device.hpp"

namespace softcomch::capi {

template <typename Fn>
inline doca_error_t cap_u32(const char *func, const doca_devinfo *devinfo, uint32_t *out, Fn &&get)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        SC_CHECK_NOT_NULL(out);
        *out = get(devinfo->comch());
        return DOCA_SUCCESS;
    });
}

inline doca_error_t fastpath_supported(const char *func, const doca_devinfo *devinfo)
{
    return guard(func, [&]() -> doca_error_t {
        SC_REQUIRE(devinfo);
        // Producers and consumers run on both sides, on any device that can hold a connection.
        return devinfo->server_capable() || devinfo->client_capable() ? DOCA_SUCCESS
                                                                      : DOCA_ERROR_NOT_SUPPORTED;
    });
}

// DPA and MsgQ: NULL arguments are refused as everywhere (INVALID_VALUE); otherwise the answer is
// that the emulated device has no DPA.
inline doca_error_t no_dpa(const char *func, const void *obj = reinterpret_cast<const void *>(1),
                           const void *arg = reinterpret_cast<const void *>(1))
{
    if (!obj || !arg) {
        SC_LOG_ERR("%s: NULL argument", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    SC_LOG_ERR("%s: the emulated device has no DPA; DPA data paths are not supported", func);
    return DOCA_ERROR_NOT_SUPPORTED;
}

// The GPU data path (DOCA 3.2): the same for the emulated device, which has no GPU.
inline doca_error_t no_gpu(const char *func, const void *obj, const void *arg)
{
    if (!obj || !arg) {
        SC_LOG_ERR("%s: NULL argument", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    SC_LOG_ERR("%s: the emulation has no GPU; the GPU data path is not supported", func);
    return DOCA_ERROR_NOT_SUPPORTED;
}

} // namespace softcomch::capi
