// SPDX-License-Identifier: Apache-2.0
#include "memory/live_figures.hpp"

#include <atomic>

#include "transport/fabric.hpp"

namespace softcomch::memory {

namespace {

// The process's numbers for its engine contexts, exports and imports (1, 2, ... each).
std::atomic<uint32_t> next_id[4] = {1, 1, 1, 1};

uint32_t number(uint32_t kind) noexcept
{
    return next_id[kind < 4 ? kind : 0].fetch_add(1, std::memory_order_relaxed);
}

class engine_pub final : public core::engine_publication {
public:
    engine_pub(const char *engine, std::string device) noexcept
        : engine_(engine), device_(std::move(device)), id_(number(live::k_res_engine))
    {}

    live::engine_words *state_changed(doca_ctx_states next) noexcept override
    {
        if (next == DOCA_CTX_STATE_STARTING || next == DOCA_CTX_STATE_RUNNING) {
            try {
                const std::string fabric = transport::fabric_name();
                if (!slot_.get() || slot_.fabric() != fabric) {
                    transport::live_resource_identity id;
                    id.kind = live::k_res_engine;
                    id.id = id_;
                    id.name = engine_;
                    id.device = device_;
                    id.state = uint32_t(next);
                    (void)slot_.claim(fabric, id);
                }
            } catch (...) { // the fabric name's or the identity's allocation: not published
            }
        }
        return slot_.get() ? &slot_.get()->words : nullptr;
    }

private:
    const char *engine_;
    std::string device_;
    uint32_t id_;
    transport::live_resource_slot slot_;
};

} // namespace

std::unique_ptr<core::engine_publication> engine_publication(const char *engine, std::string device)
{
    return std::make_unique<engine_pub>(engine, std::move(device));
}

resource_publication::resource_publication(uint32_t kind, const char *what,
                                           const core::resource_label &label, uint64_t addr,
                                           uint64_t len, const std::string &peer) noexcept
{
    try {
        transport::live_resource_identity id;
        id.kind = kind;
        id.id = number(kind);
        id.name = what;
        id.device = label.function;
        id.access = label.access;
        id.addr = addr;
        id.len = len;
        id.peer = peer;
        id.peer_function = label.peer_function;
        (void)slot_.claim(transport::fabric_name(), id);
    } catch (...) { // allocation: not published
    }
}

} // namespace softcomch::memory
