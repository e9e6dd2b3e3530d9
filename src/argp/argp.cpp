// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_argp.h except doca_argp_start (parse.cpp) and the usage text (usage.cpp): the
// singleton, params, commands and callbacks.
#include <algorithm>
#include <cstdio>

#include "argp/argp_state.hpp"
#include "common/guard.hpp"
#include "common/log_backend.hpp"

namespace softcomch::argp {
namespace {

std::unique_ptr<state> g_state;

} // namespace

// A name usable on the command line: non-empty, no leading '-', no whitespace or '='.
bool valid_name(const char *name) noexcept
{
    if (name == nullptr || *name == '\0' || *name == '-')
        return false;
    for (const char *p = name; *p; ++p)
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '=')
            return false;
    return true;
}

int g_user_log_level = -1;
int g_user_sdk_log_level = -1;

state *current() noexcept
{
    return g_state.get();
}

void reset() noexcept
{
    g_state.reset();
}

bool create(const char *program_name, void *config)
{
    if (g_state)
        return false;
    auto s = std::make_unique<state>();
    if (program_name != nullptr)
        s->program_name_ = program_name;
    s->config_ = config;
    g_state = std::move(s);
    g_user_log_level = -1;
    g_user_sdk_log_level = -1;
    return true;
}

bool owns(const state &s, const doca_argp_param *p) noexcept
{
    return std::any_of(s.param_pool_.begin(), s.param_pool_.end(),
                       [p](const auto &own) { return own.get() == p; });
}

bool owns(const state &s, const doca_argp_cmd *c) noexcept
{
    return std::any_of(s.cmd_pool_.begin(), s.cmd_pool_.end(),
                       [c](const auto &own) { return own.get() == c; });
}

void message(uint32_t level, const char *file, int line, const char *fmt, ...) noexcept
{
    va_list ap;
    va_start(ap, fmt);
    const state *s = g_state.get();
    if (s != nullptr && s->logger_cb_ != nullptr)
        (void)s->logger_cb_(static_cast<doca_log_level>(level), fmt, ap);
    else if (log::sdk_enabled(level))
        log::vsdk(level, file, line, fmt, ap);
    va_end(ap);
}

bool reserved_short(const std::string &name) noexcept
{
    return name == "h" || name == "v" || name == "l" || name == "j";
}

bool reserved_long(const std::string &name) noexcept
{
    return name == "help" || name == "version" || name == "log-level" || name == "sdk-log-level" ||
           name == "json";
}

doca_error_t check_param(const doca_argp_cmd &parent, const doca_argp_param &p, const char *fn)
{
    const char *shown = !p.long_name_.empty() ? p.long_name_.c_str() : p.short_name_.c_str();
    if (p.short_name_.empty() && p.long_name_.empty())
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: the param has neither a short nor a long name",
                  fn);
    if (p.description_.empty())
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: param \"%s\" has no description", fn, shown);
    if (p.callback_ == nullptr)
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: param \"%s\" has no callback", fn, shown);
    if (p.type_ == DOCA_ARGP_TYPE_UNKNOWN)
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: param \"%s\" has no type", fn, shown);
    if (reserved_short(p.short_name_) || reserved_long(p.long_name_))
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: param \"%s\": the name is reserved for the DOCA "
                  "general flags (-h -v -l -j --help --version --log-level --sdk-log-level --json)",
                  fn, shown);
    for (const doca_argp_param *other : parent.params_) {
        if (!p.short_name_.empty() && other->short_name_ == p.short_name_)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: short name -%s is already in use", fn,
                      p.short_name_.c_str());
        if (!p.long_name_.empty() && other->long_name_ == p.long_name_)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: long name --%s is already in use", fn,
                      p.long_name_.c_str());
    }
    return DOCA_SUCCESS;
}

doca_error_t check_cmd(const doca_argp_cmd &parent, const doca_argp_cmd &c, const char *fn)
{
    if (c.name_.empty())
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: the command has no name", fn);
    if (c.description_.empty())
        SC_REFUSE(DOCA_ERROR_INITIALIZATION, "%s: command \"%s\" has no description", fn,
                  c.name_.c_str());
    for (const doca_argp_cmd *other : parent.cmds_)
        if (other->name_ == c.name_)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: command \"%s\" is already registered here", fn,
                      c.name_.c_str());
    return DOCA_SUCCESS;
}

} // namespace softcomch::argp

