// SPDX-License-Identifier: Apache-2.0
#include "introspect/fabric.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/posix.hpp"
#include "core/topology.hpp"
#include "transport/fabric.hpp"
#include "transport/unix_socket.hpp"

namespace softcomch::introspect {

namespace {

// A library exception's message without the "softcomch: " prefix and the errno text what()
// appends.
std::string library_message(const std::system_error &e)
{
    std::string m = e.what();
    if (m.starts_with("softcomch: "))
        m.erase(0, 11);
    const std::string tail = ": " + e.code().message();
    if (m.ends_with(tail))
        m.erase(m.size() - tail.size());
    return m;
}

endpoint endpoint_of(const transport::endpoint_info &e, const std::string &info_path)
{
    endpoint ep;
    ep.name = e.key.name;
    ep.pid = e.pid;
    ep.bluefield = e.key.bluefield;
    ep.host_function = e.key.host_function;
    ep.dpu_device = e.dpu_device;
    ep.representor = e.representor;
    ep.max_msg_size = e.max_msg_size;
    ep.recv_queue_size = e.recv_queue_size;
    ep.socket_path = e.socket_path;
    ep.info_path = info_path;
    return ep;
}

} // namespace

std::string fabric_name()
{
    return transport::fabric_name();
}

bool valid_fabric_name(const std::string &name) noexcept
{
    return transport::valid_fabric_name(name);
}

fabric_location locate_fabric(const std::string &name)
{
    fabric_location loc;
    loc.name = name;
    if (const char *xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && *xdg != '\0')
        loc.xdg_runtime_dir = xdg;
    try {
        loc.dir = transport::fabric_dir_path(name);
    } catch (const std::system_error &e) {
        loc.error = library_message(e);
        return loc;
    }
    loc.valid = true;
    loc.under_xdg =
        loc.xdg_runtime_dir && loc.dir.starts_with(*loc.xdg_runtime_dir + "/softcomch/");
    return loc;
}

fabric_dir_state inspect_fabric_dir(const std::string &dir)
{
    namespace fs = std::filesystem;
    fabric_dir_state s;
    s.our_uid = ::geteuid();
    struct stat st;
    if (::lstat(dir.c_str(), &st) == 0) {
        s.exists = true;
        s.is_directory = S_ISDIR(st.st_mode);
        s.owner_uid = st.st_uid;
        s.writable = ::access(dir.c_str(), W_OK | X_OK) == 0;
        if (!s.writable)
            s.access_errno = errno;
        return s;
    }
    fs::path p = fs::path(dir).parent_path();
    while (!p.empty() && p != p.root_path() && ::access(p.c_str(), F_OK) != 0)
        p = p.parent_path();
    s.existing_ancestor = p.string();
    s.ancestor_writable = ::access(p.c_str(), W_OK | X_OK) == 0;
    return s;
}

std::optional<std::string> endpoint_path_problem(const std::string &dir)
{
    const auto &view = core::machine();
    if (!view.topo)
        return std::nullopt;
    for (const doca_devinfo *d : view.topo->devices()) {
        if (d->side() != core::side::host)
            continue;
        try {
            (void)transport::endpoint_socket_path(dir, {d->bluefield_id(), d->pci_addr(), "x"});
        } catch (const std::system_error &e) {
            return library_message(e);
        }
    }
    return std::nullopt;
}

std::string create_fabric_dir(const std::string &name)
{
    return transport::fabric_dir(name);
}

endpoint_scan scan_endpoints(const std::string &dir)
{
    endpoint_scan scan;
    const transport::fabric_files files = transport::scan_fabric_dir(dir);
    std::vector<std::string> socks = files.sockets; // those no readable info file names remain
    for (const auto &name : files.infos) {
        endpoint_scan::server s;
        const std::string path = dir + "/" + name;
        transport::endpoint_info e;
        if (!transport::read_endpoint_info(path, e)) {
            s.ep.info_path = path;
            scan.servers.push_back(std::move(s));
            continue;
        }
        socks.erase(std::remove(socks.begin(), socks.end(),
                                e.socket_path.substr(e.socket_path.rfind('/') + 1)),
                    socks.end());
        s.readable = true;
        s.alive = !transport::endpoint_dead(e);
        s.process_alive = softcomch::process_exists(e.pid);
        s.ep = endpoint_of(e, path);
        scan.servers.push_back(std::move(s));
    }
    for (const auto &name : socks) {
        const std::string path = dir + "/" + name;
        const transport::socket_probe p = transport::probe_socket(path);
        if (p == transport::socket_probe::absent)
            continue;
        scan.bare_sockets.push_back({path, p == transport::socket_probe::live});
    }
    for (const auto &name : files.dead_tmps)
        scan.dead_tmps.push_back({dir + "/" + name, std::atoi(name.c_str() + name.rfind('.') + 1)});
    return scan;
}

std::vector<std::string> fabrics_beside(const std::string &fabric)
{
    return transport::fabrics_beside(fabric);
}

std::vector<endpoint> live_endpoints(const std::string &dir)
{
    std::vector<endpoint> out;
    for (const transport::endpoint_info &e : transport::list_endpoints(dir))
        out.push_back(endpoint_of(e, transport::endpoint_info_path(e.socket_path)));
    return out;
}

} // namespace softcomch::introspect
