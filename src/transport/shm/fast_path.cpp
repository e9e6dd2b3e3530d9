// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/fast_path.hpp"

#include <string>

#include "transport/shm/shm.hpp"

namespace softcomch::transport::shm {

// ---- memory_export ----

memory_export::memory_export() noexcept : transport::memory_export(traits::ops()) {}

const char *memory_export::mechanism_name() const noexcept
{
    return memory_mechanism_name(memory_mechanism(exported_.desc.mechanism));
}

doca_error_t memory_export::release() noexcept
{
    return unexport_memory(exported_);
}

// ---- write_plan ----

std::string write_plan::describe() const
{
    return std::string("copy policy ") + copy_policy_name(plan.policy) + ", cache budget " +
           std::to_string(plan.cache_budget) + " bytes";
}

// ---- consumer_endpoint ----

consumer_endpoint::consumer_endpoint() noexcept : transport::consumer_endpoint(traits::ops()) {}

doca_error_t consumer_endpoint::create(const consumer_params &p, const exported_memory &memory,
                                       std::unique_ptr<transport::consumer_endpoint> &out) noexcept
{
    std::unique_ptr<consumer_endpoint> e(new (std::nothrow) consumer_endpoint());
    if (!e)
        return DOCA_ERROR_NO_MEMORY;
    e->params_ = p;
    fast_channel_params params;
    params.num_tasks = p.num_tasks;
    params.imm_data_len = p.imm_data_len;
    params.consumer_id = p.consumer_id;
    doca_error_t rc;
    if ((rc = fast_channel::create(params, e->channel_)) != DOCA_SUCCESS ||
        (rc = e->queue_.attach(e->channel_)) != DOCA_SUCCESS ||
        (rc = wake_listener::create(e->wake_, e->wake_send_end_)) != DOCA_SUCCESS)
        return rc;
    if (memory.range.valid() && memory.range.has_edges()) {
        e->posted_addr_.reset(new (std::nothrow) uint64_t[p.num_tasks]());
        if (!e->posted_addr_)
            return DOCA_ERROR_NO_MEMORY;
        e->edges_ = &memory.range;
    }
    out = std::move(e);
    return DOCA_SUCCESS;
}

size_t consumer_endpoint::handles(watch_handle (&out)[k_max_handles]) const noexcept
{
    return watch_readable(out, wake_.fd());
}

void consumer_endpoint::deliver(const fast_completion &c) noexcept
{
    // peek() validated the task (posted, outstanding) and the length (at most what was posted).
    if (c.status == 0 && c.len != 0)
        deliver_edges(*edges_, posted_addr_[c.task], c.len);
    delivered_ = true;
}

// ---- remote_consumer ----

remote_consumer::remote_consumer(uint32_t id, uint32_t imm_data_len) noexcept
    : transport::remote_consumer(traits::ops(), id, imm_data_len)
{}

doca_error_t remote_consumer::attach(uint32_t id, uint32_t imm_data_len, int channel_fd,
                                     uint64_t channel_size, int memory_fd, const memory_desc &d,
                                     wake_target wake, int pidfd,
                                     std::unique_ptr<transport::remote_consumer> &out) noexcept
{
    std::unique_ptr<remote_consumer> r(new (std::nothrow) remote_consumer(id, imm_data_len));
    if (!r)
        return DOCA_ERROR_NO_MEMORY;
    doca_error_t rc = fast_channel::attach(channel_fd, channel_size, r->channel_);
    if (rc == DOCA_SUCCESS)
        rc = r->queue_.attach(r->channel_);
    if (rc == DOCA_SUCCESS)
        rc = map_peer(memory_fd, d, r->memory_, pidfd);
    if (rc != DOCA_SUCCESS)
        return rc;
    r->wake_ = std::move(wake);
    out = std::move(r);
    return DOCA_SUCCESS;
}

} // namespace softcomch::transport::shm
