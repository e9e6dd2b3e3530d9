// SPDX-License-Identifier: Apache-2.0
//
// The diagnostics of comch/diagnostics.hpp, and the two slow-path hooks that use them
// (doca_comch_client::explain_starting, doca_comch_producer::tick), kept here, out of the
// client's and the producer's own files.
#include "comch/diagnostics.hpp"

#include <algorithm>
#include <cstdio>
#include <system_error>

#include "comch/client.hpp"
#include "comch/connection.hpp"
#include "comch/producer.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/near_name.hpp"
#include "core/device.hpp"
#include "core/topology.hpp"

namespace softcomch::comch::diag {

namespace transport = softcomch::transport;

namespace {

// Servers listed by name in one line at most; the rest are counted.
constexpr size_t k_max_listed = 8;

// "bound to pf1hpf (0000:b1:00.1)", plus " of bf1" when that is not the client's BlueField.
std::string binding(const transport::endpoint_info &e, const std::string &our_bluefield)
{
    std::string s =
        "bound to " + (e.representor.empty() ? std::string("a representor") : e.representor);
    s += " (" + e.key.host_function + ")";
    if (e.key.bluefield != our_bluefield)
        s += " of " + e.key.bluefield;
    return s;
}

// The nearest server name to `key.name` among `eps` (the same host function first), or nullptr.
const transport::endpoint_info *nearest(const transport::endpoint_key &key,
                                        const std::vector<transport::endpoint_info> &eps,
                                        name_likeness &how)
{
    const transport::endpoint_info *best = nullptr;
    auto rank = [&](const transport::endpoint_info &e, const name_likeness &l) {
        const bool ours =
            e.key.bluefield == key.bluefield && e.key.host_function == key.host_function;
        return std::make_pair(ours ? 0 : 1, l.distance);
    };
    for (const auto &e : eps) {
        const name_likeness l = compare_names(key.name, e.key.name);
        if (!l.near())
            continue;
        if (!best || rank(e, l) < rank(*best, how)) {
            best = &e;
            how = l;
        }
    }
    return best;
}

} // namespace

std::string quoted(const std::string &name)
{
    std::string s = "'";
    for (unsigned char c : name) {
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            s += buf;
        } else {
            s += char(c);
        }
    }
    return s + "'";
}

fabric_view look_around(const std::string &fabric, const transport::endpoint_key &key) noexcept
{
    fabric_view v;
    try {
        v.fabric = fabric;
        v.here = transport::list_endpoints(transport::fabric_dir(fabric));
        for (const std::string &other : transport::fabrics_beside(fabric)) {
            if (other == fabric)
                continue;
            transport::endpoint_info e;
            try {
                const std::string sock =
                    transport::endpoint_socket_path(transport::fabric_dir_path(other), key);
                if (transport::read_endpoint_info(transport::endpoint_info_path(sock), e) &&
                    e.key.name == key.name && !transport::endpoint_dead(e))
                    v.elsewhere.emplace_back(other, std::move(e));
            } catch (const std::system_error &) { // that fabric's path is too long: not there
            }
        }
    } catch (...) { // an unreadable directory or an allocation: say what was found
    }
    return v;
}

std::string missing_server(const transport::endpoint_key &key, const fabric_view &v)
{
    std::string s = "no server named " + quoted(key.name) + " for host function " +
                    key.host_function + " on fabric '" + v.fabric + "'";
    if (v.here.empty()) {
        s += ", and no server listens on this fabric (start the DPU side's server first, with "
             "the same SOFTCOMCH_FABRIC)";
    } else {
        s += "; servers on this fabric: ";
        for (size_t i = 0; i < v.here.size() && i < k_max_listed; ++i) {
            const auto &e = v.here[i];
            s += (i ? ", " : "") + quoted(e.key.name) + " " + binding(e, key.bluefield);
        }
        if (v.here.size() > k_max_listed)
            s += " and " + std::to_string(v.here.size() - k_max_listed) + " more";
        // The same name for another function: this client's device is not the one the server's
        // representor stands for (on another BlueField; on the same one the client is refused).
        for (const auto &e : v.here)
            if (e.key.name == key.name)
                s += "; " + quoted(e.key.name) + " serves " + e.key.host_function + " of " +
                     e.key.bluefield + ", not this client's device (" + key.host_function + " of " +
                     key.bluefield + ")";
        name_likeness how;
        if (const auto *near = nearest(key, v.here, how)) {
            s += "; did you mean " + quoted(near->key.name) + "? (" + how.describe();
            if (near->key.host_function != key.host_function ||
                near->key.bluefield != key.bluefield)
                s += ", and " + binding(*near, key.bluefield);
            s += ")";
        }
    }
    for (const auto &[fabric, e] : v.elsewhere)
        if (e.key.name == key.name && e.key.host_function == key.host_function &&
            e.key.bluefield == key.bluefield) {
            s += "; a server named " + quoted(key.name) +
                 " for this host function listens on "
                 "fabric '" +
                 fabric + "' (pid " + std::to_string(e.pid) +
                 "): start both sides with the same SOFTCOMCH_FABRIC";
            break;
        }
    return s;
}

