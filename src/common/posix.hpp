// SPDX-License-Identifier: Apache-2.0
//
// Small POSIX helpers shared by the layers and the tools.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/visibility.hpp"

namespace softcomch {

// Writes all of `data` to `fd`, retrying short writes and EINTR. Returns false on any other
// error (the caller decides whether that is worth saying; log sinks have nowhere to say it).
SOFTCOMCH_API bool write_all(int fd, std::string_view data) noexcept;

// Whether a process with this pid exists (it may belong to another user: EPERM means it does).
// pid <= 0 never names one.
SOFTCOMCH_API bool process_exists(int pid) noexcept;

} // namespace softcomch
