/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_graph.h
 * @brief DOCA graphs (part of DOCA Core, libdoca_common): a set of nodes (a context's task, a
 * program callback, or an instance of another graph) with dependencies between them, run as a
 * whole on a progress engine, as many times and as many instances at once as configured.
 *
 * A graph is created on a progress engine, given nodes and dependencies (no cycles), configured
 * (doca_graph_set_conf()) and started once every context of its context nodes runs. An instance
 * holds what each node works on (a task of the node's context, a cookie for a callback, an
 * instance of the sub-graph) and is submitted; a node starts when every node it depends on has
 * completed, the root nodes at once. The instance completes when every node has, through the
 * graph's completion callback, or, if a node failed, through its error callback once the nodes
 * still in flight are done (no node starts after a failure). An instance may be submitted again
 * after it completed.
 *
 * SoftComch behaviour:
 * - Everything the graph calls (user nodes, the instance callbacks) runs inside doca_pe_progress()
 *   of the graph's engine; doca_graph_instance_submit() only submits the root tasks (a root user
 *   node runs on the next progress call).
 * - The completion and error callbacks of a task that runs inside a graph are not called.
 * - A task submission that fails when its node starts fails the node; doca_graph_instance_submit()
 *   returns that error when nothing of the instance is in flight yet.
 *
 * Thread safety: a graph and its instances are used from the thread of their progress engine.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_pe;
struct doca_task;

struct doca_graph;          /**< a graph */
struct doca_graph_node;     /**< a node of a graph */
struct doca_graph_instance; /**< an instance of a graph */

/**
 * @brief Called when an instance completed (all its nodes succeeded) or failed, inside
 * doca_pe_progress(). The instance is the program's again (it may submit it again or destroy it).
 */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance,
					   union doca_data instance_user_data,
					   union doca_data graph_user_data);

/**
 * @brief A user node's callback, with the cookie the instance set for the node. Returning
 * anything but DOCA_SUCCESS fails the instance.
 */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/**
 * @brief Creates an empty graph on a progress engine.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/**
 * @brief Destroys a graph and its nodes. It must be stopped.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or destroyed graph;
 * DOCA_ERROR_BAD_STATE for a started graph.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_destroy(struct doca_graph *graph);

/**
 * @brief The callbacks of the graph's instances and how many instances may exist at once. Only
 * before start.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or 0 instances;
 * DOCA_ERROR_BAD_STATE for a started graph.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_conf(struct doca_graph *graph,
						   doca_graph_completion_cb_t graph_completion_cb,
						   doca_graph_completion_cb_t graph_error_cb,
						   uint32_t num_instances);

/**
 * @brief The graph's user data, given to the instance callbacks. Only before start.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE for a started graph.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

/** @brief The graph's user data. DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/**
 * @brief A node that runs a task of `ctx` (the task is set per instance). Only before start; the
 * graph owns the node.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE for a
 * started graph; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph,
							       const struct doca_ctx *ctx,
							       struct doca_graph_node **node);

/** @brief A node that calls `cb` with the instance's cookie; as doca_graph_node_create_from_ctx(). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph,
								doca_graph_user_node_cb_t cb,
								struct doca_graph_node **node);

/**
 * @brief A node that runs an instance of another, started graph.
 * @return as doca_graph_node_create_from_ctx(); DOCA_ERROR_BAD_STATE also for a sub-graph that
 * is not started; DOCA_ERROR_NOT_PERMITTED for the graph itself.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph,
								 struct doca_graph *sub_graph,
								 struct doca_graph_node **node);

/**
 * @brief Makes `to` start only after `from` completed. Only before start.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or nodes of another graph;
 * DOCA_ERROR_BAD_STATE for a started graph; DOCA_ERROR_NOT_PERMITTED when it would close a cycle.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_add_dependency(struct doca_graph *graph,
							 struct doca_graph_node *from,
							 struct doca_graph_node *to);

/**
 * @brief Starts the graph: instances may be created from now on. It needs its configuration, at
 * least one context node, and every context of its context nodes RUNNING.
 * @return DOCA_SUCCESS (also for a graph already started); DOCA_ERROR_INVALID_VALUE;
 * DOCA_ERROR_BAD_STATE when one of those is missing.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_start(struct doca_graph *graph);

/**
 * @brief Stops the graph. Every instance must have been destroyed.
 * @return DOCA_SUCCESS (also for a stopped graph); DOCA_ERROR_INVALID_VALUE;
 * DOCA_ERROR_IN_USE while instances exist.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_stop(struct doca_graph *graph);

/**
 * @brief Creates an instance of a started graph.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE for a graph not started;
 * DOCA_ERROR_NO_MEMORY when the configured number of instances exists already.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
							  struct doca_graph_instance **graph_instance);

/**
 * @brief Destroys an instance that is not in flight (its tasks stay the program's).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_IN_USE while submitted or while it
 * is the data of another instance's sub-graph node.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/** @brief The instance's user data. DOCA_ERROR_IN_USE while submitted. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
								 union doca_data user_data);

/** @brief The instance's user data. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
								 union doca_data *user_data);

/**
 * @brief The task a context node runs in this instance: a task of the node's context, which must
 * outlive the instance.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE while
 * submitted; DOCA_ERROR_NOT_PERMITTED for a node of another graph or of another kind, or a task
 * of another context.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
								     struct doca_graph_node *node,
								     struct doca_task *task);

/** @brief The cookie a user node gets in this instance; as doca_graph_instance_set_ctx_node_data(). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
								      struct doca_graph_node *node,
								      void *cookie);

/**
 * @brief The instance a sub-graph node runs in this instance: an instance of the node's graph,
 * not submitted; as doca_graph_instance_set_ctx_node_data().
 */
DOCA_EXPERIMENTAL doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
					    struct doca_graph_node *node,
					    struct doca_graph_instance *sub_graph_instance);

/**
 * @brief Submits the instance: its root nodes start. Every node must have its data.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a node without data;
 * DOCA_ERROR_IN_USE for an instance in flight; the error of a root task's submission when
 * nothing of the instance is in flight.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
