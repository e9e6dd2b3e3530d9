// SPDX-License-Identifier: Apache-2.0
#include "transport/fabric.hpp"

#include "common/hex.hpp"
#include "common/log.hpp"
#include "common/posix.hpp"
#include "common/unique_fd.hpp"
#include "transport/unix_socket.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <system_error>

namespace softcomch::transport {

namespace {

constexpr std::string_view k_sock_suffix = ".sock";
constexpr std::string_view k_info_suffix = ".info";
constexpr std::string_view k_tmp_marker = ".info.tmp.";
constexpr int k_info_version = 1;
// Info files are small; anything above 16 KiB is not ours.
constexpr size_t k_max_info_size = 16384;

[[noreturn]] void fail(int err, const std::string &what)
{
    throw std::system_error(err, std::generic_category(), what);
}

bool ends_with(std::string_view s, std::string_view suffix) noexcept
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A usable $XDG_RUNTIME_DIR: set, absolute, an existing directory we may write into.
bool usable_xdg(const char *xdg) noexcept
{
    if (xdg == nullptr || xdg[0] != '/')
        return false;
    struct stat st;
    return ::stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && ::access(xdg, W_OK | X_OK) == 0;
}

// Ids used in file names: a conservative character set (no '/', no '@').
bool valid_id(const std::string &s) noexcept
{
    if (s.empty() || s.size() > 32)
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == ':' || c == '-';
    });
}

// Percent-escaping of info-file values (so any server name fits on one line).
std::string escape(const std::string &v)
{
    std::string out;
    out.reserve(v.size());
    for (unsigned char c : v) {
        if (c < 0x20 || c >= 0x7f || c == '%' || c == '=') {
            char buf[4];
            std::snprintf(buf, sizeof buf, "%%%02X", c);
            out += buf;
        } else {
            out += char(c);
        }
    }
    return out;
}

bool unescape(std::string_view v, std::string &out)
{
    out.clear();
    for (size_t i = 0; i < v.size(); ++i) {
        if (v[i] != '%') {
            out += v[i];
            continue;
        }
        if (i + 2 >= v.size())
            return false; // '%' needs two hex digits after it
        const long byte = hex_field(v.data() + i + 1, 2);
        if (byte < 0)
            return false;
        out += char(byte);
        i += 2;
    }
    return true;
}

bool parse_u32(const std::string &s, uint32_t &out) noexcept
{
    const auto digit = [](char c) {
        return c >= '0' && c <= '9';
    };
    if (s.empty() || s.size() > 10 || !std::all_of(s.begin(), s.end(), digit))
        return false;
    const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (v > 0xffffffffull)
        return false;
    out = uint32_t(v);
    return true;
}

bool file_exists(const std::string &path) noexcept
{
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

// Removes a dead endpoint. Runs under the directory lock (listen_at() takes it too), re-reads
// the info file and re-checks, so it cannot remove a server that took the name meanwhile.
void cleanup_dead(const std::string &dir, const std::string &info_path)
{
    unique_fd lock = lock_directory(dir);
    if (!lock)
        return;
    endpoint_info e;
    if (!read_endpoint_info(info_path, e) || !endpoint_dead(e))
        return;
    // A socket file with a live listener (a new server whose info file is not written yet)
    // stays; a stale or absent one goes with its info file.
    const socket_probe p = probe_socket(e.socket_path);
    if (p == socket_probe::live)
        return;
    SC_LOG_INFO("removing stale endpoint '%s' of pid %d (%s)", e.key.name.c_str(), e.pid,
                !softcomch::process_exists(e.pid) ? "process gone" : "socket missing");
    if (p == socket_probe::stale)
        ::unlink(e.socket_path.c_str());
    ::unlink(info_path.c_str());
}

// Leftover temporary info file of a dead writer ("<stem>.info.tmp.<pid>").
// Whether `name` is a temporary info file whose writer is gone.
bool dead_tmp(const std::string &name)
{
    const auto pos = name.rfind(k_tmp_marker);
    uint32_t pid = 0;
    return pos != std::string::npos && parse_u32(name.substr(pos + k_tmp_marker.size()), pid) &&
           pid != 0 && !softcomch::process_exists(int(pid));
}

} // namespace

void ensure_private_dir(const std::string &path)
{
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        fail(errno, "softcomch: cannot create runtime directory " + path);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0)
        fail(errno, "softcomch: cannot stat runtime directory " + path);
    if (!S_ISDIR(st.st_mode))
        fail(ENOTDIR, "softcomch: runtime path is not a directory (or is a symlink): " + path);
    if (st.st_uid != ::geteuid())
        fail(EACCES, "softcomch: runtime directory " + path + " is owned by uid " +
                         std::to_string(st.st_uid) + ", not by us (uid " +
                         std::to_string(::geteuid()) + "); refusing to use it");
    if ((st.st_mode & 077) != 0 && ::chmod(path.c_str(), 0700) != 0)
        fail(errno, "softcomch: cannot make runtime directory private: " + path);
}

