// SPDX-License-Identifier: Apache-2.0
#include "system.hpp"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

namespace softcomch::tools {

namespace {

std::string trim(std::string s)
{
    const auto blank = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    };
    while (!s.empty() && blank(s.back()))
        s.pop_back();
    size_t i = 0;
    while (i < s.size() && blank(s[i]))
        ++i;
    return s.substr(i);
}

// A count from a sysfs file of the kernel's huge page pools; 0 when there is no such pool.
long long pool_free(const char *size_dir)
{
    const auto line =
        read_first_line(std::string("/sys/kernel/mm/hugepages/") + size_dir + "/free_hugepages");
    return line ? std::atoll(line->c_str()) : 0;
}

} // namespace

std::string real_path(const std::string &p)
{
    std::error_code ec;
    auto r = std::filesystem::canonical(p, ec);
    return ec ? p : r.string();
}

bool on_path(const std::string &name)
{
    const char *path = std::getenv("PATH");
    if (path == nullptr)
        return false;
    std::string_view rest(path);
    while (true) {
        const size_t colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        // Built by appends, not `dir + "/" + name`: g++ 12 warns falsely on that when optimizing
        // (-Wrestrict, GCC bug 105651).
        std::string candidate(dir.empty() ? std::string_view(".") : dir);
        candidate.append("/").append(name);
        if (::access(candidate.c_str(), X_OK) == 0)
            return true;
        if (colon == std::string_view::npos)
            return false;
        rest.remove_prefix(colon + 1);
    }
}

std::pair<int, std::string> capture(const std::string &command)
{
    std::string out;
    FILE *p = ::popen(command.c_str(), "r");
    if (p == nullptr)
        return {-1, out};
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    const int status = ::pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::optional<std::string> read_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    if (in.bad())
        return std::nullopt;
    return s.str();
}

std::optional<std::string> read_first_line(const std::string &path)
{
    auto text = read_file(path);
    if (!text)
        return std::nullopt;
    std::string line = trim(text->substr(0, text->find('\n')));
    if (line.empty())
        return std::nullopt;
    return line;
}

std::vector<std::string> split_path_list(const std::string &list)
{
    std::vector<std::string> out;
    std::string_view rest(list);
    while (!rest.empty()) {
        const size_t colon = rest.find(':');
        if (colon != 0)
            out.emplace_back(rest.substr(0, colon));
        if (colon == std::string_view::npos)
            break;
        rest.remove_prefix(colon + 1);
    }
    return out;
}

std::string kernel_release()
{
    struct utsname u;
    if (::uname(&u) != 0)
        return "unknown";
    return u.release;
}

std::vector<std::string> loaded_modules(const std::string &prefix)
{
    std::vector<std::string> out;
    const auto text = read_file("/proc/modules");
    if (!text)
        return out;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        std::string name = line.substr(0, line.find(' '));
        if (name.starts_with(prefix))
            out.push_back(std::move(name));
    }
    std::sort(out.begin(), out.end());
    return out;
}

hugepage_info hugepages()
{
    hugepage_info h;
    h.available_2m = pool_free("hugepages-2048kB");
    h.available_1g = pool_free("hugepages-1048576kB");
    if (const auto mounts = read_file("/proc/mounts")) {
        std::istringstream lines(*mounts);
        std::string device, dir, type;
        std::string rest;
        while (lines >> device >> dir >> type) {
            std::getline(lines, rest);
            if (type == "hugetlbfs") {
                h.mount_point = dir;
                break;
            }
        }
    }
    return h;
}

std::string iso8601_now()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    ::gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

} // namespace softcomch::tools
