// SPDX-License-Identifier: Apache-2.0
#include "paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

// Both are set by tools/CMakeLists.txt.
#ifndef SOFTCOMCH_LIBEXEC_FROM_BINDIR
#define SOFTCOMCH_LIBEXEC_FROM_BINDIR "../libexec/softcomch"
#endif
#ifndef SOFTCOMCH_BUILD_SAMPLES_DIR
#define SOFTCOMCH_BUILD_SAMPLES_DIR ""
#endif

namespace softcomch::tools {

std::string self_dir()
{
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        return {};
    return exe.parent_path().string();
}

std::vector<std::string> samples_search_path()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("SOFTCOMCH_SAMPLES_DIR"); env && *env)
        dirs.emplace_back(env);
    if (std::string self = self_dir(); !self.empty())
        dirs.push_back((std::filesystem::path(self) / SOFTCOMCH_LIBEXEC_FROM_BINDIR)
                           .lexically_normal()
                           .string());
    if (*SOFTCOMCH_BUILD_SAMPLES_DIR)
        dirs.emplace_back(SOFTCOMCH_BUILD_SAMPLES_DIR);
    return dirs;
}

std::string find_sample_dir(const std::string &program)
{
    for (const auto &dir : samples_search_path()) {
        std::string path = dir + "/" + program;
        if (::access(path.c_str(), X_OK) == 0)
            return dir;
    }
    return {};
}

} // namespace softcomch::tools
