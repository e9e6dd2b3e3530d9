// SPDX-License-Identifier: Apache-2.0
//
// The one way the C facade checks a handle (capi-internal: nothing outside src/capi includes
// this). handle<T> says, for each C handle type T, what makes a pointer usable (its object tag,
// plus the liveness some types need) and the reason a refusal gives. Then:
//
//   SC_REQUIRE(p);          inside guard(): refuses with DOCA_ERROR_INVALID_VALUE and one line
//                           "<api function>: p (<address>) <reason>" ("p is NULL" for NULL)
//   usable(p, "p")          for functions that do not return doca_error_t: the same line, and
//                           false; outside guard (data-path accessors) pass the function's
//                           name: usable(p, "p", __func__)
//   why_unusable(p)         nullptr, or the reason, without logging (accessors that are silent)
//
// Plain output pointers keep SC_CHECK_NOT_NULL (common/guard.hpp).
#pragma once

#include <cstdio>

#include "comch/connection_handle.hpp"
#include "common/guard.hpp"
#include "common/log_backend.hpp"
#include "common/object_tag.hpp"
#include "core/ctx.hpp"
#include "core/device.hpp"
#include "core/task.hpp"

struct doca_buf;
struct doca_buf_inventory;
struct doca_mmap;
struct doca_pe;
struct doca_comch_server;
struct doca_comch_client;
struct doca_comch_connection;
struct doca_comch_consumer;
struct doca_comch_producer;
struct doca_comch_task_send;
struct doca_comch_consumer_task_post_recv;
struct doca_comch_producer_task_send;

namespace softcomch::capi {

// What every facade file uses: `using namespace softcomch::capi;` brings these too.
using softcomch::api_function;
using softcomch::api_scope;
using softcomch::guard;
using softcomch::guard_value;

// No primary definition: a handle type without a trait cannot be checked by mistake.
template <typename T> struct handle;

// A live context of concrete type T: the tag says "a context", the dynamic type which one (a
// client passed where a server is expected is refused, not misused).
template <typename T> bool is_live_context(const T *p) noexcept
{
    const doca_ctx *c = p;
    return c->tag_.is(object_kind::ctx) && c->as<T>() != nullptr;
}

// `usable` is a template so that the concrete types need to be complete only where a check is
// made (the file that includes their headers), not here. Each library's C facade declares its own
// handle types (SC_HANDLE below); these are DOCA Core's and Comch's.
#define SC_HANDLE(T, article, detail, ...)                                                         \
    template <> struct handle<T> {                                                                 \
        static constexpr const char *name = #T;                                                    \
        static constexpr const char *reason = "is not " article " " #T " (" detail ")";            \
        static bool usable(const auto *p) noexcept { return __VA_ARGS__; }                         \
    }

SC_HANDLE(doca_devinfo, "a valid", "destroyed, or another kind of object",
          p->tag_.is(object_kind::devinfo));
SC_HANDLE(doca_devinfo_rep, "a valid", "destroyed, or another kind of object",
          p->tag_.is(object_kind::devinfo_rep));
SC_HANDLE(doca_dev, "an open", "closed, or another object", core::is_open_device(p));
SC_HANDLE(doca_dev_rep, "an open", "closed, or another object", core::is_open_representor(p));
SC_HANDLE(doca_mmap, "a valid", "destroyed, or another kind of object",
          p->tag_.is(object_kind::mmap));
SC_HANDLE(doca_buf, "a valid", "its inventory was destroyed, or another kind of object",
          p->tag_.is(object_kind::buf));
SC_HANDLE(doca_buf_inventory, "a valid", "destroyed, or another kind of object",
          p->tag_.is(object_kind::buf_inventory));
SC_HANDLE(doca_pe, "a valid", "destroyed or foreign", p->tag_.is(object_kind::pe));
SC_HANDLE(doca_ctx, "a valid", "destroyed or foreign", p->tag_.is(object_kind::ctx));
SC_HANDLE(doca_task, "a valid", "freed or foreign", p->tag_.is(object_kind::task));
SC_HANDLE(doca_log_backend, "a valid", "not created by doca_log_backend_create_*",
          log::is_backend(p));
// Connections are named by generation-tagged handles (comch/connection_handle.hpp): resolving
// one reads no memory at its address, and a handle whose connection closed and was freed
// resolves to nothing. Functions then work on comch::resolve(p).
SC_HANDLE(doca_comch_connection, "a valid", "closed and freed, or foreign",
          comch::resolve(p) != nullptr);
SC_HANDLE(doca_comch_server, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_comch_client, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_comch_consumer, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
SC_HANDLE(doca_comch_producer, "a valid", "destroyed, foreign, or another kind of context",
          is_live_context(p));
// A live task of the accessor's own kind: a control-path send task cast to a producer task (or
// any other mix-up) is refused, not read or written at another kind's offsets.
SC_HANDLE(doca_comch_task_send, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));
SC_HANDLE(doca_comch_consumer_task_post_recv, "a valid",
          "freed, foreign, or a task of another kind", core::is_task_of(p));
SC_HANDLE(doca_comch_producer_task_send, "a valid", "freed, foreign, or a task of another kind",
          core::is_task_of(p));

// SC_HANDLE stays defined: the C facade of each further DOCA library declares the traits of its
// own handle types with it, in its own folder (src/capi/dma/dma.cpp).

// nullptr when `p` may be used, else why not ("is NULL" or the type's reason).
template <typename T> const char *why_unusable(const T *p) noexcept
{
    if (p == nullptr)
        return "is NULL";
    return handle<T>::usable(p) ? nullptr : handle<T>::reason;
}

// " (<address>)" for a refused non-NULL pointer, "" for NULL: the log line names the address
// only when there is one.
struct address_text {
    char text[32];
};
inline address_text address_of(const void *p) noexcept
{
    address_text a{};
    if (p != nullptr)
        std::snprintf(a.text, sizeof a.text, " (%p)", p);
    return a;
}

// For exported functions that do not return doca_error_t: true if `p` is usable, else logs the
// line SC_REQUIRE logs (naming `func`) and returns false.
template <typename T>
bool usable(const T *p, const char *expr, const char *func = api_function()) noexcept
{
    const char *why = why_unusable(p);
    if (why == nullptr)
        return true;
    // Named as `func` for the log's rate limit too: accessors outside guard() share this line.
    api_scope scope(func);
    SC_LOG_ERR("%s: %s%s %s", func, expr, address_of(p).text, why);
    return false;
}

// The getter shape of the C API: `obj` usable (as SC_REQUIRE), `out` not NULL (as
// SC_CHECK_NOT_NULL), then `*out = get(*obj)`; write it with SC_ARG so the log line names both:
//   return get_into(__func__, SC_ARG(devinfo), SC_ARG(vhca_id), [](auto &d) { return d.vhca_id(); });
template <typename T, typename Out, typename Get>
doca_error_t get_into(const char *func, T *obj, const char *obj_name, Out *out,
                      const char *out_name, Get &&get) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        if (!usable(obj, obj_name, func))
            return DOCA_ERROR_INVALID_VALUE;
        if (out == nullptr)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: %s is NULL", func, out_name);
        *out = get(*obj);
        return DOCA_SUCCESS;
    });
}

