// SPDX-License-Identifier: Apache-2.0
//
// A fabric is one emulated PCIe wiring between DPU-side and host-side processes, named by
// SOFTCOMCH_FABRIC (default "default"). Its rendezvous is a private directory:
//   $XDG_RUNTIME_DIR/softcomch/<fabric>   when XDG_RUNTIME_DIR is set and usable,
//   /tmp/softcomch-<uid>/<fabric>          otherwise;
// both created with mode 0700. A started server owns one endpoint in it: a Unix SEQPACKET socket
// named after (BlueField id, host function, server name) plus a small text file describing it
// (for `softcomch run`, `top` and diagnostics). There is no daemon: stale endpoints of dead
// processes are detected (connect() refused, pid gone) and removed.
#pragma once

#include <doca_error.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/visibility.hpp"

namespace softcomch::transport {

// Fabric name from SOFTCOMCH_FABRIC ("default" when unset). Names are [A-Za-z0-9._-]{1,64}.
SOFTCOMCH_API std::string fabric_name();
SOFTCOMCH_API bool valid_fabric_name(const std::string &name) noexcept;

// Directory of a fabric (created with 0700 if missing). Throws std::system_error on failure.
SOFTCOMCH_API std::string fabric_dir(const std::string &fabric);
// Same, without creating anything.
SOFTCOMCH_API std::string fabric_dir_path(const std::string &fabric);

// The identity of a listening server.
struct endpoint_key {
    std::string bluefield;     // BlueField id from the topology ("bf0" in the embedded default)
    std::string host_function; // canonical PCI address of the host function, "0000:b1:00.0"
    std::string name;          // server name as given to doca_comch_server_create
};

// Everything recorded about a live server endpoint.
struct endpoint_info {
    endpoint_key key;
    std::string socket_path;
    int pid = 0;
    std::string dpu_device;  // canonical PCI address of the server's DPU-side device
    std::string representor; // representor name, e.g. "pf0hpf"
    uint32_t max_msg_size = 0;
    uint32_t recv_queue_size = 0;
};

// Path of the socket for `key` inside `dir` (short enough for sockaddr_un).
SOFTCOMCH_API std::string endpoint_socket_path(const std::string &dir, const endpoint_key &key);

// Live endpoints of a fabric directory; entries whose process is gone are removed on the way.
SOFTCOMCH_API std::vector<endpoint_info> list_endpoints(const std::string &dir);

// ---- additions (transport-internal helpers around the declarations above) ----

// 64-bit FNV-1a of `data` (names the endpoint socket: 16 lowercase hex digits).
uint64_t fnv1a64(const std::string &data) noexcept;

// Path of the info file that accompanies a socket path: `<stem>.sock` -> `<stem>.info`.
// Throws std::system_error(EINVAL) if `socket_path` does not end in ".sock".
SOFTCOMCH_API std::string endpoint_info_path(const std::string &socket_path);

// Writes the info file of `info` (info.socket_path must be set) atomically: a temporary file in
// the same directory, then rename(). Text, one `key=value` per line: version, name, pid,
// bluefield, host_function, dpu_device, representor, max_msg_size, recv_queue_size. Values are
// percent-escaped (%XX for '%', '=', control bytes and bytes >= 0x7f). Throws std::system_error.
void write_endpoint_info(const endpoint_info &info);

// Reads one info file. Returns false (no throw) if it is missing or malformed. The
// socket_path of the result is derived from `info_path`.
SOFTCOMCH_API bool read_endpoint_info(const std::string &info_path, endpoint_info &out);

// The two halves of the file format, without the file (read_endpoint_info() and
// write_endpoint_info() use them; tests/fuzz/fuzz_endpoint_info.cpp fuzzes them):
// the text write_endpoint_info() writes for `info`, and the parse of such a text. The parse
// refuses (false, `out` untouched) a text above 16 KiB, a line without '=', a bad %XX escape, a
// version other than 1, a pid outside 1..2^31-1, a size that is not a decimal u32, and a text
// without version, name and pid; unknown keys and '#' lines are ignored, and the last of
// repeated keys wins. `info_path` must end in ".info" (it gives the socket path).
std::string format_endpoint_info(const endpoint_info &info);
bool parse_endpoint_info(std::string_view text, const std::string &info_path, endpoint_info &out);

// Removes the endpoint's socket file and info file (missing files are not an error).
void remove_endpoint(const endpoint_info &info) noexcept;
// Removes the fabric directory `dir` if nothing is left in it (rmdir refuses otherwise, which is
// atomic against a server binding its socket there). So a fabric leaves no trace once its last
// server and stats file are gone; whoever uses the fabric next makes the directory again, and a
// server or stats file that loses the race to an rmdir sees ENOENT and retries.
void release_fabric_dir(const std::string &dir) noexcept;

// Makes sure `path` is a directory private to us: created 0700 if missing; refused
// (std::system_error) if it is a symlink, not a directory, or owned by another uid; tightened
// to 0700 if looser. For the runtime and fabric directories, and the directories made in them
// (live_publisher.cpp).
void ensure_private_dir(const std::string &path);

// ---- diagnostics: a fabric directory judged, never changed ----

// The files of a fabric directory by kind, as sorted file names: info files, socket files, and
// temporary info files whose writer died before renaming them. Nothing is read or removed; a
// missing directory gives empty lists.
struct fabric_files {
    std::vector<std::string> infos;
    std::vector<std::string> sockets;
    std::vector<std::string> dead_tmps;
};
SOFTCOMCH_API fabric_files scan_fabric_dir(const std::string &dir);

// Whether an endpoint read from its info file is dead: its process is gone, or its socket file is
// missing. list_endpoints() removes such endpoints.
SOFTCOMCH_API bool endpoint_dead(const endpoint_info &e) noexcept;

// The fabrics that have a directory beside `fabric`'s (in the same runtime directory), sorted,
// `fabric` itself included if it exists. Nothing is created; none when the runtime directory
// does not exist or cannot be read.
SOFTCOMCH_API std::vector<std::string> fabrics_beside(const std::string &fabric);

} // namespace softcomch::transport
