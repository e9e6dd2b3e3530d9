// SPDX-License-Identifier: Apache-2.0
//
// The shm transport as the registry (registry.hpp) sees it: its operations (shm.cpp) and the
// concrete classes whose data path Comch is instantiated for.
#pragma once

#include "transport/shm/fast_path.hpp"
#include "transport/shm/link.hpp"
#include "transport/transport.hpp"

namespace softcomch::transport::shm {

struct traits {
    static const transport_ops &ops() noexcept;
    using link = shm::link;
    using consumer_endpoint = shm::consumer_endpoint;
    using remote_consumer = shm::remote_consumer;
};

} // namespace softcomch::transport::shm
