// SPDX-License-Identifier: Apache-2.0
#include "common/process_info.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>

#include "common/unique_fd.hpp"

namespace softcomch {

namespace {

std::string proc_path(int pid, const char *file)
{
    return (pid == 0 ? std::string("/proc/self/") : "/proc/" + std::to_string(pid) + "/") + file;
}

// Up to `max` bytes of a /proc file; false when it cannot be opened.
bool read_small(const std::string &path, size_t max, std::string &out)
{
    unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
        return false;
    out.resize(max);
    size_t have = 0;
    while (have < max) {
        const ssize_t n = ::read(fd.get(), out.data() + have, max - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += size_t(n);
    }
    out.resize(have);
    return true;
}

} // namespace

bool parse_process_stat(const std::string &text, process_stat &out) noexcept
{
    const size_t close = text.rfind(')');
    if (close == std::string::npos || text.find('(') > close)
        return false;
    // After ") ": field 3 (state), then fields 4.. separated by single spaces.
    std::string_view rest = std::string_view(text).substr(close + 1);
    if (rest.size() < 3 || rest[0] != ' ')
        return false;
    process_stat s;
    s.state = rest[1];
    rest.remove_prefix(2);
    // Fields 4 .. 21 to skip, then 22.
    for (int field = 4; field <= 22; ++field) {
        if (rest.empty() || rest[0] != ' ')
            return false;
        rest.remove_prefix(1);
        const size_t end = rest.find(' ');
        const std::string_view value = rest.substr(0, end);
        if (field == 22) {
            uint64_t v = 0;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || ptr != value.data() + value.size() || value.empty())
                return false;
            s.start_time = v;
        }
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    out = s;
    return true;
}

bool read_process_stat(int pid, process_stat &out) noexcept
{
    if (pid < 0)
        return false;
    try {
        std::string text;
        return read_small(proc_path(pid, "stat"), 4096, text) && parse_process_stat(text, out);
    } catch (...) { // the path's or the text's allocation
        return false;
    }
}

std::string process_comm(int pid)
{
    std::string text;
    if (pid < 0 || !read_small(proc_path(pid, "comm"), 64, text))
        return {};
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0'))
        text.pop_back();
    return text;
}

std::string process_cmdline(int pid, size_t max)
{
    std::string text;
    if (pid < 0 || !read_small(proc_path(pid, "cmdline"), max + 1, text))
        return {};
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    for (char &c : text)
        if (c == '\0')
            c = ' ';
    if (text.size() > max)
        text.resize(max);
    return text;
}

} // namespace softcomch
