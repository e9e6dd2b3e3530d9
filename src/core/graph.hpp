// SPDX-License-Identifier: Apache-2.0
//
// DOCA graphs (include/doca_graph.h): nodes (a context's task, a program callback, an instance of
// another graph) with dependencies, run as a whole on a progress engine.
//
// How an instance runs. doca_graph_instance_submit() starts the root nodes: a context node's task
// is submitted to its context at once (doca_ctx::program_submit, so every check a program's own
// submission meets applies), a user node or a sub-graph's completion is queued on the instance,
// and the instance on its engine (doca_pe::schedule_graph). The engine runs queued graph work
// inside progress (run_ready()), so the program's callbacks are called only there. A task of a
// context node carries its instance and node (doca_task::graph_*): the engine hands its
// completion to the graph (task_done()) instead of the task's callbacks. A node's completion
// starts every successor whose dependencies are all done. After a failure nothing new starts;
// the instance completes, through the graph's error callback, once its in-flight nodes are done.
// A sub-graph's instance completes into its parent's node instead of calling back.
//
// Objects: the graph owns its nodes; an instance refers to its graph and holds, per node, what
// the node works on. All of it is control-path memory, allocated before start and at instance
// creation; running an instance allocates nothing.
#pragma once

#include <doca_error.h>
#include <doca_graph.h>
#include <doca_types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "common/object_tag.hpp"
#include "common/quarantine.hpp"
#include "common/visibility.hpp"

struct doca_ctx;
struct doca_pe;
struct doca_task;

// A node. Owned by its graph; its storage is quarantined like the graph's.
struct doca_graph_node : softcomch::quarantined<doca_graph_node> {
    enum class kind : uint8_t { ctx, user, sub_graph };

    doca_graph_node(doca_graph *owner, uint32_t position, kind k) noexcept
        : graph(owner), index(position), node_kind(k)
    {}

    softcomch::object_tag tag_{softcomch::object_kind::graph_node};
    doca_graph *const graph;
    const uint32_t index;
    const kind node_kind;
    const doca_ctx *ctx = nullptr;          // kind::ctx
    doca_graph_user_node_cb_t cb = nullptr; // kind::user
    doca_graph *sub = nullptr;              // kind::sub_graph
    std::vector<uint32_t> successors;       // nodes that depend on this one
    uint32_t num_deps = 0;                  // nodes this one depends on
};

struct doca_graph : softcomch::quarantined<doca_graph> {
    SOFTCOMCH_API explicit doca_graph(doca_pe *pe) noexcept;
    SOFTCOMCH_API ~doca_graph();
    doca_graph(const doca_graph &) = delete;
    doca_graph &operator=(const doca_graph &) = delete;

    // The C API checked the handles; these check the graph's state and the arguments' relation.
    SOFTCOMCH_API doca_error_t set_conf(doca_graph_completion_cb_t ok,
                                        doca_graph_completion_cb_t err, uint32_t num_instances);
    SOFTCOMCH_API doca_error_t set_user_data(union doca_data d);
    union doca_data user_data() const noexcept { return user_data_; }
    SOFTCOMCH_API doca_error_t add_ctx_node(const doca_ctx *ctx, doca_graph_node **out);
    SOFTCOMCH_API doca_error_t add_user_node(doca_graph_user_node_cb_t cb, doca_graph_node **out);
    SOFTCOMCH_API doca_error_t add_sub_graph_node(doca_graph *sub, doca_graph_node **out);
    SOFTCOMCH_API doca_error_t add_dependency(doca_graph_node *from, doca_graph_node *to);
    SOFTCOMCH_API doca_error_t start();
    SOFTCOMCH_API doca_error_t stop();
    // doca_graph_destroy's check: stopped, and no other graph has a node on this one.
    SOFTCOMCH_API doca_error_t can_destroy() const noexcept;
    SOFTCOMCH_API doca_error_t create_instance(doca_graph_instance **out) const;

    bool started() const noexcept { return started_; }
    doca_pe *pe() const noexcept { return pe_; }
    const std::vector<std::unique_ptr<doca_graph_node>> &nodes() const noexcept { return nodes_; }
    doca_graph_completion_cb_t ok_cb() const noexcept { return ok_; }
    doca_graph_completion_cb_t err_cb() const noexcept { return err_; }

    softcomch::object_tag tag_{softcomch::object_kind::graph};

private:
    friend struct doca_graph_instance;
    doca_error_t require_stopped(const char *func) const noexcept;
    doca_error_t add_node(doca_graph_node::kind k, doca_graph_node **out);
    // Whether `target` is this graph or is reachable through its sub-graph nodes.
    bool contains(const doca_graph *target) const noexcept;

