// SPDX-License-Identifier: Apache-2.0
#include "comch/fastpath.hpp"

#include <unistd.h>

namespace softcomch::comch {

void remote_consumer::wake() const noexcept
{
    uint64_t one = 1;
    // EAGAIN: the counter is saturated, the consumer is due to wake anyway.
    [[maybe_unused]] ssize_t r = ::write(event.get(), &one, sizeof one);
}

} // namespace softcomch::comch
