/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_comm_channel.h
 * @brief The legacy Comm Channel endpoint API of DOCA 1.5 to 2.8 (doca_comm_channel_*).
 *
 * One endpoint per side: the service (DPU side) sets a device and the representor of the host
 * function it serves and listens on a name; the client (host side) sets its device and connects to
 * that name, which gives it a peer address. Messages go with doca_comm_channel_ep_sendto() and come
 * with doca_comm_channel_ep_recvfrom(); both return at once (DOCA_ERROR_AGAIN when the send queue is
 * full or nothing arrived). The service learns of new clients from the messages it receives: each
 * carries its sender's peer address. A program that wants to sleep takes the endpoint's event
 * channels (file descriptors for epoll), arms the one it waits for, and waits.
 *
 * SoftComch carries this API over its Comch implementation (docs/generations.md): an endpoint is a
 * Comch server or client on a progress engine of its own, which the calls here progress (no thread
 * runs behind the program's back). Every function is DOCA_EXPERIMENTAL, as it was. Link with
 * libdoca_comm_channel (pkg-config module doca-comm-channel).
 *
 * Thread safety: an endpoint and its peer addresses are used from one thread at a time.
 */
#ifndef DOCA_COMM_CHANNEL_H_
#define DOCA_COMM_CHANNEL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Flags of doca_comm_channel_ep_sendto() and doca_comm_channel_ep_recvfrom(). */
enum doca_comm_channel_msg_flags {
	DOCA_CC_MSG_FLAG_NONE = 0, /**< the only flag */
};

struct doca_comm_channel_ep_t;   /**< a local endpoint (service or client) */
struct doca_comm_channel_addr_t; /**< a peer address: one connection */

/** @brief A file descriptor to wait on with epoll, poll or select. */
typedef doca_event_handle_t doca_event_channel_t;

/* ---------------------------------------------------------------------------------------------- */
/* Capabilities                                                                                    */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Longest service name, including the terminating NUL.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len);

/**
 * @brief Largest message the device can carry.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo,
								      uint32_t *max_message_size);

/**
 * @brief Largest send queue an endpoint on the device can have.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo,
									 uint32_t *max_send_queue_size);

/**
 * @brief Largest receive queue an endpoint on the device can have.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo,
									 uint32_t *max_recv_queue_size);

/**
 * @brief How many clients a service on the device can hold (service side).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_NOT_SUPPORTED for a
 * device that cannot run a service.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
										 uint32_t *max_num_connections);

/* ---------------------------------------------------------------------------------------------- */
/* Endpoint                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Creates an endpoint with the default properties.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep);

/** @brief The device set (NULL if none). DOCA_ERROR_INVALID_VALUE for NULL arguments. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *ep,
							       struct doca_dev **device);

/** @brief The representor set (NULL if none). DOCA_ERROR_INVALID_VALUE for NULL arguments. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *ep,
								   struct doca_dev_rep **device_rep);

/** @brief The maximum message size in use (the one set, or the default). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep,
								     uint16_t *max_msg_size);

/** @brief The send queue size in use (rounded up to a power of 2, at least 16). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t *send_queue_size);

/** @brief The receive queue size in use (rounded up to a power of 2, at least 16). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t *recv_queue_size);

/**
 * @brief Sets the device (before listen or connect).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE once active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *ep,
							       struct doca_dev *device);

/**
 * @brief Sets the representor of the host function a service serves (before listen).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE once active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *ep,
								   struct doca_dev_rep *device_rep);

/**
 * @brief Sets the maximum message size (before listen or connect; raised to the device's minimum).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or 0; DOCA_ERROR_BAD_STATE once active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep,
								     uint16_t max_msg_size);

/**
 * @brief Sets the send queue size (before listen or connect; rounded up to a power of 2).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or 0; DOCA_ERROR_BAD_STATE once active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t send_queue_size);

/**
 * @brief Sets the receive queue size (before listen or connect; rounded up to a power of 2).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or 0; DOCA_ERROR_BAD_STATE once active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t recv_queue_size);

/**
 * @brief The endpoint's event channels (after listen or connect; owned by the endpoint).
 *
 * Arm the one to wait for with doca_comm_channel_ep_event_handle_arm_send() or _arm_recv(), then
 * wait for it to become readable, then call sendto or recvfrom until DOCA_ERROR_AGAIN.
 * @param [in] local_ep the endpoint.
 * @param [out] send_event_channel readable when a send slot may have freed (may be NULL).
 * @param [out] recv_event_channel readable when a message may have arrived (may be NULL).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL endpoint or both outputs NULL;
 * DOCA_ERROR_BAD_STATE before listen or connect.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
								      doca_event_channel_t *send_event_channel,
								      doca_event_channel_t *recv_event_channel);

/**
 * @brief The service's event channel: readable when a client connected or left (service side).
 * doca_comm_channel_ep_update_service_state_info() arms it.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE before listen;
 * DOCA_ERROR_NOT_SUPPORTED on a client.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_service_event_channel(
	struct doca_comm_channel_ep_t *local_ep, doca_event_channel_t *service_event_channel);

/** @brief Arms the send event channel. DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep);

/** @brief Arms the receive event channel. DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep);

/**
 * @brief Makes the endpoint a service listening on `name` (service side).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a name too long;
 * DOCA_ERROR_BAD_STATE without a device or a representor; DOCA_ERROR_NOT_SUPPORTED on a device
 * that cannot run a service; DOCA_ERROR_NOT_PERMITTED if the endpoint is already active.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name);

/**
 * @brief Connects a client endpoint to the service `name` and gives its peer address.
 *
 * Returns once the service accepted the connection (the handshake runs inside this call), or
 * fails: a service must be listening.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments; DOCA_ERROR_BAD_STATE without a
 * device; DOCA_ERROR_NOT_SUPPORTED on a device that cannot run a client; DOCA_ERROR_NOT_PERMITTED
 * if the endpoint is already active; DOCA_ERROR_CONNECTION_ABORTED if no service accepted it.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep,
							    const char *name,
							    struct doca_comm_channel_addr_t **peer_addr);

/**
 * @brief Sends one message to a peer (the message is copied).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or a message over the maximum
 * size; DOCA_ERROR_NOT_CONNECTED for a peer address that is not connected on this endpoint;
 * DOCA_ERROR_AGAIN when the send queue is full; DOCA_ERROR_CONNECTION_RESET once the peer left.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep,
							   const void *msg,
							   size_t len,
							   int flags,
							   struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Takes the next message, and its sender's peer address.
 * @param [in] local_ep the endpoint.
 * @param [out] msg where the message goes.
 * @param [in,out] len in: the room at msg; out: the message's length.
 * @param [in] flags DOCA_CC_MSG_FLAG_NONE.
 * @param [out] peer_addr the sender.
 * @return DOCA_SUCCESS; DOCA_ERROR_AGAIN when nothing arrived; DOCA_ERROR_INVALID_VALUE for NULL
 * arguments, or a message longer than *len (it stays first in line; *len says its length);
 * DOCA_ERROR_NOT_CONNECTED before listen or connect.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep,
							     void *msg,
							     size_t *len,
							     int flags,
							     struct doca_comm_channel_addr_t **peer_addr);

/**
 * @brief Closes the connection of a peer address and frees it; a client may connect again.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_CONNECTED for an address
 * that is not this endpoint's.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
							       struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Disconnects every peer, closes the event channels and frees the endpoint.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_CONNECTED for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep);

/* ---------------------------------------------------------------------------------------------- */
/* Peer addresses                                                                                  */
/* ---------------------------------------------------------------------------------------------- */