std::string silent_server_hint(const std::string &bluefield, const std::string &host_function,
                               const std::string &name) noexcept
{
    try {
        for (const auto &e :
             transport::list_endpoints(transport::fabric_dir(transport::fabric_name())))
            if (e.key.name == name && e.key.host_function == host_function &&
                e.key.bluefield == bluefield)
                return "; the server's program (pid " + std::to_string(e.pid) +
                       ") must call doca_pe_progress on the engine of its server (a stopped "
                       "process, one in a debugger or one busy elsewhere does not answer)";
    } catch (...) {
    }
    return {};
}

std::string wrong_side_hint(const doca_devinfo &info, bool server)
{
    namespace core = softcomch::core;
    const std::string &bf = info.bluefield_id();
    if (info.board().mode_ != core::bf_mode::dpu)
        return bf + " is in NIC mode, which has no Comch; Comch needs a BlueField in DPU mode";
    if (server) {
        // A host function: the server runs on the DPU side, with this function's representor.
        std::string rep, dpu;
        if (const core::topology *topo = core::machine().topo)
            for (const doca_devinfo_rep *r : topo->representors())
                if (r->host_function() == &info) {
                    rep = r->name();
                    dpu = r->manager()->pci_addr();
                    break;
                }
        std::string s = info.pci_addr() + " is a host function of " + bf +
                        ", where the client runs; start the server on the DPU side";
        if (!rep.empty())
            s += " (device " + dpu + " with representor " + rep + ", which stands for " +
                 info.pci_addr() + ")";
        return s;
    }
    // A DPU-side device: the client runs on the host, on a function this side represents.
    std::string s = info.pci_addr() + " is on the DPU side of " + bf +
                    ", where the server runs; start the client on the host";
    std::string funcs;
    for (const doca_devinfo_rep *r : info.representors()) {
        if (funcs.size() > 200) {
            funcs += ", ...";
            break;
        }
        funcs +=
            (funcs.empty() ? "" : ", ") + r->host_function()->pci_addr() + " (" + r->name() + ")";
    }
    if (!funcs.empty())
        s += ", on a host function this device represents: " + funcs;
    return s;
}

} // namespace softcomch::comch::diag

// ---- the slow-path hooks ----

void doca_comch_client::explain_starting(uint64_t now_ns) noexcept
{
    if (starting_explained_ || !bounds_.diag_ns || !waiting_for_server_ ||
        now_ns - started_ns_ < bounds_.diag_ns)
        return;
    starting_explained_ = true;
    try {
        namespace transport = softcomch::transport;
        const transport::endpoint_key key{dev_->info()->bluefield_id(), dev_->info()->pci_addr(),
                                          name_};
        const std::string why = softcomch::comch::diag::missing_server(
            key, softcomch::comch::diag::look_around(transport::fabric_name(), key));
        const std::string name = softcomch::comch::diag::quoted(name_);
        SC_LOG_WARN("comch client %s: still STARTING after %lu ms: %s; still waiting (softcomch "
                    "doctor --client %s --pci %s tells more)",
                    name.c_str(), (unsigned long)((now_ns - started_ns_) / 1'000'000), why.c_str(),
                    name.c_str(), dev_->info()->pci_addr().c_str());
    } catch (...) { // the text's allocation: nothing said
    }
}

void doca_comch_producer::tick(uint64_t /*now_ns*/) noexcept
{
    if (unknown_consumer_.load(std::memory_order_relaxed) == 0)
        return;
    const uint64_t seen = unknown_consumer_.exchange(0, std::memory_order_relaxed);
    if (seen == 0 || unknown_consumer_told_)
        return;
    const auto id = uint32_t(seen);
    unknown_consumer_told_ = true;
    try {
        std::vector<uint32_t> theirs, ours;
        {
            std::lock_guard<std::mutex> g(conn_->fast_.mu);
            for (const auto &[cid, r] : conn_->fast_.remote)
                if (!r->expired.load(std::memory_order_acquire))
                    theirs.push_back(cid);
            for (const auto &[cid, c] : conn_->fast_.local)
                ours.push_back(cid);
        }
        std::sort(theirs.begin(), theirs.end());
        std::string list;
        for (uint32_t c : theirs)
            list += (list.empty() ? "" : ", ") + std::to_string(c);
        std::string mine;
        if (std::find(ours.begin(), ours.end(), id) != ours.end())
            mine = "; this side has a consumer " + std::to_string(id) +
                   " of its own: a producer addresses the peer's consumers, not its side's";
        SC_LOG_WARN("comch producer %u: doca_comch_producer_task_send to consumer id %u, which "
                    "does not exist on this connection (never announced by the peer, or expired: "
                    "doca_task_submit returns DOCA_ERROR_NOT_FOUND); the peer's consumers on it: "
                    "%s%s (their ids arrive in the new-consumer event of "
                    "doca_comch_{server,client}_event_consumer_register; logged once per "
                    "producer)",
                    id_, id, list.empty() ? "none" : list.c_str(), mine.c_str());
    } catch (...) {
    }
}
