// SPDX-License-Identifier: Apache-2.0
//
// DOCA 2.7 introduced doca_comch with two server functions that 2.8 renamed
// (docs/generations.md): programs built against 2.7 call them by their first names, which
// libdoca_comch keeps as thunks over the current ones.
#define DOCA_ALLOW_EXPERIMENTAL_API

#include <doca_comch.h>

#include "compat/pun.hpp"

using softcomch::compat::forward;

doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
                                               struct doca_dev_rep **repr)
{
    return forward<doca_error_t>(&doca_comch_server_get_device_rep, comch_server, repr);
}

doca_error_t doca_comch_server_event_connection_register(
    struct doca_comch_server *comch_server,
    doca_comch_event_connection_status_changed_cb_t connect_event_cb,
    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
    return forward<doca_error_t>(&doca_comch_server_event_connection_status_changed_register,
                                 comch_server, connect_event_cb, disconnect_event_cb);
}
