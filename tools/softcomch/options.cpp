// SPDX-License-Identifier: Apache-2.0
#include "options.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace softcomch::tools {

namespace {

constexpr option_spec help_option{"help", 'h', "", "show this help and exit"};

const option_spec *find_long(const command_usage &usage, std::string_view name)
{
    for (const auto &o : usage.options)
        if (o.long_name == name)
            return &o;
    return name == help_option.long_name ? &help_option : nullptr;
}

const option_spec *find_short(const command_usage &usage, char name)
{
    for (const auto &o : usage.options)
        if (o.short_name != 0 && o.short_name == name)
            return &o;
    return name == help_option.short_name ? &help_option : nullptr;
}

void print_wrapped(FILE *out, std::string_view text, size_t indent, size_t first_column)
{
    // Wraps at ~100 columns; `first_column` is where the first line starts.
    constexpr size_t width = 100;
    size_t column = first_column;
    bool first_word = true;
    while (!text.empty()) {
        if (text.front() == '\n') {
            std::fprintf(out, "\n%*s", int(indent), "");
            column = indent;
            first_word = true;
            text.remove_prefix(1);
            continue;
        }
        size_t end = text.find_first_of(" \n");
        std::string_view word = text.substr(0, end);
        if (!first_word && column + 1 + word.size() > width) {
            std::fprintf(out, "\n%*s", int(indent), "");
            column = indent;
            first_word = true;
        }
        if (!first_word) {
            std::fputc(' ', out);
            ++column;
        }
        std::fwrite(word.data(), 1, word.size(), out);
        column += word.size();
        first_word = false;
        text.remove_prefix(word.size());
        if (!text.empty() && text.front() == ' ')
            text.remove_prefix(1);
    }
    std::fputc('\n', out);
}

} // namespace

std::optional<std::string> parsed_options::get(std::string_view long_name) const
{
    auto it = values_.find(long_name);
    if (it == values_.end())
        return std::nullopt;
    return it->second;
}

parse_status parse_options(arg_list args, const command_usage &usage, parsed_options &out,
                           std::string &error)
{
    bool only_positional = false;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (only_positional || arg.size() < 2 || arg[0] != '-') {
            out.add_positional(std::string(arg));
            continue;
        }
        if (arg == "--") {
            only_positional = true;
            continue;
        }

        const option_spec *spec = nullptr;
        std::optional<std::string_view> inline_value;
        std::string shown; // the option as the user wrote it, for messages
        if (arg.starts_with("--")) {
            std::string_view name = arg.substr(2);
            if (size_t eq = name.find('='); eq != std::string_view::npos) {
                inline_value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            shown = "--" + std::string(name);
            spec = find_long(usage, name);
        } else {
            if (arg.size() > 2) {
                inline_value = arg.substr(2); // -n5
            }
            shown = std::string(arg.substr(0, 2));
            spec = find_short(usage, arg[1]);
        }
        if (spec == nullptr) {
            error = "unknown option '" + shown + "'";
            return parse_status::error;
        }
        if (spec == &help_option)
            return parse_status::help;

        if (spec->value_name.empty()) {
            if (inline_value) {
                error = "option '" + shown + "' takes no value";
                return parse_status::error;
            }
            out.set(spec->long_name, "1");
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= args.size()) {
                error =
                    "option '" + shown + "' needs a value (" + std::string(spec->value_name) + ")";
                return parse_status::error;
            }
            inline_value = std::string_view(args[++i]);
        }
        if (out.has(spec->long_name)) {
            error = "option '" + shown + "' given twice";
            return parse_status::error;
        }
        out.set(spec->long_name, std::string(*inline_value));
    }
    return parse_status::ok;
}

void print_usage(const command_usage &usage, bool to_stderr)
{
    FILE *out = to_stderr ? stderr : stdout;
    std::fprintf(out, "Usage: softcomch %.*s %.*s\n", int(usage.name.size()), usage.name.data(),
                 int(usage.synopsis.size()), usage.synopsis.data());
    if (!usage.description.empty()) {
        std::fputc('\n', out);
        print_wrapped(out, usage.description, 0, 0);
    }
    std::fprintf(out, "\nOptions:\n");
    auto print_option = [&](const option_spec &o) {
        std::string left = "  ";
        left += o.short_name ? std::string{'-', o.short_name} + ", " : std::string("    ");
        left += "--";
        left += o.long_name;
        if (!o.value_name.empty()) {
            left += ' ';
            left += o.value_name;
        }
        constexpr size_t help_column = 28;
        if (left.size() + 2 > help_column) {
            std::fprintf(out, "%s\n%*s", left.c_str(), int(help_column), "");
        } else {
            std::fprintf(out, "%-*s", int(help_column), left.c_str());
        }
        print_wrapped(out, o.help, help_column, help_column);
    };
    for (const auto &o : usage.options)
        print_option(o);
    print_option(help_option);
    if (!usage.epilog.empty()) {
        std::fputc('\n', out);
        std::fwrite(usage.epilog.data(), 1, usage.epilog.size(), out);
        if (usage.epilog.back() != '\n')
            std::fputc('\n', out);
    }
}

int usage_error(const command_usage &usage, std::string_view message)
{
    // The message, the synopsis and where to find more: the full help would bury the message.
    std::fprintf(stderr, "softcomch %.*s: %.*s\n", int(usage.name.size()), usage.name.data(),
                 int(message.size()), message.data());
    std::fprintf(stderr, "Usage: softcomch %.*s %.*s\nRun 'softcomch %.*s --help' for more.\n",
                 int(usage.name.size()), usage.name.data(), int(usage.synopsis.size()),
                 usage.synopsis.data(), int(usage.name.size()), usage.name.data());
    return exit_usage;
}

std::optional<int> parse_or_exit(arg_list args, const command_usage &usage, parsed_options &out)
{
    std::string error;
    switch (parse_options(args, usage, out, error)) {
    case parse_status::help:
        print_usage(usage, false);
        return exit_ok;
    case parse_status::error:
        return usage_error(usage, error);
    case parse_status::ok:
        break;
    }
    return std::nullopt;
}

std::optional<double> parse_seconds(std::string_view text)
{
    std::string s(text);
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || v <= 0)
        return std::nullopt;
    return v;
}

std::optional<long long> parse_integer(std::string_view text, long long min, long long max)
{
    long long v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || v < min || v > max)
        return std::nullopt;
    return v;
}

} // namespace softcomch::tools