namespace {

namespace sa = softcomch::argp;
using softcomch::guard;

template <typename T> void drop_from_pool(std::vector<std::unique_ptr<T>> &pool, const T *obj)
{
    pool.erase(std::remove_if(pool.begin(), pool.end(),
                              [obj](const auto &own) { return own.get() == obj; }),
               pool.end());
}

// Frees an unregistered command with everything linked below it.
void destroy_cmd_tree(sa::state &s, doca_argp_cmd *c)
{
    for (doca_argp_param *p : c->params_)
        drop_from_pool(s.param_pool_, p);
    for (doca_argp_cmd *sub : c->cmds_)
        destroy_cmd_tree(s, sub);
    drop_from_pool(s.cmd_pool_, c);
}

// Common to the void setters: NULL, unknown and registered objects are refused with a log line.
// `arg` names the argument, `noun` the kind of object, `creator` the function that makes one.
template <typename T>
T *settable(T *obj, const char *fn, const char *arg, const char *noun, const char *creator)
{
    const sa::state *s = sa::current();
    if (obj == nullptr) {
        SC_LOG_ERR("%s: %s is NULL", fn, arg);
        return nullptr;
    }
    if (s == nullptr || !sa::owns(*s, obj)) {
        SC_LOG_ERR("%s: unknown %s %p (not created by %s, or already destroyed)", fn, noun,
                   static_cast<void *>(obj), creator);
        return nullptr;
    }
    if (obj->registered_) {
        SC_LOG_ERR("%s: %s is already registered and can no longer change", fn, noun);
        return nullptr;
    }
    return obj;
}

doca_argp_param *settable_param(doca_argp_param *param, const char *fn)
{
    return settable(param, fn, "param", "param", "doca_argp_param_create");
}

doca_argp_cmd *settable_cmd(doca_argp_cmd *cmd, const char *fn)
{
    return settable(cmd, fn, "cmd", "command", "doca_argp_cmd_create");
}

void set_string(std::string doca_argp_param::*field, doca_argp_param *param, const char *value,
                const char *fn, bool is_name)
{
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_param *p = settable_param(param, fn);
        if (p == nullptr)
            return 0;
        if (value == nullptr) {
            SC_LOG_ERR("%s: value is NULL", fn);
            return 0;
        }
        if (is_name && !sa::valid_name(value)) {
            SC_LOG_ERR("%s: \"%s\" is not a valid flag name (give it without dashes, no spaces "
                       "or '=')",
                       fn, value);
            return 0;
        }
        p->*field = value;
        return 0;
    });
}

void set_flag(bool doca_argp_param::*field, doca_argp_param *param, const char *fn)
{
    softcomch::guard_value(fn, 0, [&] {
        if (doca_argp_param *p = settable_param(param, fn))
            p->*field = true;
        return 0;
    });
}

// Links `param` under `parent` after the checks register_param and cmd_register_param share.
doca_error_t link_param(sa::state &s, doca_argp_cmd &parent, doca_argp_param *param, const char *fn)
{
    if (!sa::owns(s, param))
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: unknown param %p (not created by "
                  "doca_argp_param_create, or already destroyed)",
                  fn, static_cast<void *>(param));
    if (param->registered_)
        SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: param is already registered", fn);
    if (doca_error_t rc = sa::check_param(parent, *param, fn); rc != DOCA_SUCCESS) {
        drop_from_pool(s.param_pool_, param); // the parser owns it in all flows: free it now
        return rc;
    }
    if (param->long_name_.empty())
        param->cli_only_ = true; // a JSON key is a long name
    parent.params_.push_back(param);
    param->registered_ = true;
    return DOCA_SUCCESS;
}

doca_error_t link_cmd(sa::state &s, doca_argp_cmd &parent, doca_argp_cmd *cmd, const char *fn)
{
    if (!sa::owns(s, cmd))
        SC_REFUSE(DOCA_ERROR_INVALID_VALUE,
                  "%s: unknown command %p (not created by "
                  "doca_argp_cmd_create, or already destroyed)",
                  fn, static_cast<void *>(cmd));
    if (cmd->registered_)
        SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: command is already registered", fn);
    for (const doca_argp_cmd *up = &parent; up != nullptr; up = up->parent_)
        if (up == cmd) // not freed: the tree holding the parent would go with it
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: command \"%s\" cannot contain itself", fn,
                      cmd->name_.c_str());
    if (doca_error_t rc = sa::check_cmd(parent, *cmd, fn); rc != DOCA_SUCCESS) {
        destroy_cmd_tree(s, cmd); // the parser owns it in all flows: free it now
        return rc;
    }
    cmd->parent_ = &parent;
    cmd->registered_ = true;
    parent.cmds_.push_back(cmd);
    return DOCA_SUCCESS;
}

