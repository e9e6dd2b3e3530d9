// SPDX-License-Identifier: Apache-2.0
//
// Private to libdoca_argp: the parser's singleton state, its param and command objects, and the
// pieces shared by argp.cpp (C API), parse*.cpp (doca_argp_start, argp/parser.hpp) and usage.cpp.
//
// Ownership: every param and command created while the parser is initialised lives in the
// state's pools until doca_argp_destroy() (or an explicit *_destroy of an unregistered one).
// Registration only links pointers, so "the parser owns it in all flows" holds trivially and a
// stale pointer is detected by address lookup in the pool, without touching freed memory.
#pragma once

#include <doca_argp.h>

#include <cstdarg>
#include <memory>
#include <string>
#include <vector>

#include "common/object_tag.hpp"

struct doca_argp_param {
    softcomch::object_tag tag_{softcomch::object_kind::argp_param};
    std::string short_name_;
    std::string long_name_;
    std::string arguments_;
    std::string description_;
    doca_argp_param_cb_t callback_ = nullptr;
    doca_argp_type type_ = DOCA_ARGP_TYPE_UNKNOWN;
    bool mandatory_ = false;
    bool cli_only_ = false;
    bool multiplicity_ = false;
    bool singular_ = false;
    bool inherited_ = false;
    bool hidden_ = false;
    bool registered_ = false;
};

// object_kind has no argp_cmd value yet; commands use their own tag value.
inline constexpr auto argp_cmd_kind = static_cast<softcomch::object_kind>(0x53434143); // "SCAC"

struct doca_argp_cmd {
    softcomch::object_tag tag_{argp_cmd_kind};
    std::string name_;
    std::string description_;
    doca_argp_cmd_cb_t callback_ = nullptr;
    bool hidden_ = false;
    bool registered_ = false;
    doca_argp_cmd *parent_ = nullptr;
    std::vector<doca_argp_param *> params_;
    std::vector<doca_argp_cmd *> cmds_;
};

namespace softcomch::argp {

// The root of the command tree is a command without name: the program itself.
struct state {
    std::string program_name_; // empty: taken from argv[0] by start()
    void *config_ = nullptr;
    doca_argp_cmd root_;
    std::vector<std::unique_ptr<doca_argp_param>> param_pool_;
    std::vector<std::unique_ptr<doca_argp_cmd>> cmd_pool_;
    doca_argp_param_cb_t version_cb_ = nullptr;
    doca_argp_validation_cb_t validation_cb_ = nullptr;
    doca_argp_logger_cb_t logger_cb_ = nullptr;
    doca_argp_dpdk_cb_t dpdk_cb_ = nullptr;
    bool started_ = false;
    // Kept until destroy: the DPDK callback may keep pointers into its argv.
    std::vector<std::string> dpdk_args_;
    std::vector<char *> dpdk_argv_;
    // The selected command chain (root first) while usage is printed from start().
    std::vector<const doca_argp_cmd *> usage_chain_;
};

// nullptr while not initialised.
state *current() noexcept;
// Frees the state (destroy, and before exit() in --help/--version).
void reset() noexcept;
// Creates the state; false if it already exists.
bool create(const char *program_name, void *config);

bool owns(const state &s, const doca_argp_param *p) noexcept;
bool owns(const state &s, const doca_argp_cmd *c) noexcept;

// Levels given on the command line or in JSON (-1: none); survive destroy, as DOCA's getters
// report what the user asked for.
extern int g_user_log_level;
extern int g_user_sdk_log_level;

// The parser's own messages: to the registered logger callback, or SDK log lines.
void message(uint32_t level, const char *file, int line, const char *fmt, ...) noexcept
    __attribute__((format(printf, 4, 5)));

// Prints the usage text of the command chain `chain` (root first; empty = root) to stdout.
void print_usage(const state &s, const std::vector<const doca_argp_cmd *> &chain);

// Finds the params a command line at `chain` may use: the last command's own params plus the
// inherited params of its ancestors (the program's params count as the root's).
std::vector<const doca_argp_param *> scope_params(const std::vector<const doca_argp_cmd *> &chain);

// Checks a param/command about to be registered under `parent`; on failure returns the code and
// has logged why.
doca_error_t check_param(const doca_argp_cmd &parent, const doca_argp_param &p, const char *fn);
doca_error_t check_cmd(const doca_argp_cmd &parent, const doca_argp_cmd &c, const char *fn);

// A name usable on the command line: non-empty, no leading '-', no whitespace or '='.
bool valid_name(const char *name) noexcept;

// True for a DOCA general flag name (h, help, v, version, l, log-level, sdk-log-level, j, json).
bool reserved_short(const std::string &name) noexcept;
bool reserved_long(const std::string &name) noexcept;

} // namespace softcomch::argp

#define SC_ARGP_MSG(level, ...)                                                                    \
    ::softcomch::argp::message((level), __FILE_NAME__, __LINE__, __VA_ARGS__)
