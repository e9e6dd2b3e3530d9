// SPDX-License-Identifier: Apache-2.0
//
// doca_argp_start, step 3 (parse.cpp): the -j/--json file and its sections doca_general_flags,
// doca_program_flags and doca_dpdk_flags (docs/logging_and_argp.md).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "argp/parser.hpp"
#include "common/log.hpp"
#include "common/log_backend.hpp"

namespace softcomch::argp {

// A file has no positions: its keys may name a flag of the program or of any selected command.
const doca_argp_param *parser::find_json_key(const std::string &name) const
{
    if (name.empty())
        return nullptr;
    for (size_t k = chain_.size(); k-- > 0;)
        for (const doca_argp_param *p : chain_[k]->params_)
            if (p->long_name_ == name)
                return p;
    return nullptr;
}

namespace {

// A JSON value for an integer flag: a number within int's range, or a string holding one.
bool json_int(const json::value &v, int *out)
{
    if (v.is_string())
        return parse_int(v.as_string(), out);
    if (!v.is_number())
        return false;
    try {
        const int64_t n = v.as_int();
        if (n < INT32_MIN || n > INT32_MAX)
            return false;
        *out = int(n);
        return true;
    } catch (const json::type_error &) {
        return false; // a number with a fraction
    }
}

// json-c, which DOCA's argp reads -j files with, accepts C and C++ comments outside strings and a
// comma before a closing brace or bracket, and NVIDIA's applications ship parameter files that use
// both (16 of the 17 under applications/ at 3.1.0 have `//` lines; 11 a trailing comma, such as
// file_compression's `"log-level": 60,` before its `}`). Each comment and each such comma becomes
// spaces (newlines stay), so the parser's line and column numbers still point into the file.
// False (and `*why`) for a block comment that never ends.
bool blank_json_c_extensions(std::string &text, const char **why)
{
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i; // the escaped character, whatever it is
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            continue;
        }
        if (c != '/' || i + 1 >= text.size())
            continue;
        if (text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                text[i++] = ' ';
        } else if (text[i + 1] == '*') {
            text[i++] = ' ';
            text[i++] = ' ';
            while (i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/')) {
                if (text[i] != '\n')
                    text[i] = ' ';
                ++i;
            }
            if (i + 1 >= text.size()) {
                *why = "a comment that starts with /* never ends";
                return false;
            }
            text[i++] = ' ';
            text[i] = ' ';
        }
    }
    // Commas that close nothing: a `,` whose next non-blank character is `}` or `]` (comments are
    // blanks by now).
    in_string = false;
    size_t last_comma = std::string::npos;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            last_comma = std::string::npos;
        } else if (c == ',') {
            last_comma = i;
        } else if (c == '}' || c == ']') {
            if (last_comma != std::string::npos)
                text[last_comma] = ' ';
            last_comma = std::string::npos;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            last_comma = std::string::npos;
        }
    }
    return true;
}

} // namespace

doca_error_t parser::convert_json(const doca_argp_param &p, const json::value &v, occurrence *out)
{
    const char *name = p.long_name_.c_str();
    out->param = &p;
    // Whether the value's JSON type is one this flag takes; the value is stored when it is.
    bool fits = false;
    switch (p.type_) {
    case DOCA_ARGP_TYPE_INT:
        if (json_int(v, &out->i))
            return DOCA_SUCCESS;
        SC_ARGP_MSG(log::error, "JSON key \"%s\" expects an integer", name);
        return usage_error(DOCA_ERROR_INVALID_VALUE);
    case DOCA_ARGP_TYPE_STRING:
        fits = v.is_string();
        if (fits)
            out->text = v.as_string();
        break;
    case DOCA_ARGP_TYPE_JSON_OBJ:
        out->text = json::dump(v, 0);
        return DOCA_SUCCESS;
    case DOCA_ARGP_TYPE_BOOLEAN:
        fits = v.is_bool();
        if (fits)
            out->b = v.as_bool();
        break;
    case DOCA_ARGP_TYPE_UNKNOWN: // no value fits
        break;
    case DOCA_ARGP_TYPE_DOUBLE:
        fits = v.is_number();
        if (fits)
            out->d = v.as_double();
        break;
    default:
        break;
    }
    if (fits)
        return DOCA_SUCCESS;
    SC_ARGP_MSG(log::error, "JSON key \"%s\": a %s does not fit this flag", name, v.type_name());
    return usage_error(DOCA_ERROR_INVALID_VALUE);
}

