// SPDX-License-Identifier: Apache-2.0
//
// Private to libdoca_argp: the parser behind doca_argp_start (parse.cpp: the order of work, the
// checks and the callbacks; parse_cli.cpp: the command line; parse_json.cpp: the -j file;
// parse_values.cpp: a flag's value from text). One parser lives for one doca_argp_start call.
#pragma once

#include <doca_argp.h>

#include <string>
#include <string_view>
#include <vector>

#include "argp/argp_state.hpp"
#include "common/json.hpp"

namespace softcomch::argp {

// One value for one flag, already converted to the flag's type.
struct occurrence {
    const doca_argp_param *param = nullptr;
    std::string text; // STRING and JSON_OBJ values
    int i = 0;
    bool b = false;
    double d = 0;
};

// "--long" or "-s": how messages name a flag.
std::string display_name(const doca_argp_param &p);

// A flag's value from text, as the command line and the -j file give them: false when `text` is
// not one (a decimal int32; a finite double; true/1/yes, false/0/no in any case).
bool parse_int(std::string_view text, int *out) noexcept;
bool parse_double(std::string_view text, double *out) noexcept;
bool parse_bool(std::string_view text, bool *out) noexcept;

class parser {
public:
    explicit parser(state &s) : s_(s) { chain_.push_back(&s.root_); }

    doca_error_t run(int argc, char **argv);

private:
    // Prints the usage of the command chain so far and returns `rc`.
    doca_error_t usage_error(doca_error_t rc)
    {
        s_.usage_chain_ = chain_;
        print_usage(s_, chain_);
        return rc;
    }

    // The command line (parse_cli.cpp).
    doca_error_t tokenise(const std::vector<std::string> &args);
    doca_error_t general_flag(const std::string &name, const std::string *inline_value,
                              const std::vector<std::string> &args, size_t &i);
    doca_error_t take_value(const std::string &flag, const std::string *inline_value,
                            const std::vector<std::string> &args, size_t &i, std::string *value);
    doca_error_t convert_cli(const doca_argp_param &p, const std::string *value, occurrence *out);
    // One use of the program's flag `p` written `flag`: its value (glued or inline, else the next
    // argument; none for a boolean that has none inline), converted, appended to cli_.
    doca_error_t add_cli_occurrence(const doca_argp_param &p, const std::string &flag,
                                    const std::string *inline_value,
                                    const std::vector<std::string> &args, size_t &i);
    const doca_argp_param *find_long(const std::string &name) const;
    const doca_argp_param *find_short(const std::string &name) const;
    // The -j file (parse_json.cpp).
    doca_error_t load_json(const std::string &path);
    doca_error_t json_general(const json::value &section);
    doca_error_t json_program(const json::value &section);
    doca_error_t json_dpdk(const json::value &section);
    doca_error_t convert_json(const doca_argp_param &p, const json::value &v, occurrence *out);
    const doca_argp_param *find_json_key(const std::string &name) const;
    // The checks and the callbacks (parse.cpp).
    doca_error_t check_counts();
    doca_error_t call(const occurrence &o);
    [[noreturn]] void print_version_and_exit();

    state &s_;
    std::vector<const doca_argp_cmd *> chain_;
    std::vector<occurrence> cli_;
    std::vector<occurrence> json_;
    std::vector<std::string> dpdk_cli_;
    std::vector<std::string> dpdk_json_;
    std::string json_path_;
    bool json_given_ = false;
    int cli_log_ = -1;
    int cli_sdk_ = -1;
    int json_log_ = -1;
    int json_sdk_ = -1;
};

} // namespace softcomch::argp