// Runs `body` on the parser inside guard: BAD_STATE when doca_argp_init has not run.
template <typename Fn> doca_error_t with_parser(const char *fn, Fn &&body)
{
    return guard(fn, [&]() -> doca_error_t {
        sa::state *s = sa::current();
        if (s == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: the parser is not initialised", fn);
        return body(*s);
    });
}

// Registration ends with doca_argp_start.
doca_error_t check_not_started(const sa::state &s, const char *fn)
{
    if (s.started_)
        SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: doca_argp_start already ran", fn);
    return DOCA_SUCCESS;
}

// A callback slot of the parser: NULL refused, then stored.
template <typename Cb> doca_error_t set_callback(const char *fn, Cb callback, Cb sa::state::*slot)
{
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (callback == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: callback is NULL", fn);
        s.*slot = callback;
        return DOCA_SUCCESS;
    });
}

} // namespace

extern "C" {

void doca_argp_usage(void)
{
    softcomch::guard_value(__func__, 0, [] {
        const sa::state *s = sa::current();
        if (s == nullptr) {
            SC_LOG_ERR("doca_argp_usage: the parser is not initialised (call doca_argp_init)");
            return 0;
        }
        sa::print_usage(*s, s->usage_chain_);
        return 0;
    });
}

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (sa::current() != nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: already initialised (call doca_argp_destroy first)", fn);
        sa::create(program_name, program_config);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (input_param == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: input_param is NULL", fn);
        if (doca_error_t rc = check_not_started(s, fn); rc != DOCA_SUCCESS)
            return rc;
        return link_param(s, s.root_, input_param, fn);
    });
}

doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (input_cmd == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: input_cmd is NULL", fn);
        if (doca_error_t rc = check_not_started(s, fn); rc != DOCA_SUCCESS)
            return rc;
        return link_cmd(s, s.root_, input_cmd, fn);
    });
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
    return set_callback(__func__, callback, &sa::state::version_cb_);
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
    return set_callback(__func__, callback, &sa::state::validation_cb_);
}

doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (callback == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: callback is NULL", fn);
        if (s.logger_cb_ != nullptr)
            SC_REFUSE(DOCA_ERROR_ALREADY_EXIST,
                      "%s: a logger callback is already registered "
                      "(doca_argp_disable_logger_callback first)",
                      fn);
        s.logger_cb_ = callback;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_disable_logger_callback(void)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (s.logger_cb_ == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: no logger callback is registered", fn);
        s.logger_cb_ = nullptr;
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_destroy(void)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (sa::current() == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: the parser is not initialised", fn);
        sa::reset();
        return DOCA_SUCCESS;
    });
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        sa::state *s = sa::current();
        if (s == nullptr)
            SC_LOG_ERR("%s: the parser is not initialised", fn);
        else if (callback == nullptr)
            SC_LOG_ERR("%s: callback is NULL", fn);
        else
            s->dpdk_cb_ = callback;
        return 0;
    });
}

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (param == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: param is NULL", fn);
        sa::state *s = sa::current();
        if (s == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: the parser is not initialised (call doca_argp_init)", fn);
        s->param_pool_.push_back(std::make_unique<doca_argp_param>());
        *param = s->param_pool_.back().get();
        return DOCA_SUCCESS;
    });
}

void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name)
{
    set_string(&doca_argp_param::short_name_, param, name, __func__, true);
}

void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name)
{
    set_string(&doca_argp_param::long_name_, param, name, __func__, true);
}

void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments)
{
    set_string(&doca_argp_param::arguments_, param, arguments, __func__, false);
}

void doca_argp_param_set_description(struct doca_argp_param *param, const char *description)
{
    set_string(&doca_argp_param::description_, param, description, __func__, false);
}

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_param *p = settable_param(param, fn);
        if (p != nullptr && callback == nullptr)
            SC_LOG_ERR("%s: callback is NULL", fn);
        else if (p != nullptr)
            p->callback_ = callback;
        return 0;
    });
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_param *p = settable_param(param, fn);
        if (p == nullptr)
            return 0;
        switch (type) {
        case DOCA_ARGP_TYPE_STRING:
        case DOCA_ARGP_TYPE_INT:
        case DOCA_ARGP_TYPE_BOOLEAN:
        case DOCA_ARGP_TYPE_JSON_OBJ:
        case DOCA_ARGP_TYPE_DOUBLE:
            p->type_ = type;
            break;
        case DOCA_ARGP_TYPE_UNKNOWN:
        default:
            SC_LOG_ERR("%s: %d is not a usable argp type", fn, int(type));
            break;
        }
        return 0;
    });
}

