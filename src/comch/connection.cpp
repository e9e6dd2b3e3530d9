// SPDX-License-Identifier: Apache-2.0
#include "comch/connection.hpp"

#include "comch/comch_ctx.hpp"
#include "comch/connection_handle.hpp"
#include "comch/fault_hooks.hpp"
#include "common/log.hpp"

doca_comch_connection::doca_comch_connection(softcomch::comch::comch_ctx *owner,
                                             std::unique_ptr<softcomch::transport::link> l)
    : handle_(softcomch::comch::bind_handle(this)), owner_(owner), link_(std::move(l))
{}

doca_comch_connection::~doca_comch_connection()
{
    if (handle_)
        softcomch::comch::unbind_handle(handle_);
}

doca_error_t doca_comch_connection::require_established(const doca_comch_connection *conn,
                                                        const char *func) noexcept
{
    if (conn && conn->is_open() && conn->owner_->state() == DOCA_CTX_STATE_RUNNING)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the connection is not established (or is closing)", func);
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_comch_connection::update_info(doca_comch_connection *conn,
                                                const char *func) noexcept
{
    if (!conn || conn->state_ == state::closed) {
        SC_LOG_DBG("%s: the connection is closed", func);
        return DOCA_ERROR_CONNECTION_ABORTED;
    }
    conn->snapshot_ = conn->live_;
    return DOCA_SUCCESS;
}
