// SPDX-License-Identifier: Apache-2.0
#include "core/graph.hpp"

#include <algorithm>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/ctx.hpp"
#include "core/pe.hpp"
#include "core/task.hpp"

namespace {

const char *kind_name(doca_graph_node::kind k) noexcept
{
    switch (k) {
    case doca_graph_node::kind::ctx:
        return "context";
    case doca_graph_node::kind::user:
        return "user";
    case doca_graph_node::kind::sub_graph:
        return "sub-graph";
    }
    return "?";
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The graph

doca_graph::doca_graph(doca_pe *pe) noexcept : pe_(pe)
{
    pe_->graph_created();
}

doca_graph::~doca_graph()
{
    for (const auto &n : nodes_)
        if (n->node_kind == doca_graph_node::kind::sub_graph)
            --n->sub->used_as_sub_;
    pe_->graph_destroyed();
}

doca_error_t doca_graph::require_stopped(const char *func) const noexcept
{
    if (!started_)
        return DOCA_SUCCESS;
    SC_LOG_ERR("%s: the graph is started; stop it first (doca_graph_stop)", func);
    return DOCA_ERROR_BAD_STATE;
}

doca_error_t doca_graph::set_conf(doca_graph_completion_cb_t ok, doca_graph_completion_cb_t err,
                                  uint32_t num_instances)
{
    const char *func = "doca_graph_set_conf";
    if (doca_error_t rc = require_stopped(func); rc != DOCA_SUCCESS)
        return rc;
    if (!ok || !err) {
        SC_LOG_ERR("%s: the %s callback is NULL", func, ok ? "error" : "completion");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (num_instances == 0) {
        SC_LOG_ERR("%s: the number of instances is 0", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    ok_ = ok;
    err_ = err;
    max_instances_ = num_instances;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::set_user_data(union doca_data d)
{
    if (doca_error_t rc = require_stopped("doca_graph_set_user_data"); rc != DOCA_SUCCESS)
        return rc;
    user_data_ = d;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::add_node(doca_graph_node::kind k, doca_graph_node **out)
{
    nodes_.push_back(std::make_unique<doca_graph_node>(this, uint32_t(nodes_.size()), k));
    *out = nodes_.back().get();
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::add_ctx_node(const doca_ctx *ctx, doca_graph_node **out)
{
    if (doca_error_t rc = require_stopped("doca_graph_node_create_from_ctx"); rc != DOCA_SUCCESS)
        return rc;
    doca_graph_node *n = nullptr;
    add_node(doca_graph_node::kind::ctx, &n);
    n->ctx = ctx;
    *out = n;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::add_user_node(doca_graph_user_node_cb_t cb, doca_graph_node **out)
{
    if (doca_error_t rc = require_stopped("doca_graph_node_create_from_user"); rc != DOCA_SUCCESS)
        return rc;
    doca_graph_node *n = nullptr;
    add_node(doca_graph_node::kind::user, &n);
    n->cb = cb;
    *out = n;
    return DOCA_SUCCESS;
}

bool doca_graph::contains(const doca_graph *target) const noexcept
{
    if (this == target)
        return true;
    for (const auto &n : nodes_)
        if (n->node_kind == doca_graph_node::kind::sub_graph && n->sub->contains(target))
            return true;
    return false;
}

doca_error_t doca_graph::add_sub_graph_node(doca_graph *sub, doca_graph_node **out)
{
    const char *func = "doca_graph_node_create_from_graph";
    if (doca_error_t rc = require_stopped(func); rc != DOCA_SUCCESS)
        return rc;
    if (sub->contains(this)) {
        SC_LOG_ERR("%s: the sub-graph is this graph or runs it: the graph would contain itself",
                   func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!sub->started_) {
        SC_LOG_ERR("%s: the sub-graph is not started (doca_graph_start)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (sub->pe_ != pe_) {
        SC_LOG_ERR("%s: the sub-graph runs on another progress engine", func);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_graph_node *n = nullptr;
    add_node(doca_graph_node::kind::sub_graph, &n);
    n->sub = sub;
    ++sub->used_as_sub_;
    *out = n;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::add_dependency(doca_graph_node *from, doca_graph_node *to)
{
    const char *func = "doca_graph_add_dependency";
    if (doca_error_t rc = require_stopped(func); rc != DOCA_SUCCESS)
        return rc;
    if (from->graph != this || to->graph != this) {
        SC_LOG_ERR("%s: the %s node belongs to another graph", func,
                   from->graph != this ? "'from'" : "'to'");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (from == to) {
        SC_LOG_ERR("%s: a node cannot depend on itself", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (std::find(from->successors.begin(), from->successors.end(), to->index) !=
        from->successors.end())
        return DOCA_SUCCESS; // already there: nothing changes
    // A cycle would close if `from` is reachable from `to`.
    std::vector<uint32_t> stack{to->index};
    std::vector<bool> seen(nodes_.size(), false);
    while (!stack.empty()) {
        const uint32_t i = stack.back();
        stack.pop_back();
        if (i == from->index) {
            SC_LOG_ERR("%s: the dependency would close a cycle (the 'from' node already depends "
                       "on the 'to' node)",
                       func);
            return DOCA_ERROR_NOT_PERMITTED;
        }
        if (seen[i])
            continue;
        seen[i] = true;
        for (uint32_t s : nodes_[i]->successors)
            stack.push_back(s);
    }
    from->successors.push_back(to->index);
    ++to->num_deps;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::start()
{
    const char *func = "doca_graph_start";
    if (started_)
        return DOCA_SUCCESS;
    if (!ok_) {
        SC_LOG_ERR("%s: the graph is not configured (doca_graph_set_conf)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    bool has_ctx = false;
    for (const auto &n : nodes_) {
        if (n->node_kind == doca_graph_node::kind::sub_graph && !n->sub->started_) {
            SC_LOG_ERR("%s: the sub-graph of node %u was stopped", func, n->index);
            return DOCA_ERROR_BAD_STATE;
        }
        if (n->node_kind != doca_graph_node::kind::ctx)
            continue;
        has_ctx = true;
        const doca_ctx *c = n->ctx;
        if (!c->tag_.is(softcomch::object_kind::ctx)) {
            SC_LOG_ERR("%s: the context of node %u was destroyed", func, n->index);
            return DOCA_ERROR_BAD_STATE;
        }
        if (c->pe() != pe_) {
            SC_LOG_ERR("%s: the %s context of node %u is not connected to the graph's progress "
                       "engine (doca_pe_connect_ctx)",
                       func, c->kind_name(), n->index);
            return DOCA_ERROR_BAD_STATE;
        }
        if (c->state() != DOCA_CTX_STATE_RUNNING) {
            SC_LOG_ERR("%s: the %s context of node %u is %s; start the contexts first", func,
                       c->kind_name(), n->index, softcomch::core::state_name(c->state()));
            return DOCA_ERROR_BAD_STATE;
        }
    }
    if (!has_ctx) {
        SC_LOG_ERR("%s: the graph has no context node (doca_graph_node_create_from_ctx)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    started_ = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::stop()
{
    if (!started_)
        return DOCA_SUCCESS;
    if (instances_ != 0) {
        SC_LOG_ERR("doca_graph_stop: %u instance(s) of the graph exist; destroy them first "
                   "(doca_graph_instance_destroy)",
                   instances_);
        return DOCA_ERROR_IN_USE;
    }
    started_ = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::can_destroy() const noexcept
{
    if (doca_error_t rc = require_stopped("doca_graph_destroy"); rc != DOCA_SUCCESS)
        return rc;
    if (used_as_sub_ != 0) {
        SC_LOG_ERR("doca_graph_destroy: %u node(s) of other graphs run this graph; destroy those "
                   "graphs first",
                   used_as_sub_);
        return DOCA_ERROR_IN_USE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_graph::create_instance(doca_graph_instance **out) const
{
    const char *func = "doca_graph_instance_create";
    if (!started_) {
        SC_LOG_ERR("%s: the graph is not started (doca_graph_start)", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (instances_ >= max_instances_) {
        SC_LOG_ERR("%s: the graph's %u instances exist already (doca_graph_set_conf)", func,
                   max_instances_);
        return DOCA_ERROR_NO_MEMORY;
    }
    *out = new doca_graph_instance(this);
    return DOCA_SUCCESS;
}

// ---------------------------------------------------------------------------------------------
// Instances

doca_graph_instance::doca_graph_instance(const doca_graph *g)
    : graph_(g), slots_(g->nodes_.size()), pending_(g->nodes_.size())
{
    ready_.reserve(g->nodes_.size() + 1);
    ++g->instances_;
}

doca_graph_instance::~doca_graph_instance()
{
    for (const slot &s : slots_)
        if (s.sub)
            --s.sub->used_as_sub_;
    --graph_->instances_;
}

doca_error_t doca_graph_instance::can_destroy() const noexcept
{
    if (submitted_) {
        SC_LOG_ERR("doca_graph_instance_destroy: the instance is submitted; wait for its "
                   "completion callback");
        return DOCA_ERROR_IN_USE;
    }
    if (used_as_sub_ != 0) {
        SC_LOG_ERR("doca_graph_instance_destroy: the instance is the data of a sub-graph node of "
                   "another instance; destroy that instance first");
        return DOCA_ERROR_IN_USE;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::set_user_data(union doca_data d)
{
    if (submitted_) {
        SC_LOG_ERR("doca_graph_instance_set_user_data: the instance is submitted");
        return DOCA_ERROR_IN_USE;
    }
    user_data_ = d;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::check_node(const doca_graph_node *node, doca_graph_node::kind k,
                                             const char *func) const noexcept
{
    if (submitted_) {
        SC_LOG_ERR("%s: the instance is submitted", func);
        return DOCA_ERROR_BAD_STATE;
    }
    if (node->graph != graph_) {
        SC_LOG_ERR("%s: the node belongs to another graph than the instance's", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (node->node_kind != k) {
        SC_LOG_ERR("%s: node %u is a %s node, not a %s node", func, node->index,
                   kind_name(node->node_kind), kind_name(k));
        return DOCA_ERROR_NOT_PERMITTED;
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::set_ctx_node_data(doca_graph_node *node, doca_task *task)
{
    const char *func = "doca_graph_instance_set_ctx_node_data";
    if (doca_error_t rc = check_node(node, doca_graph_node::kind::ctx, func); rc != DOCA_SUCCESS)
        return rc;
    if (task->ctx_ != node->ctx) {
        SC_LOG_ERR("%s: the task belongs to another context than node %u's", func, node->index);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    slot &s = slots_[node->index];
    s.task = task;
    s.set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::set_user_node_data(doca_graph_node *node, void *cookie)
{
    const char *func = "doca_graph_instance_set_user_node_data";
    if (doca_error_t rc = check_node(node, doca_graph_node::kind::user, func); rc != DOCA_SUCCESS)
        return rc;
    slot &s = slots_[node->index];
    s.cookie = cookie;
    s.set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::set_sub_graph_node_data(doca_graph_node *node,
                                                          doca_graph_instance *sub)
{
    const char *func = "doca_graph_instance_set_sub_graph_node_data";
    if (doca_error_t rc = check_node(node, doca_graph_node::kind::sub_graph, func);
        rc != DOCA_SUCCESS)
        return rc;
    if (sub->graph_ != node->sub) {
        SC_LOG_ERR("%s: the instance given is not an instance of node %u's sub-graph", func,
                   node->index);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (sub->submitted_) {
        SC_LOG_ERR("%s: the sub-graph instance is submitted", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    slot &s = slots_[node->index];
    if (s.sub == sub)
        return DOCA_SUCCESS;
    // One instance runs in one place at a time: a second slot naming it would run it twice.
    if (sub->used_as_sub_ != 0) {
        SC_LOG_ERR("%s: the sub-graph instance is already the data of another node", func);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (s.sub)
        --s.sub->used_as_sub_;
    s.sub = sub;
    ++sub->used_as_sub_;
    s.set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance::submit()
{
    const char *func = "doca_graph_instance_submit";
    if (submitted_) {
        SC_LOG_ERR("%s: the instance is already submitted", func);
        return DOCA_ERROR_IN_USE;
    }
    if (used_as_sub_ != 0) {
        SC_LOG_ERR("%s: the instance is the data of a sub-graph node; it runs with its parent",
                   func);
        return DOCA_ERROR_IN_USE;
    }
    if (!graph_->started_) {
        SC_LOG_ERR("%s: the graph is stopped", func);
        return DOCA_ERROR_BAD_STATE;
    }
    return launch(nullptr, 0);
}

doca_error_t doca_graph_instance::launch(doca_graph_instance *parent, uint32_t parent_node)
{
    const char *func = "doca_graph_instance_submit";
    const auto &nodes = graph_->nodes_;
    // Every node has its data (checked through sub-graphs too: nothing starts unless all can).
    for (const auto &n : nodes) {
        const slot &s = slots_[n->index];
        if (!s.set) {
            SC_LOG_ERR("%s: %s node %u has no data in this instance "
                       "(doca_graph_instance_set_*_node_data)",
                       func, kind_name(n->node_kind), n->index);
            return DOCA_ERROR_INVALID_VALUE;
        }
        if (s.sub && s.sub->submitted_) {
            SC_LOG_ERR("%s: the sub-graph instance of node %u is submitted", func, n->index);
            return DOCA_ERROR_IN_USE;
        }
    }
    for (const auto &n : nodes)
        pending_[n->index] = n->num_deps;
    ready_.clear();
    ready_head_ = 0;
    in_flight_ = 0;
    remaining_ = uint32_t(nodes.size());
    status_ = DOCA_SUCCESS;
    finishing_ = false;
    parent_ = parent;
    parent_node_ = parent_node;
    submitted_ = true;
    launching_ = true; // no completion while the roots start: see below
    for (const auto &n : nodes)
        if (n->num_deps == 0 && status_ == DOCA_SUCCESS)
            start_node(n->index);
    launching_ = false;
    // A root that could not even be submitted, with nothing of the instance under way: the
    // instance never ran, and the program hears it from this call rather than a callback.
    if (status_ != DOCA_SUCCESS && in_flight_ == 0 && parent == nullptr) {
        const doca_error_t rc = status_;
        submitted_ = false;
        finishing_ = false;
        ready_.clear();
        ready_head_ = 0;
        return rc;
    }
    maybe_finish();
    return DOCA_SUCCESS;
}

void doca_graph_instance::start_node(uint32_t node)
{
    const doca_graph_node &n = *graph_->nodes_[node];
    slot &s = slots_[node];
    ++in_flight_;
    switch (n.node_kind) {
    case doca_graph_node::kind::ctx: {
        doca_task *t = s.task;
        if (!t->tag_.is(softcomch::object_kind::task) || t->ctx_ != n.ctx) {
            SC_LOG_ERR("graph instance %p: the task of node %u was freed",
                       static_cast<void *>(this), node);
            node_done(node, DOCA_ERROR_INVALID_VALUE);
            return;
        }
        t->graph_instance_ = this;
        t->graph_node_ = node;
        const doca_error_t rc =
            doca_ctx::program_submit(t, false, "doca_graph_instance_submit (context node)");
        if (rc != DOCA_SUCCESS) {
            t->graph_instance_ = nullptr;
            SC_LOG_INFO("graph instance %p: the task of node %u was not submitted (%s); the "
                        "instance fails",
                        static_cast<void *>(this), node, softcomch::error_name(rc));
            node_done(node, rc);
        }
        return;
    }
    case doca_graph_node::kind::user:
        queue(node);
        return;
    case doca_graph_node::kind::sub_graph:
        if (doca_error_t rc = s.sub->launch(this, node); rc != DOCA_SUCCESS)
            node_done(node, rc);
        return;
    }
}

void doca_graph_instance::task_done(uint32_t node, doca_error_t status) noexcept
{
    node_done(node, status);
}

void doca_graph_instance::node_done(uint32_t node, doca_error_t status) noexcept
{
    --in_flight_;
    --remaining_;
    if (status != DOCA_SUCCESS) {
        if (status_ == DOCA_SUCCESS)
            status_ = status;
    } else if (status_ == DOCA_SUCCESS) {
        for (uint32_t succ : graph_->nodes_[node]->successors)
            if (--pending_[succ] == 0 && status_ == DOCA_SUCCESS)
                start_node(succ);
    }
    maybe_finish();
}

void doca_graph_instance::maybe_finish() noexcept
{
    if (!submitted_ || finishing_ || launching_ || in_flight_ != 0)
        return;
    if (remaining_ != 0 && status_ == DOCA_SUCCESS)
        return; // cannot happen in an acyclic graph: something is always in flight or done
    finishing_ = true;
    if (parent_ != nullptr) {
        doca_graph_instance *p = parent_;
        const uint32_t pn = parent_node_;
        submitted_ = false;
        finishing_ = false;
        parent_ = nullptr;
        p->node_done(pn, status_);
        return;
    }
    queue(k_completion);
}

void doca_graph_instance::queue(uint32_t node) noexcept
{
    ready_.push_back(node); // reserved for every node and the completion: never reallocates
    if (!scheduled_) {
        scheduled_ = true;
        graph_->pe_->schedule_graph(this);
    }
}

unsigned doca_graph_instance::run_ready()
{
    unsigned n = 0;
    while (ready_head_ < ready_.size()) {
        const uint32_t node = ready_[ready_head_++];
        ++n;
        if (node == k_completion) {
            // The last thing done with the instance: the callback may submit it again or
            // destroy it.
            ready_.clear();
            ready_head_ = 0;
            submitted_ = false;
            finishing_ = false;
            const doca_graph *g = graph_;
            const doca_error_t status = status_;
            if (status != DOCA_SUCCESS)
                SC_LOG_DBG("graph instance %p failed: %s", static_cast<void *>(this),
                           softcomch::error_name(status));
            (status == DOCA_SUCCESS ? g->ok_ : g->err_)(this, user_data_, g->user_data_);
            return n;
        }
        if (status_ != DOCA_SUCCESS) {
            // Queued before a failure: it does not run.
            node_done(node, status_);
            continue;
        }
        const doca_error_t rc = graph_->nodes_[node]->cb(slots_[node].cookie);
        if (rc != DOCA_SUCCESS)
            SC_LOG_INFO("graph instance %p: user node %u returned %s; the instance fails",
                        static_cast<void *>(this), node, softcomch::error_name(rc));
        node_done(node, rc);
    }
    ready_.clear();
    ready_head_ = 0;
    return n;
}

namespace softcomch::core {

bool graph_task_done(doca_task *t) noexcept
{
    doca_graph_instance *inst = t->graph_instance_;
    if (inst == nullptr)
        return false;
    const uint32_t node = t->graph_node_;
    t->graph_instance_ = nullptr;
    const doca_error_t status = t->status_;
    if (t->abandoned_)
        t->ctx_->free_task(t); // freed by the program while in flight: back to its pool
    else
        t->state_ = task_state::allocated;
    inst->task_done(node, status);
    return true;
}

} // namespace softcomch::core
