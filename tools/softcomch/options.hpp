// SPDX-License-Identifier: Apache-2.0
//
// A small option parser shared by the subcommands: long options (--name VALUE, --name=VALUE),
// optional one-letter aliases (-n VALUE), flags without a value, and an implicit -h/--help.
// It also formats the usage text, so every command's --help looks the same.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"

namespace softcomch::tools {

struct option_spec {
    std::string_view long_name;  // without the leading "--"
    char short_name = 0;         // 0: none
    std::string_view value_name; // empty: a flag that takes no value
    std::string_view help;
};

struct command_usage {
    std::string_view name;        // "run"
    std::string_view synopsis;    // "--dpu CMD --host CMD [options]"
    std::string_view description; // paragraph(s) under the synopsis
    std::span<const option_spec> options;
    std::string_view epilog; // examples, exit statuses (may be empty)
};

class parsed_options {
public:
    bool has(std::string_view long_name) const
    {
        return values_.count(std::string(long_name)) != 0;
    }
    std::optional<std::string> get(std::string_view long_name) const;
    const std::vector<std::string> &positional() const { return positional_; }

    void set(std::string_view long_name, std::string value)
    {
        values_[std::string(long_name)] = std::move(value);
    }
    void add_positional(std::string value) { positional_.push_back(std::move(value)); }

private:
    std::map<std::string, std::string, std::less<>> values_;
    std::vector<std::string> positional_;
};

enum class parse_status { ok, help, error };

// Parses `args` against `usage.options`. On parse_status::error, `error` says why. "--" ends
// the options; everything after it is positional.
parse_status parse_options(arg_list args, const command_usage &usage, parsed_options &out,
                           std::string &error);

void print_usage(const command_usage &usage, bool to_stderr);

// The common front matter of a command: parse, print --help (returns exit_ok) or report a
// usage error (returns exit_usage). Returns std::nullopt when the command should go on.
std::optional<int> parse_or_exit(arg_list args, const command_usage &usage, parsed_options &out);

// Prints "softcomch <cmd>: <message>", the synopsis and a --help hint to stderr; returns
// exit_usage.
int usage_error(const command_usage &usage, std::string_view message);

// A positive, finite number of seconds ("10", "0.5").
std::optional<double> parse_seconds(std::string_view text);
// A non-negative integer within [min, max].
std::optional<long long> parse_integer(std::string_view text, long long min, long long max);

} // namespace softcomch::tools
