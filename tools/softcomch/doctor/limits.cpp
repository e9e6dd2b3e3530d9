// SPDX-License-Identifier: Apache-2.0
//
// The doctor's limits checks: RLIMIT_NOFILE against the clients a server may have, and
// RLIMIT_MEMLOCK (unused).
#include <sys/resource.h>

#include <algorithm>
#include <string>

#include "doctor.hpp"
#include "introspect/topology.hpp"

namespace softcomch::tools::doctor {

namespace {

// Descriptors one Comch connection holds in the server (its socket and two eventfds; the
// segment's fd is closed once mapped), and one consumer or producer on top (eventfd, channel and
// memory memfds). Counted in /proc/<pid>/fd of comch_ping and comch_stream servers; used only to
// turn RLIMIT_NOFILE into a number of connections.
constexpr uint64_t fds_per_connection = 3;
constexpr uint64_t fds_per_fast_path_ctx = 4;
constexpr uint64_t fds_base = 64; // the program's own, stdio, the progress engine's
// Below this many connections RLIMIT_NOFILE is a warning (the usual soft limit, 1024, allows ~320).
constexpr uint64_t min_comfortable_connections = 128;

std::string limit_text(rlim_t v)
{
    return v == RLIM_INFINITY ? std::string("unlimited")
                              : std::to_string(static_cast<unsigned long long>(v));
}

} // namespace

void check_limits(report &r)
{
    // The most clients a server may have, from the topology (the default capability otherwise).
    uint64_t max_clients = introspect::default_capabilities().get("max_clients");
    if (const introspect::machine_info view = introspect::machine(); view.loaded) {
        max_clients = 0;
        for (const introspect::bluefield_info &bf : view.bluefields)
            max_clients = std::max<uint64_t>(max_clients, bf.caps.get("max_clients"));
    }
    const uint64_t needed = fds_base + max_clients * fds_per_connection;
    rlimit nofile{};
    if (::getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
        r.facts.set("nofile_soft", nofile.rlim_cur == RLIM_INFINITY
                                       ? json::value(-1)
                                       : json::value(uint64_t(nofile.rlim_cur)));
        r.facts.set("nofile_hard", nofile.rlim_max == RLIM_INFINITY
                                       ? json::value(-1)
                                       : json::value(uint64_t(nofile.rlim_max)));
        const std::string limits =
            "soft " + limit_text(nofile.rlim_cur) + ", hard " + limit_text(nofile.rlim_max);
        const uint64_t soft =
            nofile.rlim_cur == RLIM_INFINITY ? UINT64_MAX : uint64_t(nofile.rlim_cur);
        const uint64_t hard =
            nofile.rlim_max == RLIM_INFINITY ? UINT64_MAX : uint64_t(nofile.rlim_max);
        // A server raises its soft limit itself, up to the hard one (docs/failure-model.md,
        // "Bounds"), and refuses the clients beyond what fits with a message on both sides.
        const uint64_t fit = hard > fds_base ? (hard - fds_base) / fds_per_connection : 0;
        const std::string raise = "raise the hard limit (limits.conf nofile, systemd "
                                  "LimitNOFILE=) to " +
                                  std::to_string(needed) + " or more";
        const std::string per =
            "about " + std::to_string(fds_per_connection) + " descriptors per connection, " +
            std::to_string(fds_per_fast_path_ctx) + " more per consumer or producer";
        if (soft >= needed) {
            r.add(verdict::ok, "RLIMIT_NOFILE",
                  limits + ": enough for a server with " + std::to_string(max_clients) +
                      " clients (" + per + ")");
        } else if (hard >= needed) {
            r.add(verdict::ok, "RLIMIT_NOFILE",
                  limits + ": a server raises its soft limit to what " +
                      std::to_string(max_clients) + " clients need when it starts (" + per + ")");
        } else if (fit >= min_comfortable_connections) {
            // A hard limit of 1024: fine unless a server really takes hundreds of clients.
            r.add(verdict::ok, "RLIMIT_NOFILE",
                  limits + ": a server holds about " + std::to_string(fit) +
                      " connections and refuses more (" + per + "); for all " +
                      std::to_string(max_clients) + " clients: " + raise);
        } else {
            r.add(verdict::warn, "RLIMIT_NOFILE",
                  limits + ": a server refuses clients after about " + std::to_string(fit) +
                      " connections (" + per + ")",
                  raise);
        }
    }
    rlimit memlock{};
    if (::getrlimit(RLIMIT_MEMLOCK, &memlock) == 0)
        r.add(verdict::ok, "RLIMIT_MEMLOCK",
              (memlock.rlim_cur == RLIM_INFINITY ? std::string("unlimited")
                                                 : bytes_text(uint64_t(memlock.rlim_cur))) +
                  ": not used (SoftComch pins no memory, unlike DOCA on a BlueField)");
}

} // namespace softcomch::tools::doctor
