// SPDX-License-Identifier: Apache-2.0
//
// The introspection API: what the tools (tools/) may know of the library, as plain values. This
// header: the fabric (transport/fabric.hpp), i.e. where its rendezvous directory is, whether this
// process may use it, and the server endpoints in it.
//
// Layer rule (docs/design.md, tests/abi/layering.cmake): introspect/ sits above core/ and
// transport/ and below tools/ only; its headers expose standard types and nothing of the layers
// under it. Nothing here keeps state; every call reads the file system or the environment anew.
// The live figures `softcomch top` shows (servers, clients, connections, queues) are in
// introspect/live.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace softcomch::introspect {

// SOFTCOMCH_FABRIC, "default" when unset or empty (as the library reads it).
std::string fabric_name();
// Fabric names are [A-Za-z0-9._-]{1,64}.
bool valid_fabric_name(const std::string &name) noexcept;

// Where a fabric's rendezvous directory is, as the library computes it. Nothing is created.
struct fabric_location {
    std::string name;
    bool valid = false; // false: `error` says why and `dir` is empty
    std::string error;  // the library's message
    std::string dir;
    std::optional<std::string> xdg_runtime_dir; // $XDG_RUNTIME_DIR when set and not empty
    bool under_xdg = false;                     // dir is $XDG_RUNTIME_DIR/softcomch/<name>
};
fabric_location locate_fabric(const std::string &name);

// A fabric directory as the library would judge it when it comes to use it (it must be a
// directory of ours, writable, not a symlink). Never changed.
struct fabric_dir_state {
    bool exists = false;       // something is at that path (lstat)
    bool is_directory = false; // and it is a directory, not a symlink
    uint32_t owner_uid = 0;
    uint32_t our_uid = 0; // effective uid of this process
    bool writable = false;
    int access_errno = 0; // exists && !writable: errno of the access check
    // When nothing exists: the nearest existing ancestor, and whether entries can be created in
    // it (so that the first server or client can create the rest).
    std::string existing_ancestor;
    bool ancestor_writable = false;
};
fabric_dir_state inspect_fabric_dir(const std::string &dir);

// The library's message when the socket path of some endpoint in `dir` (one per host function of
// the topology this process sees) would not fit in a Unix socket address; nullopt when every one
// fits or the topology could not be loaded.
std::optional<std::string> endpoint_path_problem(const std::string &dir);

// Creates the fabric's directory (mode 0700) as a server or client would, and returns its path.
// Throws std::system_error with the library's message.
std::string create_fabric_dir(const std::string &name);

// ---- endpoints ----

// One server endpoint as its info file records it.
struct endpoint {
    std::string name; // server name
    int pid = 0;
    std::string bluefield;
    std::string host_function; // canonical PCI address
    std::string dpu_device;    // canonical PCI address (may be empty)
    std::string representor;   // e.g. "pf0hpf" (may be empty)
    uint32_t max_msg_size = 0;
    uint32_t recv_queue_size = 0;
    std::string socket_path;
    std::string info_path;
};

// What a fabric directory holds, judged and never changed (live_endpoints() removes stale files).
struct endpoint_scan {
    // One per info file, in file-name order.
    struct server {
        bool readable = false; // false: not an endpoint info file; only ep.info_path is set
        endpoint ep;
        bool alive = false;         // its process exists and its socket file is there
        bool process_alive = false; // its process exists (a stale one may still have it)
    };
    // A socket file no readable info file names: a server between listen() and writing its info
    // file, or a leftover. Those that vanished while scanning are left out.
    struct bare_socket {
        std::string path;
        bool listening = false;
    };
    // A temporary info file whose writer died before renaming it.
    struct dead_tmp {
        std::string path;
        int pid = 0;
    };
    std::vector<server> servers;
    std::vector<bare_socket> bare_sockets;
    std::vector<dead_tmp> dead_tmps;
};
// A missing directory gives an empty scan.
endpoint_scan scan_endpoints(const std::string &dir);

// The fabrics that have a directory in the same runtime directory as `fabric`'s (itself included
// when it exists), sorted; nothing is created.
std::vector<std::string> fabrics_beside(const std::string &fabric);

// The endpoints of live servers, as a client looking for its server finds them: on the way, the
// files of dead servers are removed, as the library does. Files that cannot be read are skipped
// (a missing directory gives none).
std::vector<endpoint> live_endpoints(const std::string &dir);

} // namespace softcomch::introspect
