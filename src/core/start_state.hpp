// SPDX-License-Identifier: Apache-2.0
//
// Started or not, for the objects a program starts and stops itself outside any progress engine
// (doca_mmap, doca_buf_inventory), and whether it ever was (some of their properties can be set
// only before the first start). The checks log why they refuse, naming the API function and the
// object: "doca_mmap_stop: the mmap is not started".
#pragma once

#include <doca_error.h>

namespace softcomch::core {

class start_state {
public:
    bool started() const noexcept { return started_; }
    bool ever_started() const noexcept { return ever_started_; }

    // DOCA_ERROR_BAD_STATE (logged: "<func>: the <what> is already started") while started.
    doca_error_t require_stopped(const char *func, const char *what) const noexcept;
    // DOCA_ERROR_BAD_STATE (logged: "<func>: the <what> is not started<hint>") while stopped.
    doca_error_t require_started(const char *func, const char *what,
                                 const char *hint = "") const noexcept;

    void start() noexcept { started_ = ever_started_ = true; }
    void stop() noexcept { started_ = false; }

private:
    bool started_ = false;
    bool ever_started_ = false;
};

} // namespace softcomch::core