/** @brief The value set with doca_comm_channel_peer_addr_set_user_data() (0 at first). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr,
									 uint64_t *user_data);

/** @brief Stores a value of the program's on a peer address. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
									 uint64_t user_context);

/**
 * @brief Takes a snapshot of the peer's figures and says whether it is connected.
 * @return DOCA_SUCCESS while connected; DOCA_ERROR_INVALID_VALUE for NULL;
 * DOCA_ERROR_CONNECTION_INPROGRESS while the connection is being made;
 * DOCA_ERROR_CONNECTION_ABORTED once it failed or the peer left (disconnect it to free it).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr);

/** @brief Messages sent to the peer, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_send_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_messages);

/** @brief Bytes sent to the peer, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t
doca_comm_channel_peer_addr_get_send_bytes(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_bytes);

/** @brief Messages received from the peer, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_recv_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *recv_messages);

/** @brief Bytes received from the peer, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t
doca_comm_channel_peer_addr_get_recv_bytes(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *recv_bytes);

/** @brief Messages sent to the peer and not yet completed, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_send_in_flight_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_in_flight_messages);

/* ---------------------------------------------------------------------------------------------- */
/* Service state                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

/**
 * @brief Takes a snapshot of the service's connections and arms its event channel (service side).
 * Invalidates the array of an earlier doca_comm_channel_ep_get_peer_addr_list().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED on a client;
 * DOCA_ERROR_BAD_STATE before listen.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep);

/**
 * @brief The connected peers of the last snapshot (the array is the endpoint's).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED on a client.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
					struct doca_comm_channel_addr_t ***peer_addr_array,
					uint32_t *peer_addr_array_len);

/**
 * @brief Connections of the last snapshot still in their handshake (always 0 here: the service
 * accepts a client as its handshake arrives).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED on a client.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_pending_connections(
	const struct doca_comm_channel_ep_t *local_ep, uint32_t *pending_connections);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_COMM_CHANNEL_H_ */
