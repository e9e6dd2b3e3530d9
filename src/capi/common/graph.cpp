// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_graph.h (DOCA Core: libdoca_common): argument checks and delegation only.
#include <doca_graph.h>

#include "capi/handle.hpp"
#include "core/ctx.hpp"
#include "core/graph.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"

namespace softcomch::capi {

SC_HANDLE(doca_graph, "a valid", "destroyed or foreign", p->tag_.is(object_kind::graph));
SC_HANDLE(doca_graph_node, "a valid", "destroyed with its graph, or foreign",
          p->tag_.is(object_kind::graph_node));
SC_HANDLE(doca_graph_instance, "a valid", "destroyed or foreign",
          p->tag_.is(object_kind::graph_instance));

} // namespace softcomch::capi

using namespace softcomch::capi;

extern "C" {

doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(pe);
        SC_CHECK_NOT_NULL(graph);
        *graph = new doca_graph(pe);
        return DOCA_SUCCESS;
    });
}

doca_error_t doca_graph_destroy(struct doca_graph *graph)
{
    return destroy_if_unused(__func__, SC_ARG(graph));
}

doca_error_t doca_graph_set_conf(struct doca_graph *graph,
                                 doca_graph_completion_cb_t graph_completion_cb,
                                 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances)
{
    return delegate(__func__, SC_ARG(graph), [&](doca_graph &g) {
        return g.set_conf(graph_completion_cb, graph_error_cb, num_instances);
    });
}

doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data)
{
    return delegate(__func__, SC_ARG(graph),
                    [&](doca_graph &g) { return g.set_user_data(user_data); });
}

doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data)
{
    return get_into(__func__, SC_ARG(graph), SC_ARG(user_data),
                    [](const doca_graph &g) { return g.user_data(); });
}

doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
                                             struct doca_graph_node **node)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph);
        SC_REQUIRE(ctx);
        SC_CHECK_NOT_NULL(node);
        return graph->add_ctx_node(ctx, node);
    });
}

doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph,
                                              doca_graph_user_node_cb_t cb,
                                              struct doca_graph_node **node)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph);
        SC_CHECK_NOT_NULL(cb);
        SC_CHECK_NOT_NULL(node);
        return graph->add_user_node(cb, node);
    });
}

doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph,
                                               struct doca_graph *sub_graph,
                                               struct doca_graph_node **node)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph);
        SC_REQUIRE(sub_graph);
        SC_CHECK_NOT_NULL(node);
        return graph->add_sub_graph_node(sub_graph, node);
    });
}

doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
                                       struct doca_graph_node *to)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph);
        SC_REQUIRE(from);
        SC_REQUIRE(to);
        return graph->add_dependency(from, to);
    });
}

doca_error_t doca_graph_start(struct doca_graph *graph)
{
    return delegate(__func__, SC_ARG(graph), [](doca_graph &g) { return g.start(); });
}

doca_error_t doca_graph_stop(struct doca_graph *graph)
{
    return delegate(__func__, SC_ARG(graph), [](doca_graph &g) { return g.stop(); });
}

doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
                                        struct doca_graph_instance **graph_instance)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph);
        SC_CHECK_NOT_NULL(graph_instance);
        return graph->create_instance(graph_instance);
    });
}

doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
{
    return destroy_if_unused(__func__, SC_ARG(graph_instance));
}

doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
                                               union doca_data user_data)
{
    return delegate(__func__, SC_ARG(graph_instance),
                    [&](doca_graph_instance &i) { return i.set_user_data(user_data); });
}

doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
                                               union doca_data *user_data)
{
    return get_into(__func__, SC_ARG(graph_instance), SC_ARG(user_data),
                    [](const doca_graph_instance &i) { return i.user_data(); });
}

doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
                                                   struct doca_graph_node *node,
                                                   struct doca_task *task)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph_instance);
        SC_REQUIRE(node);
        SC_REQUIRE(task);
        if (task->state_ == softcomch::core::task_state::free)
            SC_REFUSE(DOCA_ERROR_INVALID_VALUE, "%s: the task is free (not allocated)",
                      api_function());
        return graph_instance->set_ctx_node_data(node, task);
    });
}

doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
                                                    struct doca_graph_node *node, void *cookie)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph_instance);
        SC_REQUIRE(node);
        return graph_instance->set_user_node_data(node, cookie);
    });
}

doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
                                            struct doca_graph_node *node,
                                            struct doca_graph_instance *sub_graph_instance)
{
    return guard(__func__, [&]() -> doca_error_t {
        SC_REQUIRE(graph_instance);
        SC_REQUIRE(node);
        SC_REQUIRE(sub_graph_instance);
        if (sub_graph_instance == graph_instance)
            SC_REFUSE(DOCA_ERROR_NOT_PERMITTED, "%s: an instance cannot be its own sub-graph",
                      api_function());
        return graph_instance->set_sub_graph_node_data(node, sub_graph_instance);
    });
}

doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance)
{
    return delegate(__func__, SC_ARG(graph_instance),
                    [](doca_graph_instance &i) { return i.submit(); });
}

} // extern "C"
