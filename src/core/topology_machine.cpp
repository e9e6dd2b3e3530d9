// SPDX-License-Identifier: Apache-2.0
//
// machine(): the process-wide view of the topology (topology.hpp), built once from
// SOFTCOMCH_TOPOLOGY and SOFTCOMCH_SIDE.
#include "core/topology.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace softcomch::core {

std::vector<doca_devinfo *> machine_view::visible_devices() const
{
    std::vector<doca_devinfo *> out;
    if (!topo)
        return out;
    for (doca_devinfo *d : topo->devices())
        if (visible(d->side()))
            out.push_back(d);
    return out;
}

namespace {

std::mutex g_machine_mu;
std::unique_ptr<topology> g_topology;
std::unique_ptr<machine_view> g_machine;

std::unique_ptr<machine_view> load_machine()
{
    auto view = std::make_unique<machine_view>();
    const char *side_env = std::getenv("SOFTCOMCH_SIDE");
    if (side_env && *side_env) {
        if (std::strcmp(side_env, "host") == 0) {
            view->side_filter = side::host;
        } else if (std::strcmp(side_env, "dpu") == 0) {
            view->side_filter = side::dpu;
        } else {
            view->status = DOCA_ERROR_INITIALIZATION;
            view->error =
                std::string("SOFTCOMCH_SIDE=\"") + side_env +
                "\" is invalid: use \"host\" or \"dpu\", or leave it unset to see both sides";
            return view;
        }
    }
    const char *file = std::getenv("SOFTCOMCH_TOPOLOGY");
    std::string error;
    if (file && *file)
        g_topology = topology::from_file(file, &error);
    else
        g_topology = topology::builtin();
    if (!g_topology) {
        view->status = DOCA_ERROR_INITIALIZATION;
        view->error = "invalid topology (SOFTCOMCH_TOPOLOGY): " + error;
        return view;
    }
    view->topo = g_topology.get();
    return view;
}

} // namespace

const machine_view &machine()
{
    std::lock_guard<std::mutex> lock(g_machine_mu);
    if (!g_machine)
        g_machine = load_machine();
    return *g_machine;
}

void reset_machine_for_testing()
{
    std::lock_guard<std::mutex> lock(g_machine_mu);
    g_machine.reset();
    g_topology.reset();
}

} // namespace softcomch::core