doca_error_t parser::json_general(const json::value &section)
{
    for (const auto &[key, v] : section.items()) {
        const bool sdk = key == "sdk-log-level";
        if (key == "log-level" || sdk) {
            int level = 0;
            bool ok = false;
            if (v.is_int()) {
                const int64_t n = v.as_int();
                ok = n >= 0 && n <= 1000;
                level = int(n);
            } else if (v.is_string()) {
                ok = parse_int(v.as_string(), &level);
            }
            if (!ok || !log::valid_limit(uint32_t(level))) {
                SC_ARGP_MSG(log::error, "JSON key \"%s\" is not a log level (10..70)", key.c_str());
                return usage_error(DOCA_ERROR_INVALID_VALUE);
            }
            (sdk ? json_sdk_ : json_log_) = level;
        } else if (key == "help" || key == "version" || key == "json") {
            SC_ARGP_MSG(log::error, "JSON key \"%s\" is only accepted on the command line",
                        key.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        } else {
            SC_ARGP_MSG(log::error, "Unknown key \"%s\" in \"doca_general_flags\"", key.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t parser::json_program(const json::value &section)
{
    for (const auto &[key, v] : section.items()) {
        const doca_argp_param *p = find_json_key(key);
        if (p == nullptr) {
            SC_ARGP_MSG(log::error, "Unknown key \"%s\" in \"doca_program_flags\"", key.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        }
        if (p->cli_only_) {
            SC_ARGP_MSG(log::error, "Flag --%s is accepted on the command line only", key.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        }
        if (p->multiplicity_ && v.is_array()) {
            for (const json::value &e : v.elements()) {
                occurrence o;
                if (doca_error_t rc = convert_json(*p, e, &o); rc != DOCA_SUCCESS)
                    return rc;
                json_.push_back(std::move(o));
            }
            continue;
        }
        if (v.is_array() && p->type_ != DOCA_ARGP_TYPE_JSON_OBJ) {
            SC_ARGP_MSG(log::error, "JSON key \"%s\": an array needs a flag that may repeat",
                        key.c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
        occurrence o;
        if (doca_error_t rc = convert_json(*p, v, &o); rc != DOCA_SUCCESS)
            return rc;
        json_.push_back(std::move(o));
    }
    return DOCA_SUCCESS;
}

// {"a": "0-3", "log-level": 8, "no-huge": true, "allow": ["x", "y"]} -> -a 0-3 --log-level 8
// --no-huge --allow x --allow y
doca_error_t parser::json_dpdk(const json::value &section)
{
    if (s_.dpdk_cb_ == nullptr) {
        if (section.size() > 0)
            SC_ARGP_MSG(log::warning,
                        "\"doca_dpdk_flags\" ignored: this program does not use DPDK");
        return DOCA_SUCCESS;
    }
    for (const auto &[key, v] : section.items()) {
        const std::string flag = key.size() == 1 ? "-" + key : "--" + key;
        auto add = [&](const json::value &e) -> bool {
            if (e.is_bool()) {
                if (e.as_bool())
                    dpdk_json_.push_back(flag);
                return true;
            }
            if (e.is_string()) {
                dpdk_json_.push_back(flag);
                dpdk_json_.push_back(e.as_string());
                return true;
            }
            if (e.is_number()) {
                dpdk_json_.push_back(flag);
                dpdk_json_.push_back(json::dump(e, 0));
                return true;
            }
            return false;
        };
        bool ok = true;
        if (v.is_array()) {
            for (const json::value &e : v.elements())
                ok = ok && add(e);
        } else {
            ok = add(v);
        }
        if (!ok) {
            SC_ARGP_MSG(log::error, "JSON key \"%s\" in \"doca_dpdk_flags\": unsupported value",
                        key.c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t parser::load_json(const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        SC_ARGP_MSG(log::error, "Cannot open JSON file %s: %s", path.c_str(), std::strerror(errno));
        return DOCA_ERROR_IO_FAILED;
    }
    std::string text;
    char chunk[4096];
    size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0)
        text.append(chunk, n);
    const bool read_error = std::ferror(f) != 0;
    std::fclose(f);
    if (read_error) {
        SC_ARGP_MSG(log::error, "Cannot read JSON file %s", path.c_str());
        return DOCA_ERROR_IO_FAILED;
    }
    const char *why = nullptr;
    if (!blank_json_c_extensions(text, &why)) {
        SC_ARGP_MSG(log::error, "JSON file %s: %s", path.c_str(), why);
        return DOCA_ERROR_IO_FAILED;
    }
    std::string err;
    const json::value root = json::parse(text, &err);
    if (!err.empty()) {
        SC_ARGP_MSG(log::error, "JSON file %s:%s", path.c_str(), err.c_str());
        return DOCA_ERROR_IO_FAILED;
    }
    if (!root.is_object()) {
        SC_ARGP_MSG(log::error, "JSON file %s: the top level must be an object", path.c_str());
        return usage_error(DOCA_ERROR_INVALID_VALUE);
    }
    for (const auto &[key, v] : root.items()) {
        if (key != "doca_general_flags" && key != "doca_program_flags" &&
            key != "doca_dpdk_flags") {
            SC_ARGP_MSG(log::error,
                        "JSON file %s: unknown section \"%s\" (expected "
                        "doca_dpdk_flags, doca_general_flags, doca_program_flags)",
                        path.c_str(), key.c_str());
            return usage_error(DOCA_ERROR_NOT_SUPPORTED);
        }
        if (!v.is_object()) {
            SC_ARGP_MSG(log::error, "JSON file %s: section \"%s\" must be an object", path.c_str(),
                        key.c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
        doca_error_t rc = key == "doca_general_flags"   ? json_general(v)
                          : key == "doca_program_flags" ? json_program(v)
                                                        : json_dpdk(v);
        if (rc != DOCA_SUCCESS)
            return rc;
    }
    return DOCA_SUCCESS;
}

} // namespace softcomch::argp
