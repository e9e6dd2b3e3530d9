// SPDX-License-Identifier: Apache-2.0
//
// The usage text (-h/--help, doca_argp_usage, and after a command-line error). The DOCA Flags
// block is DOCA's own wording and layout (names padded to 34 columns after a 2-space indent),
// because users and scripts compare it; program flags and commands use the same columns.
#include <cstdio>
#include <string>

#include "argp/argp_state.hpp"

namespace softcomch::argp {
namespace {

constexpr size_t name_column = 34;

void append_entry(std::string &out, const std::string &names, const std::string &description)
{
    out += "  ";
    out += names;
    if (names.size() < name_column)
        out.append(name_column - names.size(), ' ');
    else
        out += ' ';
    // Continuation lines of a multi-line description line up under its first line.
    for (char c : description) {
        out += c;
        if (c == '\n')
            out.append(2 + name_column, ' ');
    }
    out += '\n';
}

std::string param_names(const doca_argp_param &p)
{
    std::string names;
    if (!p.short_name_.empty())
        names = "-" + p.short_name_;
    if (!p.long_name_.empty()) {
        if (!names.empty())
            names += ", ";
        names += "--" + p.long_name_;
    }
    if (!p.arguments_.empty())
        names += " " + p.arguments_;
    return names;
}

} // namespace

std::vector<const doca_argp_param *> scope_params(const std::vector<const doca_argp_cmd *> &chain)
{
    std::vector<const doca_argp_param *> out;
    if (chain.empty())
        return out;
    const doca_argp_cmd *leaf = chain.back();
    out.insert(out.end(), leaf->params_.begin(), leaf->params_.end());
    for (size_t i = chain.size() - 1; i-- > 0;)
        for (const doca_argp_param *p : chain[i]->params_)
            if (p->inherited_)
                out.push_back(p);
    return out;
}

void print_usage(const state &s, const std::vector<const doca_argp_cmd *> &given_chain)
{
    std::vector<const doca_argp_cmd *> chain = given_chain;
    if (chain.empty())
        chain.push_back(&s.root_);
    const doca_argp_cmd *leaf = chain.back();

    std::string out = "Usage: ";
    out += s.program_name_.empty() ? std::string("<program>") : s.program_name_;
    for (size_t i = 1; i < chain.size(); ++i)
        out += " " + chain[i]->name_;
    if (s.dpdk_cb_ != nullptr)
        out += " [DPDK Flags] --";
    out += " [DOCA Flags] [Program Flags]";
    bool has_cmds = false;
    for (const doca_argp_cmd *c : leaf->cmds_)
        has_cmds = has_cmds || !c->hidden_;
    if (has_cmds)
        out += " <command>";
    out += "\n\n";

    out += "DOCA Flags:\n";
    append_entry(out, "-h, --help", "Print a help synopsis");
    append_entry(out, "-v, --version", "Print program version information");
    append_entry(out, "-l, --log-level",
                 "Set the (numeric) log level for the program <10=DISABLE, 20=CRITICAL, 30=ERROR, "
                 "40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>");
    append_entry(out, "--sdk-log-level",
                 "Set the SDK (numeric) log level for the program <10=DISABLE, 20=CRITICAL, "
                 "30=ERROR, 40=WARNING, 50=INFO, 60=DEBUG, 70=TRACE>");
    append_entry(out, "-j, --json <path>", "Parse all command flags from an input json file");

    std::string flags;
    for (const doca_argp_param *p : scope_params(chain))
        if (!p->hidden_)
            append_entry(flags, param_names(*p), p->description_);
    if (!flags.empty())
        out += "\nProgram Flags:\n" + flags;

    if (has_cmds) {
        out += "\nCommands:\n";
        for (const doca_argp_cmd *c : leaf->cmds_)
            if (!c->hidden_)
                append_entry(out, c->name_, c->description_);
    }

    fflush(stdout);
    fputs(out.c_str(), stdout);
    fflush(stdout);
}

} // namespace softcomch::argp
