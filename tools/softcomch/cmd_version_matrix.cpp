// SPDX-License-Identifier: Apache-2.0
//
// softcomch version-matrix [SYMBOL]: which DOCA releases have a Comch (or DMA, Compress, SHA)
// symbol or capability (version_matrix/matrix.hpp has the rows). --json prints the version-matrix.json document of
// DOCA's structured-tools contract, the same one installed as <prefix>/share/version-matrix.json.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "command.hpp"
#include "common/json.hpp"
#include "options.hpp"
#include "text.hpp"
#include "version_matrix/matrix.hpp"

namespace softcomch::tools {

namespace {

using version_matrix::entry;

constexpr std::array matrix_options{
    option_spec{"json", 0, "", "print the rows as the version-matrix.json document"},
    option_spec{"release", 0, "VERSION",
                "only the rows available in DOCA VERSION (2.6, 2.7.0, 3.0.0058: major.minor "
                "decide)"},
};

constexpr command_usage matrix_usage{
    "version-matrix",
    "[--json] [--release VERSION] [SYMBOL]",
    "Shows in which DOCA releases each Comch symbol and capability exists, across the API "
    "generations: the legacy endpoint API (doca_comm_channel_*), DOCA Comm Channel – New of 2.5 "
    "and 2.6 (doca_cc_*), and DOCA Comch from 2.7 (doca_comch_*), with the renames in between; "
    "likewise for the libraries SoftComch implements beside Comch (DMA, Compress, SHA, and mmap "
    "export, sync events and graphs of DOCA Core), from the jobs of 2.2 to the tasks of 2.5 on. "
    "Each row has its first and last release, the source it comes from and the evidence; rows "
    "whose sources disagree say so. SYMBOL is a function, header, pkg-config module, library, "
    "error code or capability (as `softcomch caps --json` names them, e.g. consumer_max_buf_size); "
    "an exact name shows its row, anything else the rows whose name contains it.",
    matrix_options,
    "The same document is installed as <prefix>/share/version-matrix.json.\n"
    "\n"
    "Exit status:\n"
    "  0  printed\n"
    "  1  no row matches SYMBOL\n"
    "  2  bad command line\n",
};

std::vector<const entry *> select(const std::vector<entry> &rows, const std::string &symbol)
{
    std::vector<const entry *> out;
    for (const auto &e : rows)
        if (e.capability == symbol)
            out.push_back(&e);
    if (!out.empty())
        return out;
    const std::string key = to_lower(symbol);
    for (const auto &e : rows)
        if (to_lower(e.capability) == key)
            out.push_back(&e);
    if (!out.empty())
        return out;
    for (const auto &e : rows)
        if (to_lower(e.capability).find(key) != std::string::npos)
            out.push_back(&e);
    return out;
}

std::string span_text(const entry &e)
{
    if (!e.max_doca_version)
        return e.min_doca_version + " and later";
    if (*e.max_doca_version == e.min_doca_version)
        return e.min_doca_version + " only";
    return e.min_doca_version + " to " + *e.max_doca_version;
}

void print_table(const std::vector<const entry *> &rows)
{
    size_t cap_width = 10, lib_width = 7;
    for (const entry *e : rows) {
        cap_width = std::max(cap_width, e->capability.size());
        lib_width = std::max(lib_width, e->library.size());
    }
    std::printf("%-*s  %-*s  %-7s  %s\n", int(cap_width), "CAPABILITY", int(lib_width), "LIBRARY",
                "FIRST", "LAST");
    for (const entry *e : rows)
        std::printf("%-*s  %-*s  %-7s  %s\n", int(cap_width), e->capability.c_str(), int(lib_width),
                    e->library.c_str(), e->min_doca_version.c_str(),
                    e->max_doca_version ? e->max_doca_version->c_str() : "-");
    std::printf("%zu rows\n", rows.size());
}

void print_details(const std::vector<const entry *> &rows)
{
    bool first = true;
    for (const entry *e : rows) {
        if (!first)
            std::printf("\n");
        first = false;
        std::printf("%s\n", e->display_name.c_str());
        std::printf("  capability  %s\n  library     %s\n  available   %s\n  source      %s\n",
                    e->capability.c_str(), e->library.c_str(), span_text(*e).c_str(),
                    e->source_url.c_str());
        std::printf("  evidence    ");
        print_wrapped(e->source_quote, 14, 14);
    }
}

} // namespace

int cmd_version_matrix(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, matrix_usage, opts))
        return *status;
    if (opts.positional().size() > 1)
        return usage_error(matrix_usage, "takes at most one SYMBOL");
    const auto release = opts.get("release");
    if (release && (release->empty() || !std::isdigit(static_cast<unsigned char>((*release)[0])) ||
                    release->find('.') == std::string::npos))
        return usage_error(matrix_usage, "--release " + *release + ": not a DOCA version (X.Y)");

    const std::vector<entry> &all = version_matrix::entries();
    std::vector<const entry *> rows;
    const bool by_symbol = !opts.positional().empty();
    if (by_symbol) {
        const std::string &symbol = opts.positional().front();
        rows = select(all, symbol);
        if (rows.empty()) {
            std::vector<std::string> names;
            for (const auto &e : all)
                names.push_back(e.capability);
            std::string hint;
            for (const auto &n : nearest(symbol, names, 4, 3))
                hint += (hint.empty() ? "; did you mean " : ", ") + n;
            std::fprintf(stderr, "softcomch version-matrix: no row for '%s'%s%s\n", symbol.c_str(),
                         hint.c_str(), hint.empty() ? "" : "?");
            return exit_failure;
        }
    } else {
        for (const auto &e : all)
            rows.push_back(&e);
    }
    if (release)
        rows.erase(std::remove_if(
                       rows.begin(), rows.end(),
                       [&](const entry *e) { return !version_matrix::available_in(*e, *release); }),
                   rows.end());

    if (opts.has("json")) {
        std::vector<entry> copy;
        for (const entry *e : rows)
            copy.push_back(*e);
        std::printf("%s\n", softcomch::json::dump(version_matrix::document(copy), 2).c_str());
    } else if (by_symbol) {
        if (rows.empty())
            std::printf("none of the matching rows is available in DOCA %s\n", release->c_str());
        print_details(rows);
    } else {
        print_table(rows);
    }
    return exit_ok;
}

} // namespace softcomch::tools
