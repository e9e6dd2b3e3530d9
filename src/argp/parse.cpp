// SPDX-License-Identifier: Apache-2.0
//
// doca_argp_start: the order of work, the checks, and the callback sequence. The command line is
// read in parse_cli.cpp, the JSON configuration file in parse_json.cpp (argp/parser.hpp).
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

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "argp/parser.hpp"
#include "common/error_names.hpp"
#include "common/guard.hpp"
#include "common/log.hpp"
#include "common/log_backend.hpp"

namespace softcomch::argp {

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
