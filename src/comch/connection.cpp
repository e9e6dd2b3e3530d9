// SPDX-License-Identifier: Apache-2.0
#include "comch/connection.hpp"

doca_comch_connection::doca_comch_connection(softcomch::comch::comch_ctx *owner,
                                             std::unique_ptr<softcomch::transport::link> l)
    : owner_(owner), link_(std::move(l))
{}

doca_comch_connection::~doca_comch_connection() = default;
