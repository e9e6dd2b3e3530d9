// SPDX-License-Identifier: Apache-2.0
#include "introspect/live.hpp"

#include <doca_ctx.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <map>
#include <string_view>
#include <tuple>

#include "common/live_layout.hpp"
#include "common/mapped_region.hpp"
#include "common/posix.hpp"
#include "common/process_info.hpp"
#include "common/unique_fd.hpp"
#include "core/ctx.hpp"

namespace softcomch::introspect {

namespace {

// Anything larger is not a stats file of any version we know.
constexpr off_t k_max_file_size = 16 << 20;

uint64_t monotonic_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

// "<pid><suffix>" -> pid; 0 when the name is not of that form.
int pid_of(std::string_view name, std::string_view suffix)
{
    if (name.size() <= suffix.size() || !name.ends_with(suffix))
        return 0;
    name.remove_suffix(suffix.size());
    int pid = 0;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (ec != std::errc() || ptr != name.data() + name.size() || pid <= 0)
        return 0;
    return pid;
}

// The process the file names is gone: no such pid, a zombie (it ended; its parent has not
// reaped it yet), or the pid now names a process that started at another time.
bool writer_gone(int pid, uint64_t start_time)
{
    if (!process_exists(pid))
        return true;
    process_stat st;
    if (!read_process_stat(pid, st))
        return false; // /proc hidden from us: the pid exists, trust it
    return st.state == 'Z' || st.state == 'X' || (start_time != 0 && st.start_time != start_time);
}

// The word is the writer's (any value at all): only a doca_ctx_states value becomes one.
const char *state_text(uint32_t s)
{
    return s <= DOCA_CTX_STATE_STOPPING ? core::state_name(static_cast<doca_ctx_states>(s))
                                        : "UNKNOWN";
}

// Copies a slot with `copy` (acquire loads of every field it reads) between two loads of its gen
// word; false when the slot is free or changed while it was copied (claimed or released
// meanwhile: it is read as absent). The acquire loads keep the second load of gen after them,
// and pair with the writer's release stores (docs/shm_layout.md, 11.6).
template <class Slot, class Copy> bool read_slot(const Slot &s, Copy &&copy)
{
    for (int attempt = 0; attempt < 4; ++attempt) {
        const uint32_t before = s.gen.load(std::memory_order_acquire);
        if ((before & 1u) == 0)
            return false;
        copy();
        if (s.gen.load(std::memory_order_relaxed) == before)
            return true;
    }
    return false;
}

constexpr auto acquire = std::memory_order_acquire;

// What is wrong with a mapped file's header (nullptr: nothing), for the file of `pid`.
const char *check_header(const live::file_header &h, uint64_t size, int pid, std::string &why)
{
    if (h.magic != live::k_live_magic)
        return "not a SoftComch stats file (bad magic)";
    const uint32_t version = h.version.load(std::memory_order_acquire);
    if (version != live::k_live_version) {
        why = "stats layout version " + std::to_string(version) + " (this softcomch reads " +
              std::to_string(live::k_live_version) + ")";
        return why.c_str();
    }
    if (h.header_size != live::k_live_header_size ||
        h.context_slot_size != live::k_live_context_slot_size ||
        h.connection_slot_size != live::k_live_connection_slot_size ||
        h.context_slots != live::k_live_context_slots ||
        h.connection_slots != live::k_live_connection_slots ||
        h.context_offset != live::k_live_context_offset ||
        h.connection_offset != live::k_live_connection_offset ||
        h.resource_offset != live::k_live_resource_offset ||
        h.resource_slot_size != live::k_live_resource_slot_size ||
        h.resource_slots != live::k_live_resource_slots)
        return "a header whose sizes are not those of its layout version";
    if (size < live::k_live_file_size)
        return "shorter than its layout";
    if (h.pid != pid)
        return "its header names another pid than its file name";
    return nullptr;
}

struct file_reader {
    live_view &view;
    const uint64_t now_ns = monotonic_ns();