std::string fabric_name()
{
    const char *env = std::getenv("SOFTCOMCH_FABRIC");
    if (env == nullptr || env[0] == '\0')
        return "default";
    return env;
}

bool valid_fabric_name(const std::string &name) noexcept
{
    if (name.empty() || name.size() > 64 || name == "." || name == "..")
        return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

std::string fabric_dir_path(const std::string &fabric)
{
    if (!valid_fabric_name(fabric))
        fail(EINVAL, "softcomch: invalid fabric name '" + fabric +
                         "' (SOFTCOMCH_FABRIC must match [A-Za-z0-9._-]{1,64})");
    const char *xdg = std::getenv("XDG_RUNTIME_DIR");
    if (usable_xdg(xdg))
        return std::string(xdg) + "/softcomch/" + fabric;
    return "/tmp/softcomch-" + std::to_string(::geteuid()) + "/" + fabric;
}

std::string fabric_dir(const std::string &fabric)
{
    const std::string dir = fabric_dir_path(fabric);
    // The parent (".../softcomch" or "/tmp/softcomch-<uid>") first, then the fabric itself;
    // both private. $XDG_RUNTIME_DIR itself is the user's and is not touched.
    ensure_private_dir(dir.substr(0, dir.rfind('/')));
    ensure_private_dir(dir);
    return dir;
}

uint64_t fnv1a64(const std::string &data) noexcept
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : data) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

std::string endpoint_socket_path(const std::string &dir, const endpoint_key &key)
{
    if (!valid_id(key.bluefield) || !valid_id(key.host_function))
        fail(EINVAL, "softcomch: invalid endpoint id '" + key.bluefield + "' / '" +
                         key.host_function + "'");
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(key.name)));
    std::string path = dir + "/" + key.bluefield + "@" + key.host_function + "@" + hash;
    path += k_sock_suffix;
    if (path.size() > max_socket_path())
        fail(ENAMETOOLONG, "softcomch: endpoint socket path too long for a Unix socket (" +
                               std::to_string(path.size()) + " > " +
                               std::to_string(max_socket_path()) + " bytes): " + path +
                               "; use a shorter SOFTCOMCH_FABRIC or XDG_RUNTIME_DIR");
    return path;
}

std::string endpoint_info_path(const std::string &socket_path)
{
    if (!ends_with(socket_path, k_sock_suffix))
        fail(EINVAL, "softcomch: not an endpoint socket path: " + socket_path);
    return socket_path.substr(0, socket_path.size() - k_sock_suffix.size()) +
           std::string(k_info_suffix);
}

std::string format_endpoint_info(const endpoint_info &info)
{
    std::string text = "version=" + std::to_string(k_info_version) + "\n";
    text += "name=" + escape(info.key.name) + "\n";
    text += "pid=" + std::to_string(info.pid) + "\n";
    text += "bluefield=" + escape(info.key.bluefield) + "\n";
    text += "host_function=" + escape(info.key.host_function) + "\n";
    text += "dpu_device=" + escape(info.dpu_device) + "\n";
    text += "representor=" + escape(info.representor) + "\n";
    text += "max_msg_size=" + std::to_string(info.max_msg_size) + "\n";
    text += "recv_queue_size=" + std::to_string(info.recv_queue_size) + "\n";
    return text;
}

void write_endpoint_info(const endpoint_info &info)
{
    const std::string path = endpoint_info_path(info.socket_path);
    const std::string tmp = path.substr(0, path.size() - k_info_suffix.size()) +
                            std::string(k_tmp_marker) + std::to_string(::getpid());
    const std::string text = format_endpoint_info(info);

    unique_fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd)
        fail(errno, "softcomch: cannot write " + tmp);
    size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = ::write(fd.get(), text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int e = n < 0 ? errno : EIO;
            ::unlink(tmp.c_str());
            fail(e, "softcomch: cannot write " + tmp);
        }
        off += size_t(n);
    }
    fd.reset();
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        fail(e, "softcomch: cannot publish " + path);
    }
}

bool read_endpoint_info(const std::string &info_path, endpoint_info &out)
{
    unique_fd fd(::open(info_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd)
        return false;
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            break;
        text.append(buf, size_t(n));
        if (text.size() > k_max_info_size)
            return false;
    }
    return parse_endpoint_info(text, info_path, out);
}

