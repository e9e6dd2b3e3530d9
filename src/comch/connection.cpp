// SPDX-License-Identifier: Apache-2.0
#include "comch/connection.hpp"

#include <sys/epoll.h>

doca_comch_connection::doca_comch_connection(softcomch::comch::comch_ctx *owner,
                                             std::unique_ptr<softcomch::transport::link> l)
    : owner_(owner), link_(std::move(l))
{
    socket_watcher_.conn = this;
    event_watcher_.conn = this;
}

doca_comch_connection::~doca_comch_connection() = default;

void doca_comch_connection::socket_watcher::on_ready(uint32_t events)
{
    conn->socket_ready_ = true;
    if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
        conn->peer_gone_ = true;
}

void doca_comch_connection::event_watcher::on_ready(uint32_t)
{
    if (conn->link_)
        conn->link_->drain_event();
}