// The delegation shape: `obj` usable (as SC_REQUIRE), then the object does the work:
//   return delegate(__func__, SC_ARG(mmap), [](auto &m) { return m.start(); });
template <typename T, typename Fn>
doca_error_t delegate(const char *func, T *obj, const char *obj_name, Fn &&fn) noexcept
{
    return guard(func, [&]() -> doca_error_t {
        if (!usable(obj, obj_name, func))
            return DOCA_ERROR_INVALID_VALUE;
        return fn(*obj);
    });
}

// The destroy shape of a context: refused (IN_USE) unless IDLE and without children (consumers
// and producers of its connections), then deleted.
template <typename T>
doca_error_t destroy_idle(const char *func, T *obj, const char *obj_name, const char *what) noexcept
{
    return delegate(func, obj, obj_name, [&](T &o) -> doca_error_t {
        if (!o.is_idle())
            SC_REFUSE(DOCA_ERROR_IN_USE, "%s: the %s is %s; stop it and progress until IDLE first",
                      func, what, core::state_name(o.state()));
        if (doca_error_t rc = o.require_no_children(func); rc != DOCA_SUCCESS)
            return rc;
        delete &o;
        return DOCA_SUCCESS;
    });
}

// The destroy shape of a core object: refused unless the object says it may go
// (o.can_destroy(), which logs why not), then deleted.
template <typename T>
doca_error_t destroy_if_unused(const char *func, T *obj, const char *obj_name) noexcept
{
    return delegate(func, obj, obj_name, [](T &o) -> doca_error_t {
        if (doca_error_t rc = o.can_destroy(); rc != DOCA_SUCCESS)
            return rc;
        delete &o;
        return DOCA_SUCCESS;
    });
}

} // namespace softcomch::capi

// A pointer argument and its name, for get_into, delegate and destroy_idle.
#define SC_ARG(p) (p), #p

// For the functions that document a code of their own for a closed connection: declares `var`,
// the connection `h` names, and refuses (as SC_REQUIRE) only what is not a connection handle at
// all; `var` is then nullptr for a connection that closed and was freed since, which the
// function reports with that code. One lookup when the connection is live (the data path).
#define SC_RESOLVE_CONNECTION(var, h)                                                              \
    doca_comch_connection *const var = ::softcomch::comch::resolve(h);                             \
    if (!var && !::softcomch::comch::is_connection_handle(h))                                      \
    SC_REQUIRE(h)

// Refuses a handle that is NULL or unusable (see handle<T>), naming the exported function that
// guard() is running.
#define SC_REQUIRE(p)                                                                              \
    do {                                                                                           \
        if (const char *why_ = ::softcomch::capi::why_unusable(p))                                 \
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: " #p "%s %s", ::softcomch::api_function(),    \
                      ::softcomch::capi::address_of(p).text, why_);                                \
    } while (0)
