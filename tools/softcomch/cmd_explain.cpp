// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain [CODE] [--call FUNCTION]: what a doca_error_t means for a Comch program,
// which layer it comes from, its usual causes and what to do; narrowed to one call with --call
// (explain/explain.hpp has the tables). Names and descriptions of the codes come from the
// public API (doca_error_get_name, doca_error_get_descr), so they are what a program prints.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "common/json.hpp"
#include "explain/explain.hpp"
#include "options.hpp"
#include "text.hpp"

namespace softcomch::tools {

namespace {

namespace json = softcomch::json;
using namespace explain;

constexpr std::array explain_options{
    option_spec{"call", 0, "FUNCTION",
                "what the code means when FUNCTION returns it (doca_comch_server_create, "
                "doca_ctx_start, doca_task_submit, doca_mmap_create_from_export, "
                "doca_sha_create, ...); without CODE, every code FUNCTION returns"},
    option_spec{"json", 0, "", "print the explanation as one JSON object"},
};

constexpr command_usage explain_usage{
    "explain",
    "[CODE] [--call FUNCTION] [--json]",
    "Explains a DOCA error code as a Comch program (and the DMA, sync-event, graph, Compress "
    "and SHA calls it pairs with) meets it: what it means, which layer it comes "
    "from (lifecycle, argument, permission, capability, resource, transient, connection, "
    "environment, internal), the usual causes and what to do. CODE is a doca_error_t name "
    "(DOCA_ERROR_AGAIN, or just AGAIN) or its value (5). With --call, the causes are those of "
    "that function, from DOCA's documentation and SoftComch's own code (each says which). With "
    "no CODE and no --call, every code is listed.",
    explain_options,
    "Examples:\n"
    "  softcomch explain DOCA_ERROR_BAD_STATE\n"
    "  softcomch explain AGAIN --call doca_task_submit\n"
    "  softcomch explain --call doca_comch_server_create\n"
    "  softcomch explain NOT_PERMITTED --call doca_mmap_create_from_export\n"
    "\n"
    "Exit status:\n"
    "  0  explained\n"
    "  1  unknown code or function\n"
    "  2  bad command line\n",
};

std::string name_of(doca_error_t code)
{
    return doca_error_get_name(code);
}

std::optional<doca_error_t> parse_code(const std::string &text)
{
    if (!text.empty() && std::all_of(text.begin(), text.end(),
                                     [](unsigned char c) { return std::isdigit(c) != 0; })) {
        const long v = std::strtol(text.c_str(), nullptr, 10);
        for (const auto &e : codes())
            if (long(e.code) == v)
                return e.code;
        return std::nullopt;
    }
    std::string upper(text);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return char(std::toupper(c)); });
    for (const auto &e : codes()) {
        const std::string name = name_of(e.code);
        if (name == upper || name == "DOCA_" + upper || name == "DOCA_ERROR_" + upper)
            return e.code;
    }
    return std::nullopt;
}

// The calls whose rows name `code`.
std::vector<std::string> returned_by(doca_error_t code)
{
    std::vector<std::string> out;
    for (const auto &c : calls())
        for (const auto &r : c.rows)
            if (r.code == code) {
                out.push_back(c.name);
                break;
            }
    return out;
}

std::vector<const call_row *> rows_for(const call_entry &c, doca_error_t code)
{
    std::vector<const call_row *> out;
    for (const auto &r : c.rows)
        if (r.code == code)
            out.push_back(&r);
    return out;
}

std::vector<std::string> codes_of(const call_entry &c)
{
    std::vector<std::string> out;
    for (const auto &r : c.rows)
        if (std::find(out.begin(), out.end(), name_of(r.code)) == out.end())
            out.push_back(name_of(r.code));
    return out;
}

