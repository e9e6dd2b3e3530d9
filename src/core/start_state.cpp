// SPDX-License-Identifier: Apache-2.0
#include "core/start_state.hpp"

#include "common/log.hpp"

namespace softcomch::core {

doca_error_t start_state::require_stopped(const char *func, const char *what) const noexcept
{
    if (!started_)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the %s is already started", func, what);
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t start_state::require_started(const char *func, const char *what,
                                          const char *hint) const noexcept
{
    if (started_)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the %s is not started%s", func, what, hint);
    return DOCA_ERROR_BAD_STATE;
}

} // namespace softcomch::core
