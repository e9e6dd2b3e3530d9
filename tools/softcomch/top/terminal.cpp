// SPDX-License-Identifier: Apache-2.0
#include "terminal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>

#include "common/posix.hpp"

namespace softcomch::tools::top {

namespace {

// Alternate screen, cursor hidden, no line wrap (every line is cut to the width), home, clear.
constexpr const char *k_enter = "\x1b[?1049h\x1b[?25l\x1b[?7l\x1b[H\x1b[2J";
// Wrap on, cursor shown, back to the normal screen (with what was on it).
constexpr const char *k_leave = "\x1b[0m\x1b[?7h\x1b[?25h\x1b[?1049l";

constexpr int k_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH};
struct sigaction saved_actions[std::size(k_signals)];
int signal_pipe[2] = {-1, -1};

void on_signal(int sig)
{
    const int saved = errno;
    const unsigned char b = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(signal_pipe[1], &b, 1); // full: one is enough
    errno = saved;
}

void catch_signal(int sig, struct sigaction *old)
{
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, old);
}

} // namespace

bool terminal::raw() noexcept
{
    termios t = saved_;
    t.c_lflag &= tcflag_t(~(ICANON | ECHO)); // signals (ISIG) stay: Ctrl-C, Ctrl-Z
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    return ::tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

bool terminal::enter()
{
    if (active_ || !::isatty(STDIN_FILENO) || !::isatty(STDOUT_FILENO))
        return false;
    if (::tcgetattr(STDIN_FILENO, &saved_) != 0)
        return false;
    if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    for (size_t i = 0; i < std::size(k_signals); ++i)
        catch_signal(k_signals[i], &saved_actions[i]);
    active_ = true; // from here leave() undoes what was done
    if (!raw()) {
        leave();
        return false;
    }
    draw(k_enter);
    read_size();
    return true;
}

void terminal::leave() noexcept
{
    if (!active_)
        return;
    active_ = false;
    draw(k_leave);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    for (size_t i = 0; i < std::size(k_signals); ++i)
        ::sigaction(k_signals[i], &saved_actions[i], nullptr);
    for (int &fd : signal_pipe) {
        ::close(fd);
        fd = -1;
    }
}

void terminal::read_size() noexcept
{
    winsize ws{};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
        rows_ = ws.ws_row;
        cols_ = ws.ws_col;
    }
}

void terminal::draw(const std::string &frame) noexcept
{
    (void)write_all(STDOUT_FILENO, frame);
}

void terminal::suspend() noexcept
{
    // As a shell expects of a stopped job: its own terminal modes and screen back.
    draw(k_leave);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGTSTP, &dfl, nullptr);
    ::raise(SIGTSTP); // stops here until SIGCONT
    catch_signal(SIGTSTP, nullptr);
    (void)raw();
    draw(k_enter);
    read_size();
}

terminal::event terminal::wait(int timeout_ms)
{
    event ev;
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {signal_pipe[0], POLLIN, 0}};
    const int n = ::poll(fds, 2, timeout_ms);
    if (n < 0) {
        // A signal interrupted the wait: its byte is in the pipe, read on the next call.
        ev.what = event::resize;
        return ev;
    }
    if (n == 0)
        return ev;
    if (fds[1].revents & POLLIN) {
        unsigned char sigs[16];
        const ssize_t got = ::read(signal_pipe[0], sigs, sizeof sigs);
        ev.what = event::resize;
        for (ssize_t i = 0; i < got; ++i) {
            const int sig = sigs[i];
            if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
                ev.what = event::quit_signal;
                ev.signal = sig;
                return ev;
            }
            if (sig == SIGTSTP)
                suspend();
            else if (sig == SIGCONT) // stopped and continued from outside (SIGSTOP)
                (void)raw();
            read_size();
        }
        return ev;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        unsigned char c = 0;
        const ssize_t got = ::read(STDIN_FILENO, &c, 1);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
            ev.what = event::quit_signal; // the terminal went away
            ev.signal = SIGHUP;
            return ev;
        }
        if (got == 1) {
            ev.what = event::key;
            ev.byte = c;
        }
    }
    return ev;
}

} // namespace softcomch::tools::top