bool parse_endpoint_info(std::string_view text, const std::string &info_path, endpoint_info &out)
{
    if (text.size() > k_max_info_size)
        return false;
    endpoint_info e;
    try {
        e.socket_path = info_path.substr(0, info_path.size() - k_info_suffix.size()) +
                        std::string(k_sock_suffix);
    } catch (...) {
        return false;
    }
    if (!ends_with(info_path, k_info_suffix))
        return false;
    bool have_version = false, have_name = false, have_pid = false;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t eol = text.find('\n', pos);
        if (eol == std::string::npos)
            eol = text.size();
        const std::string_view line(text.data() + pos, eol - pos);
        pos = eol + 1;
        if (line.empty() || line[0] == '#')
            continue;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return false;
        const std::string key(line.substr(0, eq));
        std::string value;
        if (!unescape(line.substr(eq + 1), value))
            return false;
        uint32_t num = 0;
        if (key == "version") {
            if (!parse_u32(value, num) || num != uint32_t(k_info_version))
                return false;
            have_version = true;
        } else if (key == "name") {
            e.key.name = value;
            have_name = true;
        } else if (key == "pid") {
            if (!parse_u32(value, num) || num == 0 || num > 0x7fffffffu)
                return false;
            e.pid = int(num);
            have_pid = true;
        } else if (key == "bluefield") {
            e.key.bluefield = value;
        } else if (key == "host_function") {
            e.key.host_function = value;
        } else if (key == "dpu_device") {
            e.dpu_device = value;
        } else if (key == "representor") {
            e.representor = value;
        } else if (key == "max_msg_size") {
            if (!parse_u32(value, e.max_msg_size))
                return false;
        } else if (key == "recv_queue_size") {
            if (!parse_u32(value, e.recv_queue_size))
                return false;
        }
        // Unknown keys are ignored (a newer writer may add some).
    }
    if (!have_version || !have_name || !have_pid)
        return false;
    out = std::move(e);
    return true;
}

void remove_endpoint(const endpoint_info &info) noexcept
{
    if (info.socket_path.empty())
        return;
    ::unlink(info.socket_path.c_str());
    try {
        ::unlink(endpoint_info_path(info.socket_path).c_str());
    } catch (...) {
        // Not an endpoint path: nothing else to remove.
    }
    if (const size_t slash = info.socket_path.rfind('/'); slash != std::string::npos && slash > 0)
        release_fabric_dir(info.socket_path.substr(0, slash));
}

void release_fabric_dir(const std::string &dir) noexcept
{
    // Only a directory of our own, as fabric_dir() made it: never follow a symlink planted in
    // its place (rmdir does not follow one, and the name is checked anyway).
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
        return;
    ::rmdir(dir.c_str()); // ENOTEMPTY while another endpoint or stats file is there: kept
}

bool endpoint_dead(const endpoint_info &e) noexcept
{
    return !softcomch::process_exists(e.pid) || !file_exists(e.socket_path);
}

fabric_files scan_fabric_dir(const std::string &dir)
{
    fabric_files f;
    DIR *d = ::opendir(dir.c_str());
    if (d == nullptr)
        return f; // no fabric directory yet: no endpoints
    while (const dirent *ent = ::readdir(d)) {
        const std::string name = ent->d_name;
        if (ends_with(name, k_info_suffix))
            f.infos.push_back(name);
        else if (ends_with(name, k_sock_suffix))
            f.sockets.push_back(name);
        else if (name.find(k_tmp_marker) != std::string::npos && dead_tmp(name))
            f.dead_tmps.push_back(name);
    }
    ::closedir(d);
    std::sort(f.infos.begin(), f.infos.end());
    std::sort(f.sockets.begin(), f.sockets.end());
    std::sort(f.dead_tmps.begin(), f.dead_tmps.end());
    return f;
}

std::vector<endpoint_info> list_endpoints(const std::string &dir)
{
    std::vector<endpoint_info> live;
    const fabric_files files = scan_fabric_dir(dir);
    for (const auto &t : files.dead_tmps)
        ::unlink((dir + "/" + t).c_str());
    for (const auto &name : files.infos) {
        const std::string path = dir + "/" + name;
        endpoint_info e;
        if (!read_endpoint_info(path, e))
            continue; // malformed or vanished: not ours to judge, skip
        if (endpoint_dead(e)) {
            cleanup_dead(dir, path);
            continue;
        }
        live.push_back(std::move(e));
    }
    return live;
}

std::vector<std::string> fabrics_beside(const std::string &fabric)
{
    std::vector<std::string> names;
    std::string base;
    try {
        base = fabric_dir_path(fabric);
    } catch (const std::system_error &) {
        return names;
    }
    base.erase(base.rfind('/'));
    DIR *d = ::opendir(base.c_str());
    if (d == nullptr)
        return names;
    while (const dirent *ent = ::readdir(d)) {
        const std::string name = ent->d_name;
        if (!valid_fabric_name(name) || (ent->d_type != DT_DIR && ent->d_type != DT_UNKNOWN))
            continue;
        struct stat st;
        if (ent->d_type == DT_DIR ||
            (::lstat((base + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
            names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace softcomch::transport
