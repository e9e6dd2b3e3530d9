// SPDX-License-Identifier: Apache-2.0
#include "comch/shared_mmap.hpp"

#include <mutex>
#include <unordered_map>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/mmap.hpp"

namespace shm = softcomch::transport::shm;

namespace softcomch::comch {

namespace {
std::mutex registry_mu;
std::unordered_map<doca_mmap *, std::weak_ptr<shared_mmap>> registry;
} // namespace

shared_mmap::~shared_mmap()
{
    if (!mmap)
        return;
    // Private memory again: the peer's mapping (if any) no longer aliases ours.
    if (shm::unexport_memory(exported) != DOCA_SUCCESS)
        SC_LOG_WARN("consumer memory at %p could not be made private again; it stays shared",
                    reinterpret_cast<void *>(exported.desc.addr));
    std::lock_guard<std::mutex> g(registry_mu);
    auto it = registry.find(mmap);
    if (it != registry.end() && it->second.expired())
        registry.erase(it);
}

std::shared_ptr<shared_mmap> share_mmap(doca_mmap *mmap, doca_error_t &rc)
{
    std::lock_guard<std::mutex> g(registry_mu);
    if (auto it = registry.find(mmap); it != registry.end())
        if (auto existing = it->second.lock())
            return existing;
    shm::memory_policy policy;
    if ((rc = shm::memory_policy_from_env(&policy)) != DOCA_SUCCESS) {
        SC_LOG_ERR("%s is not one of auto, shared, pvw", shm::k_memory_env);
        return nullptr;
    }
    auto sm = std::make_shared<shared_mmap>();
    sm->mmap = mmap;
    rc = shm::export_memory(mmap->addr(), mmap->len(), policy, sm->exported);
    if (rc != DOCA_SUCCESS) {
        SC_LOG_ERR("cannot make the consumer's memory (%p, %zu bytes) reachable from the peer: %s",
                   mmap->addr(), mmap->len(), softcomch::error_name(rc));
        sm->mmap = nullptr; // nothing to undo
        return nullptr;
    }
    SC_LOG_INFO("consumer memory %p (%zu bytes) reachable from the peer via %s", mmap->addr(),
                mmap->len(),
                shm::memory_mechanism_name(shm::memory_mechanism(sm->exported.desc.mechanism)));
    registry[mmap] = sm;
    return sm;
}

} // namespace softcomch::comch
