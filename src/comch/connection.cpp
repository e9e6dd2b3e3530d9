// SPDX-License-Identifier: Apache-2.0
#include "comch/connection.hpp"

#include "comch/comch_ctx.hpp"
#include "common/log.hpp"

doca_comch_connection::doca_comch_connection(softcomch::comch::comch_ctx *owner,
                                             std::unique_ptr<softcomch::transport::link> l)
    : owner_(owner), link_(std::move(l))
{}

doca_comch_connection::~doca_comch_connection() = default;

doca_error_t doca_comch_connection::require_established(const char *func) const noexcept
{
    if (is_open() && owner_->state() == DOCA_CTX_STATE_RUNNING)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the connection is not established (or is closing)", func);
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_comch_connection::update_info(const char *func) noexcept
{
    if (state_ == state::closed) {
        SC_LOG_DBG("%s: the connection is closed", func);
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    snapshot_ = live_;
    return DOCA_SUCCESS;
}