void doca_argp_param_set_mandatory(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::mandatory_, param, __func__);
}

void doca_argp_param_set_cli_only(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::cli_only_, param, __func__);
}

void doca_argp_param_set_multiplicity(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::multiplicity_, param, __func__);
}

void doca_argp_param_set_singular(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::singular_, param, __func__);
}

void doca_argp_param_set_inherited(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::inherited_, param, __func__);
}

void doca_argp_param_set_hidden(struct doca_argp_param *param)
{
    set_flag(&doca_argp_param::hidden_, param, __func__);
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (param == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: param is NULL", fn);
        sa::state *s = sa::current();
        if (s == nullptr || !sa::owns(*s, param))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown param %p", fn,
                      static_cast<void *>(param));
        if (param->registered_)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: param is registered; the parser destroys it", fn);
        drop_from_pool(s->param_pool_, param);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (cmd == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: cmd is NULL", fn);
        sa::state *s = sa::current();
        if (s == nullptr)
            SC_REFUSE(DOCA_ERROR_BAD_STATE,
                      "%s: the parser is not initialised (call doca_argp_init)", fn);
        s->cmd_pool_.push_back(std::make_unique<doca_argp_cmd>());
        *cmd = s->cmd_pool_.back().get();
        return DOCA_SUCCESS;
    });
}

void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_cmd *c = settable_cmd(cmd, fn);
        if (c == nullptr)
            return 0;
        if (!sa::valid_name(name))
            SC_LOG_ERR("%s: \"%s\" is not a valid command name", fn, name ? name : "(null)");
        else
            c->name_ = name;
        return 0;
    });
}

void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_cmd *c = settable_cmd(cmd, fn);
        if (c != nullptr && description == nullptr)
            SC_LOG_ERR("%s: description is NULL", fn);
        else if (c != nullptr)
            c->description_ = description;
        return 0;
    });
}

void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        doca_argp_cmd *c = settable_cmd(cmd, fn);
        if (c != nullptr && callback == nullptr)
            SC_LOG_ERR("%s: callback is NULL", fn);
        else if (c != nullptr)
            c->callback_ = callback;
        return 0;
    });
}

void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd)
{
    const char *const fn = __func__;
    softcomch::guard_value(fn, 0, [&] {
        if (doca_argp_cmd *c = settable_cmd(cmd, fn))
            c->hidden_ = true;
        return 0;
    });
}

doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd,
                                          struct doca_argp_param *input_param)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (cmd == nullptr || input_param == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, cmd ? "input_param" : "cmd");
        if (!sa::owns(s, cmd))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown command %p", fn,
                      static_cast<void *>(cmd));
        if (doca_error_t rc = check_not_started(s, fn); rc != DOCA_SUCCESS)
            return rc;
        return link_param(s, *cmd, input_param, fn);
    });
}

doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd)
{
    const char *const fn = __func__;
    return with_parser(fn, [&](sa::state &s) -> doca_error_t {
        if (cmd == nullptr || input_cmd == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: %s is NULL", fn, cmd ? "input_cmd" : "cmd");
        if (!sa::owns(s, cmd))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown command %p", fn,
                      static_cast<void *>(cmd));
        if (cmd == input_cmd)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: a command cannot contain itself", fn);
        if (doca_error_t rc = check_not_started(s, fn); rc != DOCA_SUCCESS)
            return rc;
        return link_cmd(s, *cmd, input_cmd, fn);
    });
}

doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (cmd == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: cmd is NULL", fn);
        sa::state *s = sa::current();
        if (s == nullptr || !sa::owns(*s, cmd))
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: unknown command %p", fn,
                      static_cast<void *>(cmd));
        if (cmd->registered_)
            SC_REFUSE(DOCA_ERROR_BAD_STATE, "%s: command is registered; the parser destroys it",
                      fn);
        destroy_cmd_tree(*s, cmd);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_get_log_level(int *log_level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (log_level == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: log_level is NULL", fn);
        *log_level = sa::g_user_log_level >= 0 ? sa::g_user_log_level
                                               : int(softcomch::log::global_lower_limit());
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
    const char *const fn = __func__;
    return guard(fn, [&]() -> doca_error_t {
        if (log_level == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: log_level is NULL", fn);
        *log_level = sa::g_user_sdk_log_level >= 0 ? sa::g_user_sdk_log_level
                                                   : int(softcomch::log::global_sdk_limit());
        return DOCA_SUCCESS;
    });
}

} // extern "C"