std::string joined(const std::vector<std::string> &list)
{
    std::string out;
    for (const auto &s : list)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

json::value strings(const std::vector<std::string> &list)
{
    json::value a = json::value::array();
    for (const auto &s : list)
        a.push_back(s);
    return a;
}

json::value row_json(const call_row &r)
{
    return json::value::object()
        .set("code", name_of(r.code))
        .set("cause", r.cause)
        .set("action", r.action)
        .set("source", origin_name(r.origin));
}

json::value code_json(const code_entry &e)
{
    return json::value::object()
        .set("code", name_of(e.code))
        .set("value", int(e.code))
        .set("description", doca_error_get_descr(e.code))
        .set("layer", layer_name(e.layer))
        .set("meaning", e.meaning)
        .set("causes", strings(e.causes))
        .set("actions", strings(e.actions))
        .set("returned_by", strings(returned_by(e.code)));
}

json::value call_json(const call_entry &c, const code_entry *code)
{
    json::value rows = json::value::array();
    for (const auto &r : c.rows)
        if (code == nullptr || r.code == code->code)
            rows.push_back(row_json(r));
    json::value j = json::value::object();
    j.set("name", c.name).set("returns", c.returns).set("summary", c.summary);
    if (code != nullptr)
        j.set("returns_this_code", !rows_for(c, code->code).empty());
    j.set("codes", strings(codes_of(c))).set("rows", std::move(rows));
    return j;
}

void print_list(const std::vector<std::string> &items)
{
    for (const auto &i : items) {
        std::printf("  - ");
        print_wrapped(i, 4, 4);
    }
}

void print_code(const code_entry &e, bool with_callers)
{
    std::printf("%s (%d): %s\n", name_of(e.code).c_str(), int(e.code),
                doca_error_get_descr(e.code));
    std::printf("layer       %s\nmeaning     ", layer_name(e.layer));
    print_wrapped(e.meaning, 12, 12);
    if (!e.causes.empty()) {
        std::printf("usual causes\n");
        print_list(e.causes);
    }
    if (!e.actions.empty()) {
        std::printf("what to do\n");
        print_list(e.actions);
    }
    if (!with_callers)
        return;
    const auto by = returned_by(e.code);
    std::printf("returned by ");
    print_wrapped(by.empty() ? "no Comch call" : joined(by), 12, 12);
}

void print_row(const call_row &r)
{
    std::printf("  %s (%s)\n    cause  ", name_of(r.code).c_str(), origin_name(r.origin));
    print_wrapped(r.cause, 11, 11);
    if (!r.action.empty()) {
        std::printf("    do     ");
        print_wrapped(r.action, 11, 11);
    }
}

void print_call(const call_entry &c)
{
    std::printf("%s: %s\n", c.name.c_str(), c.summary.c_str());
    if (c.rows.empty()) {
        std::printf("It returns %s, not a doca_error_t: a failure shows as its null value and an "
                    "SDK error line naming the function.\n",
                    c.returns.c_str());
        return;
    }
    for (const auto &r : c.rows)
        print_row(r);
}

void print_all_codes()
{
    for (const auto &e : codes())
        std::printf("%2d  %-34s %-15s %s\n", int(e.code), name_of(e.code).c_str(),
                    layer_name(e.layer), doca_error_get_descr(e.code));
}

int unknown(const std::string &what, const std::string &text,
            const std::vector<std::string> &candidates, const std::string &known)
{
    std::string hint;
    for (const auto &n : nearest(text, candidates, 4, 3))
        hint += (hint.empty() ? "; did you mean " : ", ") + n;
    std::fprintf(stderr, "softcomch explain: unknown %s '%s'%s%s (%s)\n", what.c_str(),
                 text.c_str(), hint.c_str(), hint.empty() ? "" : "?", known.c_str());
    return exit_failure;
}

} // namespace

int cmd_explain(arg_list args)
{
    parsed_options opts;
    if (auto status = parse_or_exit(args, explain_usage, opts))
        return *status;
    if (opts.positional().size() > 1)
        return usage_error(explain_usage, "takes at most one CODE");
    const bool as_json = opts.has("json");

    const code_entry *code = nullptr;
    if (!opts.positional().empty()) {
        const std::string &text = opts.positional().front();
        const auto parsed = parse_code(text);
        if (!parsed) {
            std::vector<std::string> names;
            for (const auto &e : codes())
                names.push_back(name_of(e.code));
            return unknown("error code", text, names,
                           "a DOCA_ERROR_* name, or a value from 0 to " +
                               std::to_string(int(codes().back().code)) +
                               "; softcomch explain lists them");
        }
        code = find_code(*parsed);
    }
    const call_entry *call = nullptr;
    if (auto fn = opts.get("call")) {
        call = find_call(*fn);
        if (call == nullptr) {
            std::vector<std::string> names;
            for (const auto &c : calls())
                names.push_back(c.name);
            return unknown("function", *fn, names,
                           "the functions of doca_comch.h, doca_comch_consumer.h, "
                           "doca_comch_producer.h, doca_comch_msgq.h, the DOCA Core calls "
                           "Comch programs use, and the main calls of doca_dma.h, doca_mmap.h "
                           "(export and import), doca_sync_event.h, doca_graph.h, "
                           "doca_compress.h and doca_sha.h");
        }
    }

    if (as_json) {
        json::value doc = json::value::object();
        if (code != nullptr)
            doc = code_json(*code);
        if (call != nullptr)
            doc.set("call", call_json(*call, code));
        if (code == nullptr && call == nullptr) {
            json::value all = json::value::array();
            for (const auto &e : codes())
                all.push_back(code_json(e));
            doc.set("codes", std::move(all));
        }
        std::printf("%s\n", json::dump(doc, 2).c_str());
        return exit_ok;
    }

    if (code == nullptr && call == nullptr) {
        print_all_codes();
        return exit_ok;
    }
    if (code == nullptr) {
        print_call(*call);
        return exit_ok;
    }
    if (call != nullptr) {
        const auto rows = rows_for(*call, code->code);
        if (call->rows.empty()) {
            print_call(*call);
        } else if (rows.empty()) {
            std::printf("%s does not return %s (neither in DOCA's documentation nor in "
                        "SoftComch). It returns: %s.\n",
                        call->name.c_str(), name_of(code->code).c_str(),
                        joined(codes_of(*call)).c_str());
        } else {
            std::printf("%s from %s (%s)\n", name_of(code->code).c_str(), call->name.c_str(),
                        call->summary.c_str());
            for (const call_row *r : rows)
                print_row(*r);
        }
        std::printf("\nIn general:\n");
    }
    print_code(*code, call == nullptr);
    return exit_ok;
}

} // namespace softcomch::tools
