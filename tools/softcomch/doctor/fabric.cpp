// SPDX-License-Identifier: Apache-2.0
//
// The doctor's fabric checks: where the fabric directory is and whether this process may use it,
// then every endpoint in it (live, stale, leftovers), judged and never touched.
#include <cstring>
#include <string>

#include "doctor.hpp"
#include "introspect/fabric.hpp"

namespace softcomch::tools::doctor {

namespace {

using introspect::endpoint;
using introspect::endpoint_scan;

std::string endpoint_where(const endpoint &e)
{
    std::string s = e.bluefield + ", host function " + e.host_function;
    if (!e.dpu_device.empty())
        s += " via DPU " + e.dpu_device + (e.representor.empty() ? "" : "/" + e.representor);
    return s;
}

// One entry of the "endpoints" fact; `reason` only for stale ones.
json::value endpoint_fact(const endpoint &e, bool alive, const std::string &reason)
{
    json::value j = json::value::object();
    j.set("name", e.name).set("pid", e.pid).set("alive", alive);
    if (!alive)
        j.set("stale_reason", reason);
    j.set("bluefield", e.bluefield).set("host_function", e.host_function);
    j.set("dpu_device", e.dpu_device).set("representor", e.representor);
    j.set("socket", e.socket_path).set("info", e.info_path);
    return j;
}

// The endpoints of `dir`, judged but never touched (introspect::live_endpoints() would remove
// stale ones).
void check_endpoints(report &r, const std::string &fabric, const std::string &dir,
                     json::value &fabric_facts)
{
    json::value eps = json::value::array();
    const endpoint_scan scan = introspect::scan_endpoints(dir);
    size_t live = 0, stale = 0;

    for (const endpoint_scan::server &s : scan.servers) {
        const endpoint &e = s.ep;
        if (!s.readable) {
            ++stale;
            r.add(verdict::warn, "endpoint", e.info_path + " is not a readable endpoint file",
                  "rm -f " + e.info_path);
            continue;
        }
        if (s.alive) {
            ++live;
            r.add(verdict::ok, "endpoint",
                  in_quotes(e.name) + ": server pid " + std::to_string(e.pid) + " listening (" +
                      endpoint_where(e) + ")");
        } else {
            ++stale;
            r.add(verdict::warn, "endpoint",
                  "stale " + in_quotes(e.name) + " (" + endpoint_where(e) + "): server pid " +
                      std::to_string(e.pid) +
                      (s.process_alive ? " is alive but its socket file is missing"
                                       : " is gone (crashed or killed)") +
                      "; its clients wait until a server of that name starts again",
                  "restart the DPU side (its server replaces the stale files), or remove them: "
                  "rm -f " +
                      e.socket_path + " " + e.info_path);
        }
        eps.push_back(endpoint_fact(
            e, s.alive, s.process_alive ? "socket file missing" : "server process gone"));
    }
    // Sockets without an info file: a server between listen() and writing its info, or a leftover.
    for (const endpoint_scan::bare_socket &b : scan.bare_sockets) {
        endpoint e;
        e.socket_path = b.path;
        if (b.listening) {
            ++live;
            r.add(verdict::ok, "endpoint",
                  b.path + ": listening (its info file is not written yet)");
        } else {
            ++stale;
            r.add(verdict::warn, "endpoint",
                  b.path + ": a socket nobody listens on, without info file", "rm -f " + b.path);
        }
        eps.push_back(endpoint_fact(e, b.listening, "socket without info file, nobody listening"));
    }
    for (const endpoint_scan::dead_tmp &t : scan.dead_tmps) {
        ++stale;
        r.add(verdict::warn, "endpoint",
              t.path + ": temporary info file of a dead process (pid " + std::to_string(t.pid) +
                  ")",
              "rm -f " + t.path);
    }
    if (live == 0 && stale == 0)
        r.add(verdict::ok, "endpoints",
              "none: no Comch server is listening in fabric " + in_quotes(fabric));
    fabric_facts.set("live_endpoints", live);
    fabric_facts.set("stale_endpoints", stale);
    fabric_facts.set("endpoints", std::move(eps));
}

} // namespace

void check_fabric(report &r, const std::string &fabric)
{
    json::value facts = json::value::object();
    facts.set("name", fabric);
    const introspect::fabric_location loc = introspect::locate_fabric(fabric);
    if (!loc.valid) {
        r.add(verdict::fail, "fabric", loc.error, "use a name of [A-Za-z0-9._-]{1,64}");
        r.facts.set("fabric", std::move(facts));
        return;
    }
    const std::string &dir = loc.dir;
    facts.set("dir", dir);
    const auto &xdg = loc.xdg_runtime_dir;
    std::string where = loc.under_xdg ? "under $XDG_RUNTIME_DIR"
                                      : (xdg ? "XDG_RUNTIME_DIR=" + *xdg + " is not usable"
                                             : "XDG_RUNTIME_DIR is unset");
    const introspect::fabric_dir_state st = introspect::inspect_fabric_dir(dir);
    const std::string uid = std::to_string(st.our_uid);

    verdict v = verdict::ok;
    std::string state, fix;
    if (st.exists) {
        facts.set("exists", true);
        if (!st.is_directory) {
            v = verdict::fail;
            state = "exists but is not a directory (or is a symlink)";
            fix = "remove it: rm -f " + dir;
        } else if (st.owner_uid != st.our_uid) {
            v = verdict::fail;
            state = "is owned by uid " + std::to_string(st.owner_uid) + ", not by us (uid " + uid +
                    "): the library refuses it";
            fix = "run as uid " + std::to_string(st.owner_uid) +
                  ", or remove the directory as its owner";
        } else if (!st.writable) {
            v = verdict::fail;
            state = std::string("is not writable: ") + std::strerror(st.access_errno);
            fix = "chmod 700 " + dir;
        } else {
            state = "exists, writable";
        }
    } else {
        facts.set("exists", false);
        // The first existing ancestor must let us create the rest.
        if (st.ancestor_writable) {
            state = "does not exist yet; the first server or client creates it";
        } else {
            v = verdict::fail;
            state = "cannot be created: " + st.existing_ancestor + " is not writable";
            fix = "make " + st.existing_ancestor +
                  " writable, or set XDG_RUNTIME_DIR to a directory of yours";
        }
    }
    if (v == verdict::ok && xdg && !loc.under_xdg) {
        v = verdict::warn;
        fix = "processes that can use XDG_RUNTIME_DIR rendezvous there instead: make it an "
              "existing writable directory, or unset it everywhere";
    }
    // Every endpoint socket path must fit a sockaddr_un; the library says so if not.
    if (v != verdict::fail) {
        if (auto problem = introspect::endpoint_path_problem(dir)) {
            v = verdict::fail;
            state = *problem;
            if (const size_t cut = state.find("; use a shorter"); cut != std::string::npos)
                state.erase(cut);
            fix = "use a shorter SOFTCOMCH_FABRIC or XDG_RUNTIME_DIR";
        }
    }
    r.add(v, "fabric",
          in_quotes(fabric) + ": " + dir + ": " + state + " (" + where + "; private to uid " + uid +
              ")",
          fix);
    check_endpoints(r, fabric, dir, facts);
    r.facts.set("fabric", std::move(facts));
}

} // namespace softcomch::tools::doctor