    void read(const std::string &path, int pid, bool remove_stale);

private:
    void read_resource(const live::resource_slot &s, int pid);
    void problem(const std::string &path, std::string why)
    {
        view.unreadable.push_back({path, std::move(why)});
    }
};

void file_reader::read(const std::string &path, int pid, bool remove_stale)
{
    unique_fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (!fd) {
        if (errno != ENOENT) // removed since the directory was read: its process just ended
            problem(path, std::string("cannot open: ") + std::strerror(errno));
        return;
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return problem(path, "not a regular file");
    if (st.st_uid != ::geteuid())
        return problem(path, "owned by uid " + std::to_string(st.st_uid) + ", not by us");
    if (st.st_size < off_t(live::k_live_header_size) || st.st_size > k_max_file_size)
        return problem(path, "not the size of a stats file");
    void *base = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd.get(), 0);
    if (base == MAP_FAILED)
        return problem(path, std::string("cannot map: ") + std::strerror(errno));
    const mapped_region map(base, size_t(st.st_size));
    const auto &h = *static_cast<const live::file_header *>(base);
    std::string why;
    if (const char *bad = check_header(h, uint64_t(st.st_size), pid, why))
        return problem(path, bad);
    if (writer_gone(pid, h.start_time)) {
        if (remove_stale)
            ::unlink(path.c_str());
        view.stale.push_back(path);
        return;
    }

    live_process p;
    p.pid = pid;
    p.comm = live::get_text(h.comm);
    p.cmdline = live::get_text(h.cmdline);
    process_stat ps;
    if (read_process_stat(pid, ps))
        p.state = ps.state;
    p.created_unix_ns = h.created_unix_ns;
    p.contexts_unpublished = h.contexts_unpublished.load(std::memory_order_relaxed);
    p.connections_unpublished = h.connections_unpublished.load(std::memory_order_relaxed);
    p.resources_unpublished = h.resources_unpublished.load(std::memory_order_relaxed);
    p.path = path;
    view.processes.push_back(std::move(p));

    // Context slots by index, for the connections that name them.
    std::map<uint32_t, size_t> contexts;
    for (uint32_t i = 0; i < live::k_live_context_slots; ++i) {
        const live::context_slot &s = *live::context_at(base, i);
        live_context c;
        uint64_t tick = 0;
        const bool present = read_slot(s, [&] {
            c.pid = pid;
            c.id = s.id.load(acquire);
            const uint32_t kind = s.kind.load(acquire);
            c.kind = kind == live::k_kind_server   ? "server"
                     : kind == live::k_kind_client ? "client"
                                                   : "unknown";
            c.name = live::get_text(s.name);
            c.name_truncated = s.name_len.load(acquire) > c.name.size();
            c.state = state_text(s.state.load(acquire));
            c.bluefield = live::get_text(s.bluefield);
            c.device = live::get_text(s.device);
            c.host_function = live::get_text(s.host_function);
            c.representor = live::get_text(s.representor);
            c.max_msg_size = s.max_msg_size.load(acquire);
            c.recv_queue_size = s.recv_queue_size.load(acquire);
            c.connections = s.connections.load(acquire);
            tick = s.last_tick_ns.load(acquire);
        });
        if (!present)
            continue;
        if (tick != 0)
            c.since_tick_ms = now_ns > tick ? (now_ns - tick) / 1'000'000 : 0;
        contexts[i] = view.contexts.size();
        view.contexts.push_back(std::move(c));
    }
    for (uint32_t i = 0; i < live::k_live_connection_slots; ++i) {
        const live::connection_slot &s = *live::connection_at(base, i);
        live_connection c;
        uint32_t context = 0;
        const bool present = read_slot(s, [&] {
            context = s.context.load(acquire);
            c.pid = pid;
            c.id = s.connection_id.load(acquire);
            c.peer_pid = s.peer_pid.load(acquire);
            c.state = s.state.load(acquire) == live::k_conn_closing ? "closing" : "open";
            c.sent_messages = s.counters.sent_messages.load(acquire);
            c.sent_bytes = s.counters.sent_bytes.load(acquire);
            c.recv_messages = s.counters.recv_messages.load(acquire);
            c.recv_bytes = s.counters.recv_bytes.load(acquire);
            c.send_queued = s.send_queued.load(acquire);
            c.send_ring = s.send_ring.load(acquire);
            c.send_ring_limit = s.send_ring_limit.load(acquire);
            c.recv_ring = s.recv_ring.load(acquire);
            c.recv_ring_limit = s.recv_ring_limit.load(acquire);
            c.consumers = s.consumers.load(acquire);
            c.producers = s.producers.load(acquire);
            const uint32_t flags = s.flags.load(acquire);
            c.peer_stalled = (flags & live::k_flag_peer_stalled) != 0;
            c.peer_asleep = (flags & live::k_flag_peer_asleep) != 0;
            c.peer_gone = (flags & live::k_flag_peer_gone) != 0;
            c.peer_silent_ms = s.peer_silent_ms.load(acquire);
            c.max_msg_size = s.max_msg_size.load(acquire);
        });
        if (!present)
            continue;
        auto it = contexts.find(context);
        if (it == contexts.end())
            continue; // its context's slot went meanwhile: the connection goes too
        const live_context &ctx = view.contexts[it->second];
        c.context_id = ctx.id;
        c.side = ctx.kind;
        c.name = ctx.name;
        view.connections.push_back(std::move(c));
    }
    for (uint32_t i = 0; i < live::k_live_resource_slots; ++i)
        read_resource(*live::resource_at(base, i), pid);
}

void file_reader::read_resource(const live::resource_slot &s, int pid)
{
    uint32_t kind = 0;
    live_engine e;
    live_memory m;
    const bool present = read_slot(s, [&] {
        kind = s.kind.load(acquire);
        e.pid = m.pid = pid;
        e.id = m.id = s.id.load(acquire);
        e.engine = m.what = live::get_text(s.name);
        e.device = m.function = live::get_text(s.device);
        e.state = state_text(s.words.state.load(acquire));
        e.tasks_done = s.words.tasks_done.load(acquire);
        e.tasks_failed = s.words.tasks_failed.load(acquire);
        e.bytes = m.bytes = s.words.bytes.load(acquire);
        e.in_flight = s.words.in_flight.load(acquire);
        m.access = s.access.load(acquire);
        m.addr = s.addr.load(acquire);
        m.len = s.len.load(acquire);
        m.peer = live::get_text(s.peer);
        m.peer_function = live::get_text(s.peer_function);
    });
    if (!present)
        return;
    switch (kind) {
    case live::k_res_engine:
        view.engines.push_back(std::move(e));
        break;
    case live::k_res_export:
    case live::k_res_import:
        m.role = kind == live::k_res_export ? "export" : "import";
        if (kind == live::k_res_export) {
            m.peer.clear();
            m.peer_function.clear();
            m.bytes = 0;
        }
        view.memory.push_back(std::move(m));
        break;
    default: // a kind this reader does not know: not shown
        break;
    }
}

} // namespace

live_view read_live(const std::string &fabric_dir, bool remove_stale)
{
    live_view view;
    view.stats_dir = fabric_dir + "/" + std::string(live::k_live_dir);
    DIR *d = ::opendir(view.stats_dir.c_str());
    if (d == nullptr)
        return view;
    std::vector<std::string> names;
    while (const dirent *ent = ::readdir(d))
        names.emplace_back(ent->d_name);
    ::closedir(d);
    std::sort(names.begin(), names.end());

    const std::string tmp_suffix =
        std::string(live::k_live_suffix) + std::string(live::k_live_tmp_suffix);
    file_reader reader{view};
    for (const std::string &name : names) {
        const std::string path = view.stats_dir + "/" + name;
        if (const int pid = pid_of(name, tmp_suffix); pid != 0) {
            // A file being made; its maker died before renaming it when the pid is gone.
            if (!process_exists(pid)) {
                if (remove_stale)
                    ::unlink(path.c_str());
                view.stale.push_back(path);
            }
            continue;
        }
        const int pid = pid_of(name, live::k_live_suffix);
        if (pid == 0) {
            if (name != "." && name != "..")
                view.unreadable.push_back({path, "not named <pid>.stats"});
            continue;
        }
        reader.read(path, pid, remove_stale);
    }
    if (remove_stale && !view.stale.empty())
        ::rmdir(view.stats_dir.c_str()); // as a writer leaves it: gone with its last file
    std::sort(view.processes.begin(), view.processes.end(),
              [](const auto &a, const auto &b) { return a.pid < b.pid; });
    std::sort(view.contexts.begin(), view.contexts.end(), [](const auto &a, const auto &b) {
        return std::tie(a.pid, a.id) < std::tie(b.pid, b.id);
    });
    std::sort(view.connections.begin(), view.connections.end(), [](const auto &a, const auto &b) {
        return std::tie(a.pid, a.context_id, a.id) < std::tie(b.pid, b.context_id, b.id);
    });
    std::sort(view.engines.begin(), view.engines.end(), [](const auto &a, const auto &b) {
        return std::tie(a.pid, a.id) < std::tie(b.pid, b.id);
    });
    std::sort(view.memory.begin(), view.memory.end(), [](const auto &a, const auto &b) {
        return std::tie(a.pid, a.role, a.id) < std::tie(b.pid, b.role, b.id);
    });
    return view;
}

} // namespace softcomch::introspect
