// SPDX-License-Identifier: Apache-2.0
//
// What the subcommands read of the machine outside SoftComch: files, the output of other
// programs, $PATH, the kernel. Shared by the doctor and the report commands (caps, env,
// collect-state). Nothing here changes anything.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace softcomch::tools {

// The canonical form of `p` (symlinks resolved), or `p` itself if it cannot be resolved.
std::string real_path(const std::string &p);

// Whether an executable named `name` is on $PATH.
bool on_path(const std::string &name);

// Runs a shell command line; its exit status (-1 if it could not run or was killed) and its
// stdout with the trailing newlines removed.
std::pair<int, std::string> capture(const std::string &command);

// A whole file; nullopt if it cannot be read.
std::optional<std::string> read_file(const std::string &path);
// The first line of a file without its newline and surrounding blanks; nullopt if the file cannot
// be read or that line is empty.
std::optional<std::string> read_first_line(const std::string &path);

// The entries of a colon-separated list (empty entries dropped).
std::vector<std::string> split_path_list(const std::string &list);

// `uname -r`.
std::string kernel_release();

// The loaded kernel modules whose names start with `prefix` (from /proc/modules), sorted.
std::vector<std::string> loaded_modules(const std::string &prefix);

// Free huge pages of 2 MiB and 1 GiB, and the first hugetlbfs mount point (nullopt: none).
struct hugepage_info {
    long long available_2m = 0;
    long long available_1g = 0;
    std::optional<std::string> mount_point;
};
hugepage_info hugepages();

// The current time in ISO-8601 form, UTC, to the second ("2025-12-01T14:03:59Z").
std::string iso8601_now();

} // namespace softcomch::tools
