// SPDX-License-Identifier: Apache-2.0
//
// doca_argp_start, step 2 (parse.cpp): the command line. General flags (-h/-v act at once),
// program flags of the current command scope (--long, --long=value, -s value, -svalue, glued
// -l60 and -jfile), and command words.
#include <cstdlib>

#include "argp/parser.hpp"
#include "common/log.hpp"
#include "common/log_backend.hpp"

namespace softcomch::argp {

const doca_argp_param *parser::find_long(const std::string &name) const
{
    if (name.empty()) // params without long name have an empty one
        return nullptr;
    for (const doca_argp_param *p : scope_params(chain_))
        if (p->long_name_ == name)
            return p;
    return nullptr;
}

const doca_argp_param *parser::find_short(const std::string &name) const
{
    if (name.empty())
        return nullptr;
    for (const doca_argp_param *p : scope_params(chain_))
        if (p->short_name_ == name)
            return p;
    return nullptr;
}

doca_error_t parser::take_value(const std::string &flag, const std::string *inline_value,
                                const std::vector<std::string> &args, size_t &i, std::string *value)
{
    if (inline_value != nullptr) {
        *value = *inline_value;
        return DOCA_SUCCESS;
    }
    if (i + 1 >= args.size()) {
        SC_ARGP_MSG(log::error, "Flag %s requires a value", flag.c_str());
        return usage_error(DOCA_ERROR_INVALID_VALUE);
    }
    *value = args[++i];
    return DOCA_SUCCESS;
}

// `name` is "h", "help", ... without dashes. Returns DOCA_ERROR_NOT_FOUND if it is not one.
doca_error_t parser::general_flag(const std::string &name, const std::string *inline_value,
                                  const std::vector<std::string> &args, size_t &i)
{
    if (name == "h" || name == "help") {
        s_.usage_chain_ = chain_;
        print_usage(s_, chain_);
        reset(); // DOCA exits after --help; free the parser first (leak checkers)
        std::exit(EXIT_SUCCESS);
    }
    if (name == "v" || name == "version") {
        if (s_.version_cb_ != nullptr) {
            const doca_error_t rc = s_.version_cb_(nullptr, s_.config_);
            if (rc != DOCA_SUCCESS)
                return rc;
            reset();
            std::exit(EXIT_SUCCESS);
        }
        print_version_and_exit();
    }
    const bool sdk = name == "sdk-log-level";
    if (name == "l" || name == "log-level" || sdk) {
        const std::string flag = name.size() == 1 ? "-" + name : "--" + name;
        std::string value;
        if (doca_error_t rc = take_value(flag, inline_value, args, i, &value); rc != DOCA_SUCCESS)
            return rc;
        int level = 0;
        if (!parse_int(value, &level) || !log::valid_limit(uint32_t(level))) {
            SC_ARGP_MSG(log::error, "Flag %s: \"%s\" is not a log level (10..70)", flag.c_str(),
                        value.c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
        (sdk ? cli_sdk_ : cli_log_) = level;
        return DOCA_SUCCESS;
    }
    if (name == "j" || name == "json") {
        const std::string flag = name.size() == 1 ? "-j" : "--json";
        if (json_given_) {
            SC_ARGP_MSG(log::error, "Flag %s given more than once", flag.c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
        if (doca_error_t rc = take_value(flag, inline_value, args, i, &json_path_);
            rc != DOCA_SUCCESS)
            return rc;
        json_given_ = true;
        return DOCA_SUCCESS;
    }
    return DOCA_ERROR_NOT_FOUND;
}

doca_error_t parser::convert_cli(const doca_argp_param &p, const std::string *value,
                                 occurrence *out)
{
    const std::string name = display_name(p);
    out->param = &p;
    switch (p.type_) {
    case DOCA_ARGP_TYPE_STRING:
        out->text = *value;
        return DOCA_SUCCESS;
    case DOCA_ARGP_TYPE_INT:
    case DOCA_ARGP_TYPE_DOUBLE: {
        const bool integer = p.type_ == DOCA_ARGP_TYPE_INT;
        if (integer ? parse_int(*value, &out->i) : parse_double(*value, &out->d))
            return DOCA_SUCCESS;
        SC_ARGP_MSG(log::error, "Flag %s expects %s, got \"%s\"", name.c_str(),
                    integer ? "an integer" : "a number", value->c_str());
        break;
    }
    case DOCA_ARGP_TYPE_BOOLEAN:
        if (value == nullptr) {
            out->b = true;
            return DOCA_SUCCESS;
        }
        if (parse_bool(*value, &out->b))
            return DOCA_SUCCESS;
        SC_ARGP_MSG(log::error, "Flag %s is a switch; \"%s\" is not true or false", name.c_str(),
                    value->c_str());
        break;
    case DOCA_ARGP_TYPE_JSON_OBJ: {
        std::string err;
        (void)json::parse(*value, &err);
        if (err.empty()) {
            out->text = *value;
            return DOCA_SUCCESS;
        }
        SC_ARGP_MSG(log::error, "Flag %s expects JSON text: %s", name.c_str(), err.c_str());
        break;
    }
    case DOCA_ARGP_TYPE_UNKNOWN:
    default:
        SC_ARGP_MSG(log::error, "Flag %s has no usable type", name.c_str());
        break;
    }
    return usage_error(DOCA_ERROR_INVALID_VALUE);
}

doca_error_t parser::add_cli_occurrence(const doca_argp_param &p, const std::string &flag,
                                        const std::string *inline_value,
                                        const std::vector<std::string> &args, size_t &i)
{
    std::string value;
    if (p.type_ != DOCA_ARGP_TYPE_BOOLEAN) {
        if (doca_error_t rc = take_value(flag, inline_value, args, i, &value); rc != DOCA_SUCCESS)
            return rc;
        inline_value = &value;
    }
    occurrence o;
    if (doca_error_t rc = convert_cli(p, inline_value, &o); rc != DOCA_SUCCESS)
        return rc;
    cli_.push_back(std::move(o));
    return DOCA_SUCCESS;
}

doca_error_t parser::tokenise(const std::vector<std::string> &args)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &tok = args[i];
        if (tok.size() > 2 && tok.compare(0, 2, "--") == 0) {
            std::string name = tok.substr(2);
            std::string inline_storage;
            const std::string *inline_value = nullptr;
            if (const size_t eq = name.find('='); eq != std::string::npos) {
                inline_storage = name.substr(eq + 1);
                inline_value = &inline_storage;
                name.resize(eq);
            }
            if (name == "help" || name == "version" || name == "log-level" ||
                name == "sdk-log-level" || name == "json") {
                if (doca_error_t rc = general_flag(name, inline_value, args, i); rc != DOCA_SUCCESS)
                    return rc;
                continue;
            }
            const doca_argp_param *p = find_long(name);
            if (p == nullptr) {
                SC_ARGP_MSG(log::error, "Unknown flag --%s", name.c_str());
                return usage_error(DOCA_ERROR_NOT_SUPPORTED);
            }
            if (doca_error_t rc = add_cli_occurrence(*p, tok, inline_value, args, i);
                rc != DOCA_SUCCESS)
                return rc;
            continue;
        }
        if (tok.size() > 1 && tok[0] == '-' && tok != "--") {
            const std::string body = tok.substr(1);
            // Exact names first: -h, -v, -l, -j, then the program's short names (which may be
            // longer than one letter); then the glued forms -l60, -jfile, -xVALUE.
            if (body == "h" || body == "v" || body == "l" || body == "j") {
                if (doca_error_t rc = general_flag(body, nullptr, args, i); rc != DOCA_SUCCESS)
                    return rc;
                continue;
            }
            const doca_argp_param *p = find_short(body);
            std::string glued;
            bool has_glued = false;
            if (p == nullptr && (body[0] == 'l' || body[0] == 'j')) {
                glued = body.substr(1);
                if (doca_error_t rc = general_flag(body.substr(0, 1), &glued, args, i);
                    rc != DOCA_SUCCESS)
                    return rc;
                continue;
            }
            if (p == nullptr) {
                p = find_short(body.substr(0, 1));
                if (p != nullptr && p->type_ != DOCA_ARGP_TYPE_BOOLEAN) {
                    glued = body.substr(1);
                    has_glued = true;
                } else {
                    p = nullptr;
                }
            }
            if (p == nullptr) {
                SC_ARGP_MSG(log::error, "Unknown flag %s", tok.c_str());
                return usage_error(DOCA_ERROR_NOT_SUPPORTED);
            }
            if (doca_error_t rc =
                    add_cli_occurrence(*p, tok, has_glued ? &glued : nullptr, args, i);
                rc != DOCA_SUCCESS)
                return rc;
            continue;
        }
        // A word: a command of the current scope.
        const doca_argp_cmd *found = nullptr;
        for (const doca_argp_cmd *c : chain_.back()->cmds_)
            if (c->name_ == tok)
                found = c;
        if (found == nullptr) {
            if (chain_.back()->cmds_.empty())
                SC_ARGP_MSG(log::error, "Unexpected argument \"%s\" (flags start with - or --)",
                            tok.c_str());
            else
                SC_ARGP_MSG(log::error, "Unknown command \"%s\"", tok.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        }
        chain_.push_back(found);
    }
    return DOCA_SUCCESS;
}

} // namespace softcomch::argp
