// SPDX-License-Identifier: Apache-2.0
#include "comch/shared_mmap.hpp"

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "common/error_names.hpp"
#include "common/log.hpp"
#include "core/mmap.hpp"

namespace softcomch::comch {

namespace {
using key = std::pair<doca_mmap *, const softcomch::transport::transport_ops *>;
std::mutex registry_mu;
std::map<key, std::weak_ptr<shared_mmap>> registry;
} // namespace

shared_mmap::~shared_mmap()
{
    if (!mmap)
        return;
    // Private memory again: the peer's mapping (if any) no longer aliases ours.
    if (exported->release() != DOCA_SUCCESS)
        SC_LOG_WARN("consumer memory at %p could not be made private again; it stays shared", addr);
    std::lock_guard<std::mutex> g(registry_mu);
    auto it = registry.find(key(mmap, transport));
    if (it != registry.end() && it->second.expired())
        registry.erase(it);
}

std::shared_ptr<shared_mmap>
share_mmap(doca_mmap *mmap, const softcomch::transport::transport_ops &transport, doca_error_t &rc)
{
    std::lock_guard<std::mutex> g(registry_mu);
    if (auto it = registry.find(key(mmap, &transport)); it != registry.end())
        if (auto existing = it->second.lock())
            return existing;
    auto sm = std::make_shared<shared_mmap>();
    std::string why;
    rc = transport.export_memory(mmap->addr(), mmap->len(), sm->exported, why);
    if (rc != DOCA_SUCCESS) {
        if (!why.empty())
            SC_LOG_ERR("%s", why.c_str());
        else
            SC_LOG_ERR(
                "cannot make the consumer's memory (%p, %zu bytes) reachable from the peer: %s",
                mmap->addr(), mmap->len(), softcomch::error_name(rc));
        return nullptr; // sm->mmap is null: nothing to undo
    }
    sm->mmap = mmap;
    sm->addr = mmap->addr();
    sm->transport = &transport;
    SC_LOG_INFO("consumer memory %p (%zu bytes) reachable from the peer via %s", mmap->addr(),
                mmap->len(), sm->exported->mechanism_name());
    registry[key(mmap, &transport)] = sm;
    return sm;
}

} // namespace softcomch::comch
