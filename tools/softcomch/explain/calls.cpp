// SPDX-License-Identifier: Apache-2.0
//
// softcomch explain: the call table (explain.hpp) and the rows many calls share.
#include "explain.hpp"

namespace softcomch::tools::explain {

const char *origin_name(origin o) noexcept
{
    switch (o) {
    case origin::doca:
        return "DOCA";
    case origin::softcomch:
        return "SoftComch";
    case origin::both:
        return "DOCA and SoftComch";
    }
    return "?";
}

call_row bad_handle()
{
    return {DOCA_ERROR_INVALID_VALUE,
            "a NULL argument, or an object that was destroyed or is of another kind (the SDK "
            "error line names the argument)",
            "pass live objects: check that their create call succeeded and that nothing "
            "destroyed them",
            origin::both};
}

call_row not_idle()
{
    return {DOCA_ERROR_BAD_STATE,
            "the context is not IDLE: configuration is accepted only between create and "
            "doca_ctx_start",
            "configure before doca_ctx_start, or stop the context and progress until IDLE first",
            origin::both};
}

call_row not_running(std::string_view what)
{
    return {DOCA_ERROR_BAD_STATE,
            "the " + std::string(what) + " is not RUNNING: tasks are allocated only while it runs",
            "wait for RUNNING (the state callback) before allocating", origin::both};
}

call_row out_of_range(std::string_view what, std::string_view cap_query)
{
    return {DOCA_ERROR_INVALID_VALUE,
            "the " + std::string(what) + " is 0 or above the device's maximum (" +
                std::string(cap_query) + ")",
            "query " + std::string(cap_query) + " on the device and stay within it", origin::both};
}

call_row destroy_not_idle(std::string_view what)
{
    return {DOCA_ERROR_IN_USE,
            "the " + std::string(what) + " is not IDLE (STARTING, RUNNING or STOPPING)",
            "doca_ctx_stop, progress until the state callback reports IDLE, then destroy",
            origin::both};
}

call_row no_dpa()
{
    return {DOCA_ERROR_NOT_SUPPORTED,
            "the emulated device has no DPA: DPA data paths and MsgQ are not available",
            "run DPA code on a BlueField; with SoftComch use the host-side (CPU) consumer and "
            "producer",
            origin::softcomch};
}

call_entry no_status(std::string name, std::string returns, std::string summary)
{
    return {std::move(name), std::move(returns), std::move(summary), {}};
}

const std::vector<call_entry> &calls()
{
    static const std::vector<call_entry> table = [] {
        std::vector<call_entry> t;
        add_comch_calls(t);
        add_fastpath_calls(t);
        add_core_calls(t);
        add_engine_calls(t);
        add_generation_calls(t);
        return t;
    }();
    return table;
}

const call_entry *find_call(std::string_view name)
{
    for (const auto &c : calls())
        if (c.name == name)
            return &c;
    return nullptr;
}

} // namespace softcomch::tools::explain
