// SPDX-License-Identifier: Apache-2.0
//
// The doctor's client check (`softcomch doctor --client NAME [--pci ADDR]`): why a client of that
// name, on that host function, would or would not connect in this fabric. It judges what the
// library judges when such a client starts: the device (a host function that can run a client),
// the name's length, then the servers of the fabric: the one it would connect to, the same name
// bound to another host function (the wrong representor), near names (a typo, a case
// difference, a trailing space: src/common/near_name.hpp, as the library's own warning,
// src/comch/diagnostics.cpp), the same server in another fabric, a stale endpoint of that name.
// Nothing is changed.
#include <optional>
#include <string>
#include <vector>

#include "common/near_name.hpp"
#include "doctor.hpp"
#include "../system.hpp"
#include "introspect/fabric.hpp"
#include "introspect/topology.hpp"

namespace softcomch::tools::doctor {

namespace {

using introspect::endpoint;
using introspect::endpoint_scan;

std::string quoted(const std::string &s)
{
    return "'" + s + "'";
}

std::string bound(const endpoint &e)
{
    return "bound to " + (e.representor.empty() ? std::string("a representor") : e.representor) +
           " (" + e.host_function + ") of " + e.bluefield;
}

// The state letter of process `pid` in /proc/<pid>/stat ('R', 'S', 'T' stopped, 't' traced...),
// or 0 when it cannot be read.
char process_state(int pid)
{
    const auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    const size_t paren = stat ? stat->rfind(')') : std::string::npos;
    return paren != std::string::npos && paren + 2 < stat->size() ? (*stat)[paren + 2] : 0;
}

json::value server_fact(const endpoint &e, const std::string &relation)
{
    return json::value::object()
        .set("name", e.name)
        .set("pid", e.pid)
        .set("bluefield", e.bluefield)
        .set("host_function", e.host_function)
        .set("representor", e.representor)
        .set("relation", relation);
}

// Where the client would run: the device of `pci` (canonical), or why there is none. Sets
// `bluefield` and `max_name_len` when it is a host function that can run a client.
bool judge_device(report &r, const std::string &pci, std::string &bluefield, uint32_t &max_name_len)
{
    const introspect::machine_info view = introspect::machine();
    if (!view.loaded) {
        r.add(verdict::fail, "client", "no devices: " + view.error,
              "fix SOFTCOMCH_TOPOLOGY / SOFTCOMCH_SIDE (above)");
        return false;
    }
    for (const introspect::device_info &d : view.devices) {
        if (d.pci != pci)
            continue;
        bluefield = d.bluefield;
        for (const introspect::bluefield_info &bf : view.bluefields)
            if (bf.id == d.bluefield)
                max_name_len = bf.caps.get("max_name_len");
        if (d.client_capable)
            return true;
        if (d.side == "dpu") {
            std::string funcs;
            for (const introspect::representor_info &rep : d.representors)
                funcs += (funcs.empty() ? "" : ", ") + rep.pci + " (" + rep.name + ")";
            r.add(verdict::fail, "client",
                  pci + " is on the DPU side of " + d.bluefield +
                      ": a client cannot run there (doca_comch_client_create refuses it with "
                      "DOCA_ERROR_NOT_SUPPORTED); servers run there",
                  "start the client on the host" +
                      (funcs.empty() ? std::string()
                                     : ", on a host function this device represents: " + funcs));
        } else {
            r.add(verdict::fail, "client",
                  pci + " cannot run a Comch client (" + d.bluefield + " is not in DPU mode)",
                  "put the BlueField in dpu mode in the topology file");
        }
        return false;
    }
    r.add(verdict::fail, "client",
          "no device " + pci + " is visible here" +
              (view.side_filter.empty() ? "" : " (SOFTCOMCH_SIDE=" + view.side_filter + ")"),
          view.side_filter == "dpu"
              ? "this is the DPU side (SOFTCOMCH_SIDE=dpu): a client runs on the host side, start "
                "it there"
              : "use a host function `softcomch doctor` lists under devices");
    return false;
}

} // namespace

void check_client(report &r, const std::string &fabric, const std::string &name,
                  const std::optional<std::string> &pci_arg)
{
    json::value facts = json::value::object();
    facts.set("name", name);
    const size_t before = r.checks.size();
    std::string pci, bluefield;
    uint32_t max_name_len = 0;
    bool device_ok = true;
    if (pci_arg) {
        const auto canon = introspect::canonical_pci(*pci_arg);
        if (!canon) {
            r.add(verdict::fail, "client", in_quotes(*pci_arg) + " is not a PCI address",
                  "give it as BB:DD.F or DDDD:BB:DD.F, e.g. b1:00.0");
            device_ok = false;
        } else {
            pci = *canon;
            facts.set("pci", pci);
            device_ok = judge_device(r, pci, bluefield, max_name_len);
        }
    }
    if (name.empty() || (max_name_len && name.size() >= max_name_len)) {
        r.add(verdict::fail, "client",
              name.empty() ? std::string("the name is empty")
                           : "the name has " + std::to_string(name.size()) +
                                 " characters; at most " + std::to_string(max_name_len - 1) +
                                 " fit (doca_comch_cap_get_max_name_len, " +
                                 std::to_string(max_name_len) + " with the NUL)",
              "use a shorter name, the same on both sides");
        device_ok = false;
    }

    // The servers of the fabric, as a client looking for its server finds them.
    const introspect::fabric_location loc = introspect::locate_fabric(fabric);
    const endpoint_scan scan = loc.valid ? introspect::scan_endpoints(loc.dir) : endpoint_scan{};
    json::value servers = json::value::array();
    std::vector<std::string> listed;
    const endpoint *exact = nullptr, *other_function = nullptr, *near = nullptr;
    name_likeness near_how;
    bool stale_same_name = false;
    for (const endpoint_scan::server &s : scan.servers) {
        if (!s.readable)
            continue;
        const endpoint &e = s.ep;
        if (!s.alive) {
            stale_same_name = stale_same_name || e.name == name;
            continue;
        }
        const bool same_function = pci.empty() || (e.host_function == pci &&
                                                   (bluefield.empty() || e.bluefield == bluefield));
        std::string relation = "other";
        if (e.name == name && same_function) {
            relation = "match";
            if (!exact)
                exact = &e;
        } else if (e.name == name) {
            relation = "same name, other host function";
            if (!other_function)
                other_function = &e;
        } else if (const name_likeness l = compare_names(name, e.name); l.near()) {
            relation = "near name: " + l.describe();
            if (!near || (same_function && l.distance < near_how.distance)) {
                near = &e;
                near_how = l;
            }
        }
        listed.push_back(quoted(e.name) + " (pid " + std::to_string(e.pid) + ") " + bound(e) +
                         (relation == "other" ? "" : ": " + relation));
        servers.push_back(server_fact(e, relation));
    }
    // The same server in another fabric of this runtime directory.
    std::string elsewhere;
    json::value other_fabrics = json::value::array();
    for (const std::string &f : introspect::fabrics_beside(fabric)) {
        if (f == fabric)
            continue;
        const introspect::fabric_location l = introspect::locate_fabric(f);
        if (!l.valid)
            continue;
        for (const endpoint_scan::server &s : introspect::scan_endpoints(l.dir).servers)
            if (s.readable && s.alive && s.ep.name == name &&
                (pci.empty() || s.ep.host_function == pci)) {
                other_fabrics.push_back(json::value::object()
                                            .set("fabric", f)
                                            .set("pid", s.ep.pid)
                                            .set("host_function", s.ep.host_function));
                if (elsewhere.empty())
                    elsewhere = f;
            }
    }

    bool stopped = false; // the server found is a stopped process
    const std::string who = "client " + in_quotes(name) + (pci.empty() ? "" : " on " + pci);
    const std::string in_fabric = " in fabric " + in_quotes(fabric);
    if (!device_ok) {
        // Said above; the servers are still listed below.
    } else if (exact) {
        const std::string where =
            "server pid " + std::to_string(exact->pid) + " listens " + bound(*exact) + in_fabric;
        const char state = process_state(exact->pid);
        stopped = state == 'T' || state == 't';
        if (stopped)
            r.add(verdict::warn, "client",
                  who + " waits: " + where + ", but that process is stopped (" +
                      (state == 't' ? "in a debugger" : "SIGSTOP") +
                      "): it answers no handshake until it runs and calls doca_pe_progress",
                  "let it run (kill -CONT " + std::to_string(exact->pid) +
                      ", or continue it in the debugger)");
        else
            r.add(verdict::ok, "client", who + " connects: " + where);
    } else if (other_function && !pci.empty() && other_function->bluefield == bluefield) {
        r.add(verdict::fail, "client",
              who + " is refused: server " + in_quotes(name) + " (pid " +
                  std::to_string(other_function->pid) + ") is " + bound(*other_function) +
                  ", and that representor does not stand for " + pci,
              "start the server with the representor of " + pci + " or run the client on " +
                  other_function->host_function);
    } else {
        std::string finding = who + " waits: no server named " + in_quotes(name) +
                              (pci.empty() ? "" : " for host function " + pci) + in_fabric;
        std::string fix;
        if (near) {
            finding +=
                "; did you mean " + in_quotes(near->name) + "? (" + near_how.describe() + ")";
            fix = "use the same name on both sides (" + in_quotes(near->name) + " is " +
                  bound(*near) + ")";
        } else if (!elsewhere.empty()) {
            fix = "a server of that name listens in fabric " + in_quotes(elsewhere) +
                  ": start both sides with the same SOFTCOMCH_FABRIC";
        } else if (other_function) {
            fix = in_quotes(name) + " is " + bound(*other_function) + ": run the client there";
        } else if (stale_same_name) {
            fix = "its server died (a stale endpoint is listed above): restart the DPU side";
        } else {
            fix = "start the DPU side's server first, in the same fabric";
        }
        if (!elsewhere.empty() && near)
            fix += "; or: a server of that name listens in fabric " + in_quotes(elsewhere);
        r.add(verdict::fail, "client", finding, fix);
    }
    // The servers of the fabric under the (first) client line.
    check_result &line = r.checks[before];
    if (listed.empty())
        line.details.push_back("no live server in fabric " + in_quotes(fabric));
    else
        for (std::string &l : listed)
            line.details.push_back("server " + std::move(l));

    facts.set("connects", exact != nullptr && device_ok && !stopped);
    facts.set("server_stopped", stopped);
    facts.set("servers", std::move(servers));
    facts.set("other_fabrics", std::move(other_fabrics));
    r.facts.set("client", std::move(facts));
}

} // namespace softcomch::tools::doctor
