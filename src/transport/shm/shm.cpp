// SPDX-License-Identifier: Apache-2.0
//
// The operations of the shm transport (transport_ops, transport.hpp): servers are Unix sockets
// in the fabric directory (fabric.hpp), connections shared-memory segments (link.hpp), consumer
// memory is shared or written with process_vm_writev (shared_memory.hpp, SOFTCOMCH_MEMORY), and
// producers copy as SOFTCOMCH_COPY says; DMA's exported ranges are read and written with
// process_vm_readv/writev (region.hpp).
#include "transport/shm/shm.hpp"

#include <unistd.h>

#include <system_error>

#include "common/error_names.hpp"
#include "transport/shm/counter.hpp"
#include "transport/shm/region.hpp"

namespace softcomch::transport::shm {

namespace {

doca_error_t open_listener(const endpoint_info &requested,
                           std::unique_ptr<transport::listener> &out, std::string &why)
{
    endpoint_info info = requested;
    const std::string fabric = fabric_name();
    std::unique_ptr<listener> l;
    doca_error_t rc = DOCA_ERROR_NOT_FOUND;
    // NOT_FOUND: the fabric directory went between our mkdir and our bind (its last endpoint
    // left and removed it, release_fabric_dir): make it again and retry.
    for (int attempt = 0; attempt < 4 && rc == DOCA_ERROR_NOT_FOUND; ++attempt) {
        try {
            info.socket_path = endpoint_socket_path(fabric_dir(fabric), info.key);
        } catch (const std::system_error &e) {
            why = "cannot use fabric '" + fabric + "': " + e.what();
            return DOCA_ERROR_INITIALIZATION;
        }
        rc = listener::open(info, l);
    }
    if (rc == DOCA_ERROR_ALREADY_EXIST)
        return rc;
    if (rc != DOCA_SUCCESS) {
        why = "cannot listen at " + info.socket_path + ": " + softcomch::error_name(rc);
        return DOCA_ERROR_INITIALIZATION;
    }
    out = std::move(l);
    return DOCA_SUCCESS;
}

doca_error_t start_connector(const endpoint_key &key, const link_params &params,
                             std::unique_ptr<transport::connector> &out, std::string &why)
{
    const std::string fabric = fabric_name();
    std::string dir;
    try {
        dir = fabric_dir(fabric);
        // The connector builds this path on every attempt, inside progress: an unusable one
        // (too long for a Unix socket) is refused here, at doca_ctx_start.
        (void)endpoint_socket_path(dir, key);
    } catch (const std::system_error &e) {
        why = "cannot use fabric '" + fabric + "': " + e.what();
        return DOCA_ERROR_INITIALIZATION;
    }
    out = std::make_unique<connector>(std::move(dir), key, params, int(::getpid()));
    return DOCA_SUCCESS;
}

doca_error_t export_consumer_memory(void *addr, size_t len,
                                    std::unique_ptr<transport::memory_export> &out,
                                    std::string &why)
{
    memory_policy policy;
    if (memory_policy_from_env(&policy) != DOCA_SUCCESS) {
        why = std::string(k_memory_env) + " is not one of auto, shared, pvw";
        return DOCA_ERROR_BAD_CONFIG;
    }
    auto m = std::make_unique<memory_export>();
    const doca_error_t rc = export_memory(addr, len, policy, m->exported());
    if (rc != DOCA_SUCCESS)
        return rc;
    out = std::move(m);
    return DOCA_SUCCESS;
}

doca_error_t create_consumer(const consumer_params &params, const transport::memory_export &memory,
                             std::unique_ptr<transport::consumer_endpoint> &out)
{
    // Objects of one transport only meet each other (transport.hpp).
    if (&memory.ops() != &traits::ops())
        return DOCA_ERROR_INVALID_VALUE;
    return consumer_endpoint::create(params, static_cast<const memory_export &>(memory).exported(),
                                     out);
}

doca_error_t create_write_plan(std::unique_ptr<transport::write_plan> &out, std::string &why)
{
    copy_plan plan;
    if (copy_plan_from_env(&plan) != DOCA_SUCCESS) {
        why = std::string(k_copy_env) + " is not one of auto, cached, streaming";
        return DOCA_ERROR_BAD_CONFIG;
    }
    out = std::make_unique<write_plan>(plan);
    return DOCA_SUCCESS;
}

} // namespace

const transport_ops &traits::ops() noexcept
{
    // Descriptors: a connection holds its socket and two eventfds (the segment's memfd is
    // closed once mapped); a handshake its socket and, once HELLO arrived, the client's eventfd.
    static const transport_ops ops{"shm",
                                   &open_listener,
                                   &start_connector,
                                   &export_consumer_memory,
                                   &create_consumer,
                                   &create_write_plan,
                                   &export_region,
                                   &import_region,
                                   &export_counter,
                                   &import_counter,
                                   3,
                                   2};
    return ops;
}

} // namespace softcomch::transport::shm
