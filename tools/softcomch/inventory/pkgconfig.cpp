// SPDX-License-Identifier: Apache-2.0
#include "pkgconfig.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "../system.hpp"

namespace softcomch::tools::inventory {

namespace {

#if defined(__x86_64__)
constexpr const char *multiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr const char *multiarch = "aarch64-linux-gnu";
#else
constexpr const char *multiarch = "";
#endif

std::optional<std::string> pc_query(const std::string &args)
{
    if (!have_pkg_config())
        return std::nullopt;
    auto [status, out] = capture("pkg-config " + args + " 2>/dev/null");
    if (status != 0)
        return std::nullopt;
    return out;
}

// Module names reach a shell command line: anything but [A-Za-z0-9._+-] is refused.
bool plain_name(const std::string &module)
{
    return !module.empty() && std::all_of(module.begin(), module.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
               c == '-';
    });
}

bool exists(const std::string &path)
{
    return ::access(path.c_str(), F_OK) == 0;
}

} // namespace

bool have_pkg_config()
{
    return on_path("pkg-config");
}

std::vector<std::string> pc_search_path()
{
    std::vector<std::string> dirs;
    if (const char *p = std::getenv("PKG_CONFIG_PATH"); p != nullptr)
        dirs = split_path_list(p);
    std::vector<std::string> rest;
    if (const char *l = std::getenv("PKG_CONFIG_LIBDIR"); l != nullptr)
        rest = split_path_list(l);
    else if (auto def = pc_query("--variable pc_path pkg-config"))
        rest = split_path_list(*def);
    dirs.insert(dirs.end(), rest.begin(), rest.end());
    return dirs;
}

std::optional<std::string> pc_variable(const std::string &module, const std::string &variable)
{
    if (!plain_name(module) || !plain_name(variable))
        return std::nullopt;
    return pc_query("--variable=" + variable + " " + module);
}

std::optional<std::string> pc_modversion(const std::string &module)
{
    if (!plain_name(module))
        return std::nullopt;
    return pc_query("--modversion " + module);
}

std::optional<std::string> pc_libs(const std::string &module)
{
    if (!plain_name(module))
        return std::nullopt;
    return pc_query("--libs " + module);
}

std::optional<std::string> pc_file(const std::string &module)
{
    auto dir = pc_variable(module, "pcfiledir");
    if (!dir)
        return std::nullopt;
    return *dir + "/" + module + ".pc";
}

std::vector<std::string> pc_files_on_search_path(const std::string &module)
{
    std::vector<std::string> files, seen;
    for (const auto &dir : pc_search_path()) {
        const std::string file = dir + "/" + module + ".pc";
        if (!exists(file))
            continue;
        const std::string real = real_path(file);
        if (std::find(seen.begin(), seen.end(), real) != seen.end())
            continue;
        seen.push_back(real);
        files.push_back(file);
    }
    return files;
}

std::string soname_of(const std::string &file_name)
{
    const size_t so = file_name.find(".so.");
    if (so == std::string::npos)
        return {};
    size_t end = so + 4;
    while (end < file_name.size() && std::isdigit(static_cast<unsigned char>(file_name[end])))
        ++end;
    return end == so + 4 ? std::string() : file_name.substr(0, end);
}

loader_answer loader_resolves(const std::string &soname)
{
    if (const char *ld = std::getenv("LD_LIBRARY_PATH"); ld != nullptr)
        for (const auto &dir : split_path_list(ld))
            if (exists(dir + "/" + soname))
                return {dir + "/" + soname, "LD_LIBRARY_PATH"};
    for (const char *ldconfig : {"ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"}) {
        auto [status, out] = capture(std::string(ldconfig) + " -p 2>/dev/null");
        if (status != 0)
            continue;
        // "\tlibdoca_comch.so.3 (libc6,x86-64) => /opt/x/lib/x86_64-linux-gnu/libdoca_comch.so.3"
        std::istringstream lines(out);
        std::string line;
        while (std::getline(lines, line)) {
            const size_t start = line.find_first_not_of(" \t");
            if (start == std::string::npos || line.compare(start, soname.size(), soname) != 0 ||
                line.compare(start + soname.size(), 2, " (") != 0)
                continue;
            const size_t arrow = line.find("=> ");
            if (arrow != std::string::npos)
                return {line.substr(arrow + 3), "ld.so.cache"};
        }
        break;
    }
    std::vector<std::string> defaults;
    if (*multiarch != '\0') {
        defaults.push_back(std::string("/lib/") + multiarch);
        defaults.push_back(std::string("/usr/lib/") + multiarch);
    }
    for (const char *d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
        defaults.emplace_back(d);
    for (const auto &dir : defaults)
        if (exists(dir + "/" + soname))
            return {dir + "/" + soname, "default path"};
    return {};
}

} // namespace softcomch::tools::inventory