    doca_pe *const pe_;
    std::vector<std::unique_ptr<doca_graph_node>> nodes_;
    doca_graph_completion_cb_t ok_ = nullptr;
    doca_graph_completion_cb_t err_ = nullptr;
    uint32_t max_instances_ = 0;
    union doca_data user_data_ {};
    bool started_ = false;
    mutable uint32_t instances_ = 0; // live instances
    uint32_t used_as_sub_ = 0;       // nodes of other graphs that run this one
};

struct doca_graph_instance : softcomch::quarantined<doca_graph_instance> {
    explicit doca_graph_instance(const doca_graph *g);
    SOFTCOMCH_API ~doca_graph_instance();
    doca_graph_instance(const doca_graph_instance &) = delete;
    doca_graph_instance &operator=(const doca_graph_instance &) = delete;

    SOFTCOMCH_API doca_error_t can_destroy() const noexcept;
    SOFTCOMCH_API doca_error_t set_user_data(union doca_data d);
    union doca_data user_data() const noexcept { return user_data_; }
    SOFTCOMCH_API doca_error_t set_ctx_node_data(doca_graph_node *node, doca_task *task);
    SOFTCOMCH_API doca_error_t set_user_node_data(doca_graph_node *node, void *cookie);
    SOFTCOMCH_API doca_error_t set_sub_graph_node_data(doca_graph_node *node,
                                                       doca_graph_instance *sub);
    // doca_graph_instance_submit.
    SOFTCOMCH_API doca_error_t submit();

    // ---- for the progress engine ----
    // A task of one of this instance's context nodes completed with `status` (the engine took it
    // back from its context; the program owns it again).
    void task_done(uint32_t node, doca_error_t status) noexcept;
    // Runs the work queued on this instance (user nodes, completions): called by the engine
    // inside progress. Returns the number of items run. The instance may be destroyed by the
    // program's completion callback: nothing of it is touched after that call.
    unsigned run_ready();

    softcomch::object_tag tag_{softcomch::object_kind::graph_instance};
    doca_graph_instance *next_ = nullptr; // the engine's queue of instances with work
    bool scheduled_ = false;              // in that queue

private:
    struct slot {
        doca_task *task = nullptr;
        void *cookie = nullptr;
        doca_graph_instance *sub = nullptr;
        bool set = false;
    };
    // The common checks of the set_*_node_data calls: not in flight (BAD_STATE), a node of this
    // graph of kind `k` (NOT_PERMITTED).
    doca_error_t check_node(const doca_graph_node *node, doca_graph_node::kind k,
                            const char *func) const noexcept;
    // Starts the instance's root nodes; `parent`/`parent_node` when it runs as a sub-graph node.
    doca_error_t launch(doca_graph_instance *parent, uint32_t parent_node);
    // Starts `node`; a start that fails at once makes the node done, failed.
    void start_node(uint32_t node);
    void node_done(uint32_t node, doca_error_t status) noexcept;
    // Queues `node` (a user node, or kNone for the completion) and the instance on its engine.
    void queue(uint32_t node) noexcept;
    // When nothing is in flight or queued and the instance is done (all nodes, or a failure):
    // the completion is queued (or, as a sub-graph, reported to the parent's node).
    void maybe_finish() noexcept;

    static constexpr uint32_t k_completion = UINT32_MAX;

    const doca_graph *const graph_;
    union doca_data user_data_ {};
    std::vector<slot> slots_;
    std::vector<uint32_t> pending_; // per node: dependencies not yet done
    std::vector<uint32_t> ready_;   // queued user nodes (and k_completion), run in order
    size_t ready_head_ = 0;
    uint32_t in_flight_ = 0; // nodes started and not done (tasks, queued user nodes, sub-graphs)
    uint32_t remaining_ = 0; // nodes not done
    doca_error_t status_ = DOCA_SUCCESS;
    bool submitted_ = false;
    bool finishing_ = false; // the completion is queued
    bool launching_ = false; // launch() is starting the root nodes
    doca_graph_instance *parent_ = nullptr;
    uint32_t parent_node_ = 0;
    uint32_t used_as_sub_ = 0; // slots of other instances that name this one
};

namespace softcomch::core {
// The engine's side of a task that ran in a graph: hands its completion to its instance. Returns
// false when the task is not a graph's.
bool graph_task_done(doca_task *task) noexcept;
} // namespace softcomch::core
