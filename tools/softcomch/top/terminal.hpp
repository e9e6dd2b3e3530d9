// SPDX-License-Identifier: Apache-2.0
//
// softcomch top's terminal (terminal.cpp): plain termios and ANSI escapes, no curses. enter()
// turns echo and line buffering off and switches to the alternate screen with the cursor hidden;
// leave() (and the destructor) restores exactly what was there. SIGINT, SIGTERM, SIGHUP, SIGTSTP,
// SIGCONT and SIGWINCH are caught into a self-pipe, so the main loop learns of them in wait()
// and the terminal is restored on every way out, a suspension (Ctrl-Z) included.
#pragma once

#include <termios.h>

#include <cstddef>
#include <string>

namespace softcomch::tools::top {

class terminal {
public:
    terminal() = default;
    ~terminal() { leave(); }
    terminal(const terminal &) = delete;
    terminal &operator=(const terminal &) = delete;

    // False when stdin or stdout is not a terminal (nothing is changed then).
    bool enter();
    void leave() noexcept;

    // What wait() saw.
    struct event {
        enum kind { timeout, key, resize, quit_signal } what = timeout;
        int byte = 0;   // the byte read (kind key)
        int signal = 0; // kind quit_signal: SIGINT, SIGTERM or SIGHUP
    };
    // Waits up to `timeout_ms` for a key or a signal. A suspension (SIGTSTP) is handled inside:
    // the terminal is restored, the process stops, and on SIGCONT the screen is taken back
    // (reported as a resize, so that the caller redraws).
    event wait(int timeout_ms);

    size_t rows() const noexcept { return rows_; }
    size_t cols() const noexcept { return cols_; }
    // Writes a whole frame (the escapes included) to the terminal.
    void draw(const std::string &frame) noexcept;

private:
    void read_size() noexcept;
    void suspend() noexcept;
    bool raw() noexcept;

    bool active_ = false;
    termios saved_{};
    size_t rows_ = 24, cols_ = 80;
};

} // namespace softcomch::tools::top
