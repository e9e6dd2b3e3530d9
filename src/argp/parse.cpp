// SPDX-License-Identifier: Apache-2.0
//
// doca_argp_start: the command line, the JSON configuration file, and the callback sequence.
//
// Order of work (each step stops at the first error):
//   1. split off the DPDK part (DPDK programs: `prog [DPDK flags] -- [DOCA flags]`);
//   2. tokenise the DOCA part: general flags, program flags of the current command scope, and
//      command words; -h/-v act at once (print, free the parser, exit(EXIT_SUCCESS));
//   3. read the -j file; a flag given on the command line wins over the same key in the file;
//   4. check single use, singular flags and mandatory flags (before any callback runs);
//   5. apply the log levels, call the flag callbacks (file order, then command-line order), the
//      DPDK callback, the command callbacks (outermost first), then the validation callback.
#include <doca_version.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "argp/argp_state.hpp"
#include "common/error_names.hpp"
#include "common/guard.hpp"
#include "common/json.hpp"
#include "common/log_backend.hpp"

namespace softcomch::argp {
namespace {

// One value for one flag, already converted to the flag's type.
struct occurrence {
    const doca_argp_param *param = nullptr;
    std::string text; // STRING and JSON_OBJ values
    int i = 0;
    bool b = false;
    double d = 0;
};

std::string display_name(const doca_argp_param &p)
{
    return !p.long_name_.empty() ? "--" + p.long_name_ : "-" + p.short_name_;
}

bool parse_int(std::string_view text, int *out) noexcept
{
    if (text.empty() || !(text[0] == '-' || text[0] == '+' || (text[0] >= '0' && text[0] <= '9')))
        return false;
    const std::string copy(text);
    errno = 0;
    char *end = nullptr;
    const long v = std::strtol(copy.c_str(), &end, 10);
    if (errno != 0 || end == copy.c_str() || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = int(v);
    return true;
}

bool parse_double(std::string_view text, double *out) noexcept
{
    if (text.empty() || text[0] == ' ' || text[0] == '\t')
        return false;
    const std::string copy(text);
    errno = 0;
    char *end = nullptr;
    const double v = std::strtod(copy.c_str(), &end);
    if (errno != 0 || end == copy.c_str() || *end != '\0' || !std::isfinite(v))
        return false;
    *out = v;
    return true;
}

bool parse_bool(std::string_view text, bool *out) noexcept
{
    auto is = [&](const char *word) {
        if (text.size() != std::strlen(word))
            return false;
        for (size_t k = 0; k < text.size(); ++k) {
            char c = text[k];
            if (c >= 'A' && c <= 'Z')
                c = char(c - 'A' + 'a');
            if (c != word[k])
                return false;
        }
        return true;
    };
    if (is("true") || is("1") || is("yes")) {
        *out = true;
        return true;
    }
    if (is("false") || is("0") || is("no")) {
        *out = false;
        return true;
    }
    return false;
}

class parser {
public:
    explicit parser(state &s) : s_(s) { chain_.push_back(&s.root_); }

    doca_error_t run(int argc, char **argv);

private:
    doca_error_t usage_error(doca_error_t rc)
    {
        s_.usage_chain_ = chain_;
        print_usage(s_, chain_);
        return rc;
    }

    doca_error_t tokenise(const std::vector<std::string> &args);
    doca_error_t general_flag(const std::string &name, const std::string *inline_value,
                              const std::vector<std::string> &args, size_t &i);
    doca_error_t take_value(const std::string &flag, const std::string *inline_value,
                            const std::vector<std::string> &args, size_t &i, std::string *value);
    doca_error_t convert_cli(const doca_argp_param &p, const std::string *value, occurrence *out);
    doca_error_t load_json(const std::string &path);
    doca_error_t json_general(const json::value &section);
    doca_error_t json_program(const json::value &section);
    doca_error_t json_dpdk(const json::value &section);
    doca_error_t convert_json(const doca_argp_param &p, const json::value &v, occurrence *out);
    doca_error_t check_counts();
    doca_error_t call(const occurrence &o);
    [[noreturn]] void print_version_and_exit();
    const doca_argp_param *find_long(const std::string &name) const;
    const doca_argp_param *find_json_key(const std::string &name) const;
    const doca_argp_param *find_short(const std::string &name) const;

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

const doca_argp_param *parser::find_long(const std::string &name) const
{
    if (name.empty()) // params without long name have an empty one
        return nullptr;
    for (const doca_argp_param *p : scope_params(chain_))
        if (p->long_name_ == name)
            return p;
    return nullptr;
}

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
        if (parse_int(*value, &out->i))
            return DOCA_SUCCESS;
        SC_ARGP_MSG(log::error, "Flag %s expects an integer, got \"%s\"", name.c_str(),
                    value->c_str());
        break;
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
    case DOCA_ARGP_TYPE_DOUBLE:
        if (parse_double(*value, &out->d))
            return DOCA_SUCCESS;
        SC_ARGP_MSG(log::error, "Flag %s expects a number, got \"%s\"", name.c_str(),
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
            std::string value;
            if (p->type_ != DOCA_ARGP_TYPE_BOOLEAN) {
                if (doca_error_t rc = take_value(tok, inline_value, args, i, &value);
                    rc != DOCA_SUCCESS)
                    return rc;
                inline_value = &value;
            }
            occurrence o;
            if (doca_error_t rc = convert_cli(*p, inline_value, &o); rc != DOCA_SUCCESS)
                return rc;
            cli_.push_back(std::move(o));
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
            std::string value;
            const std::string *value_ptr = nullptr;
            if (p->type_ != DOCA_ARGP_TYPE_BOOLEAN) {
                if (doca_error_t rc =
                        take_value(tok, has_glued ? &glued : nullptr, args, i, &value);
                    rc != DOCA_SUCCESS)
                    return rc;
                value_ptr = &value;
            }
            occurrence o;
            if (doca_error_t rc = convert_cli(*p, value_ptr, &o); rc != DOCA_SUCCESS)
                return rc;
            cli_.push_back(std::move(o));
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

doca_error_t parser::convert_json(const doca_argp_param &p, const json::value &v, occurrence *out)
{
    const char *name = p.long_name_.c_str();
    out->param = &p;
    switch (p.type_) {
    case DOCA_ARGP_TYPE_STRING:
        if (v.is_string()) {
            out->text = v.as_string();
            return DOCA_SUCCESS;
        }
        break;
    case DOCA_ARGP_TYPE_INT:
        if (v.is_number()) {
            try {
                const int64_t n = v.as_int();
                if (n >= INT32_MIN && n <= INT32_MAX) {
                    out->i = int(n);
                    return DOCA_SUCCESS;
                }
            } catch (const json::type_error &) {
            }
        } else if (v.is_string() && parse_int(v.as_string(), &out->i)) {
            return DOCA_SUCCESS;
        }
        SC_ARGP_MSG(log::error, "JSON key \"%s\" expects an integer", name);
        return usage_error(DOCA_ERROR_INVALID_VALUE);
    case DOCA_ARGP_TYPE_BOOLEAN:
        if (v.is_bool()) {
            out->b = v.as_bool();
            return DOCA_SUCCESS;
        }
        break;
    case DOCA_ARGP_TYPE_DOUBLE:
        if (v.is_number()) {
            out->d = v.as_double();
            return DOCA_SUCCESS;
        }
        break;
    case DOCA_ARGP_TYPE_JSON_OBJ:
        out->text = json::dump(v, 0);
        return DOCA_SUCCESS;
    case DOCA_ARGP_TYPE_UNKNOWN:
    default:
        break;
    }
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

doca_error_t parser::check_counts()
{
    // A flag on the command line replaces the same flag from the file.
    std::vector<occurrence> kept;
    for (occurrence &o : json_) {
        bool on_cli = false;
        for (const occurrence &c : cli_)
            on_cli = on_cli || c.param == o.param;
        if (!on_cli)
            kept.push_back(std::move(o));
    }
    json_.swap(kept);

    std::vector<const doca_argp_param *> given;
    for (const std::vector<occurrence> *list : {&json_, &cli_}) {
        for (const occurrence &o : *list) {
            size_t count = 0;
            for (const occurrence &c : *list)
                count += c.param == o.param;
            if (count > 1 && !o.param->multiplicity_) {
                SC_ARGP_MSG(log::error, "Flag %s may be given only once",
                            display_name(*o.param).c_str());
                return usage_error(DOCA_ERROR_INVALID_VALUE);
            }
            bool known = false;
            for (const doca_argp_param *g : given)
                known = known || g == o.param;
            if (!known)
                given.push_back(o.param);
        }
    }
    for (const doca_argp_param *g : given) {
        if (g->singular_ && given.size() > 1) {
            SC_ARGP_MSG(log::error, "Flag %s cannot be combined with other flags",
                        display_name(*g).c_str());
            return usage_error(DOCA_ERROR_INVALID_VALUE);
        }
    }
    // Mandatory: the program's flags and those of every selected command.
    for (const doca_argp_cmd *c : chain_) {
        for (const doca_argp_param *p : c->params_) {
            if (!p->mandatory_)
                continue;
            bool found = false;
            for (const doca_argp_param *g : given)
                found = found || g == p;
            if (!found) {
                SC_ARGP_MSG(log::error, "Missing mandatory flag %s", display_name(*p).c_str());
                return usage_error(DOCA_ERROR_INVALID_VALUE);
            }
        }
    }
    return DOCA_SUCCESS;
}

doca_error_t parser::call(const occurrence &o)
{
    std::string text = o.text; // the callback gets a private, writable copy
    int i = o.i;
    bool b = o.b;
    double d = o.d;
    void *arg = nullptr;
    switch (o.param->type_) {
    case DOCA_ARGP_TYPE_STRING:
    case DOCA_ARGP_TYPE_JSON_OBJ:
        arg = text.data();
        break;
    case DOCA_ARGP_TYPE_INT:
        arg = &i;
        break;
    case DOCA_ARGP_TYPE_BOOLEAN:
        arg = &b;
        break;
    case DOCA_ARGP_TYPE_DOUBLE:
        arg = &d;
        break;
    case DOCA_ARGP_TYPE_UNKNOWN:
    default:
        return DOCA_ERROR_UNEXPECTED;
    }
    const doca_error_t rc = o.param->callback_(arg, s_.config_);
    if (rc != DOCA_SUCCESS)
        SC_ARGP_MSG(log::error, "Flag %s: the program refused the value: %s",
                    display_name(*o.param).c_str(), error_name(rc));
    return rc;
}

void parser::print_version_and_exit()
{
    // doca_version_runtime() is the same build's DOCA_VERSION_STRING: libdoca_argp ships with
    // libdoca_common.
    std::printf("%s\nDOCA SDK version (compiled): %s\nDOCA runtime version:        %s\n"
                "SoftComch version:           %s\n",
                s_.program_name_.empty() ? "<program>" : s_.program_name_.c_str(),
                DOCA_VERSION_STRING, DOCA_VERSION_STRING, SOFTCOMCH_VERSION_STRING);
    std::fflush(stdout);
    reset();
    std::exit(EXIT_SUCCESS);
}

doca_error_t parser::run(int argc, char **argv)
{
    if (s_.program_name_.empty() && argc > 0 && argv[0] != nullptr) {
        const char *slash = std::strrchr(argv[0], '/');
        s_.program_name_ = slash ? slash + 1 : argv[0];
    }
    std::vector<std::string> args;
    bool dpdk_part = s_.dpdk_cb_ != nullptr;
    for (int k = 1; k < argc; ++k) {
        if (argv[k] == nullptr)
            break;
        if (dpdk_part) {
            if (std::strcmp(argv[k], "--") == 0)
                dpdk_part = false;
            else
                dpdk_cli_.emplace_back(argv[k]);
            continue;
        }
        args.emplace_back(argv[k]);
    }

    if (doca_error_t rc = tokenise(args); rc != DOCA_SUCCESS)
        return rc;
    if (json_given_)
        if (doca_error_t rc = load_json(json_path_); rc != DOCA_SUCCESS)
            return rc;
    if (doca_error_t rc = check_counts(); rc != DOCA_SUCCESS)
        return rc;

    const int log_level = cli_log_ >= 0 ? cli_log_ : json_log_;
    if (log_level >= 0) {
        log::set_global_lower_limit(uint32_t(log_level));
        g_user_log_level = log_level;
    }
    const int sdk_level = cli_sdk_ >= 0 ? cli_sdk_ : json_sdk_;
    if (sdk_level >= 0) {
        log::set_global_sdk_limit(uint32_t(sdk_level), /*from_user_cli=*/true);
        g_user_sdk_log_level = sdk_level;
    }

    for (const std::vector<occurrence> *list : {&json_, &cli_})
        for (const occurrence &o : *list)
            if (doca_error_t rc = call(o); rc != DOCA_SUCCESS)
                return rc;

    if (s_.dpdk_cb_ != nullptr) {
        s_.dpdk_args_.clear();
        s_.dpdk_args_.emplace_back(argc > 0 && argv[0] ? argv[0] : s_.program_name_);
        s_.dpdk_args_.insert(s_.dpdk_args_.end(), dpdk_cli_.begin(), dpdk_cli_.end());
        s_.dpdk_args_.insert(s_.dpdk_args_.end(), dpdk_json_.begin(), dpdk_json_.end());
        s_.dpdk_argv_.clear();
        for (std::string &a : s_.dpdk_args_)
            s_.dpdk_argv_.push_back(a.data());
        s_.dpdk_argv_.push_back(nullptr);
        const doca_error_t rc = s_.dpdk_cb_(int(s_.dpdk_args_.size()), s_.dpdk_argv_.data());
        if (rc != DOCA_SUCCESS) {
            SC_ARGP_MSG(log::error, "The DPDK flags were refused: %s", error_name(rc));
            return rc;
        }
    }

    for (size_t k = 1; k < chain_.size(); ++k) {
        if (chain_[k]->callback_ == nullptr)
            continue;
        const doca_error_t rc = chain_[k]->callback_(s_.config_);
        if (rc != DOCA_SUCCESS) {
            SC_ARGP_MSG(log::error, "Command \"%s\" failed: %s", chain_[k]->name_.c_str(),
                        error_name(rc));
            return rc;
        }
    }

    if (s_.validation_cb_ != nullptr) {
        const doca_error_t rc = s_.validation_cb_(s_.config_);
        if (rc != DOCA_SUCCESS) {
            SC_ARGP_MSG(log::error, "Program configuration is invalid: %s", error_name(rc));
            return rc;
        }
    }
    return DOCA_SUCCESS;
}

} // namespace
} // namespace softcomch::argp

extern "C" doca_error_t doca_argp_start(int argc, char **argv)
{
    const char *const fn = __func__;
    return softcomch::guard(fn, [&]() -> doca_error_t {
        softcomch::argp::state *s = softcomch::argp::current();
        if (s == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: the parser is not initialised (call doca_argp_init)", fn);
        if (argc < 0 || (argc > 0 && argv == nullptr))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: invalid argc/argv (%d, %p)", fn, argc,
                      static_cast<void *>(argv));
        if (s->started_)
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: already called (destroy and init again to re-parse)", fn);
        s->started_ = true;
        softcomch::argp::parser p(*s);
        return p.run(argc, argv);
    });
}
