// SPDX-License-Identifier: Apache-2.0
#include "transport/live_publisher.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <map>
#include <mutex>
#include <system_error>
#include <vector>

#include "common/log.hpp"
#include "common/mapped_region.hpp"
#include "common/process_info.hpp"
#include "common/unique_fd.hpp"
#include "transport/fabric.hpp"

namespace softcomch::transport {

namespace {

[[noreturn]] void fail(int err, const std::string &what)
{
    throw std::system_error(err, std::generic_category(), what);
}

uint64_t unix_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

std::string live_dir(const std::string &fabric_directory)
{
    return fabric_directory + "/" + std::string(live::k_live_dir);
}

std::string file_name(int pid)
{
    return std::to_string(pid) + std::string(live::k_live_suffix);
}

} // namespace

// One mapped file: this process's figures in one fabric. Shared by the slots claimed in it; the
// last one to go removes it.
class live_file {
public:
    static std::shared_ptr<live_file> make(const std::string &fabric);
    ~live_file();
    live_file(const live_file &) = delete;
    live_file &operator=(const live_file &) = delete;

    live::file_header *header() const noexcept
    {
        return static_cast<live::file_header *>(map_.base());
    }
    void *base() const noexcept { return map_.base(); }
    // The process that made it (a forked child makes its own: it must not touch this one).
    bool ours() const noexcept { return pid_ == int(::getpid()); }

    // Under mu_: the first free slot of `used`, or used.size() when every one is taken (then
    // counted in `unpublished`, which the header shows to the readers).
    static uint32_t first_free(const std::vector<bool> &used,
                               std::atomic<uint32_t> &unpublished) noexcept
    {
        uint32_t i = 0;
        while (i < used.size() && used[i])
            ++i;
        if (i == used.size())
            unpublished.fetch_add(1, std::memory_order_relaxed);
        return i;
    }

    const std::string fabric_;
    std::mutex mu_;
    std::vector<bool> contexts_used_ = std::vector<bool>(live::k_live_context_slots);
    std::vector<bool> connections_used_ = std::vector<bool>(live::k_live_connection_slots);
    std::vector<bool> resources_used_ = std::vector<bool>(live::k_live_resource_slots);

private:
    live_file(std::string fabric, std::string path, int pid, mapped_region map)
        : fabric_(std::move(fabric)), path_(std::move(path)), pid_(pid), map_(std::move(map))
    {}
    const std::string path_;
    const int pid_;
    mapped_region map_;
};

std::shared_ptr<live_file> live_file::make(const std::string &fabric)
{
    const int pid = int(::getpid());
    const std::string dir = live_dir(fabric_dir_path(fabric));
    const std::string path = dir + "/" + file_name(pid);
    const std::string tmp = path + std::string(live::k_live_tmp_suffix);
    unique_fd fd;
    // The directories go with the last file in them (~live_file, release_fabric_dir): another
    // process may remove them between our mkdir and our open, so both are retried.
    for (int attempt = 0; attempt < 4 && !fd; ++attempt) {
        (void)fabric_dir(fabric);
        ensure_private_dir(dir); // private to us, as the fabric directory is
        fd.reset(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
        if (!fd && errno != ENOENT)
            break;
    }
    if (!fd)
        fail(errno, "cannot create " + tmp);
    // Allocated now: a store into a hole of a full file system would raise SIGBUS in the
    // program, on the data path; a full one refuses here instead.
    if (int rc = ::posix_fallocate(fd.get(), 0, off_t(live::k_live_file_size)); rc != 0) {
        ::unlink(tmp.c_str());
        fail(rc, "cannot allocate " + tmp);
    }
    void *base =
        ::mmap(nullptr, live::k_live_file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (base == MAP_FAILED) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail(err, "cannot map " + tmp);
    }
    mapped_region map(base, live::k_live_file_size);
    auto *h = static_cast<live::file_header *>(base);
    h->magic = live::k_live_magic;
    h->header_size = live::k_live_header_size;
    h->context_slot_size = live::k_live_context_slot_size;
    h->connection_slot_size = live::k_live_connection_slot_size;
    h->context_slots = live::k_live_context_slots;
    h->connection_slots = live::k_live_connection_slots;
    h->pid = pid;
    process_stat st;
    h->start_time = read_process_stat(0, st) ? st.start_time : 0;
    h->created_unix_ns = unix_ns();
    h->context_offset = live::k_live_context_offset;
    h->connection_offset = live::k_live_connection_offset;
    h->resource_offset = live::k_live_resource_offset;
    h->resource_slot_size = live::k_live_resource_slot_size;
    h->resource_slots = live::k_live_resource_slots;
    live::put_text(h->fabric, fabric);
    live::put_text(h->comm, process_comm(0));
    live::put_text(h->cmdline, process_cmdline(0, sizeof h->cmdline - 1));
    // Last: a reader of the mapping trusts nothing before it (and none sees the file before the
    // rename below).
    h->version.store(live::k_live_version, std::memory_order_release);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        fail(err, "cannot rename " + tmp);
    }
    return std::shared_ptr<live_file>(new live_file(fabric, path, pid, std::move(map)));
}

namespace {

// The files of this process, by fabric. Never destroyed: contexts may go after static
// destructors ran.
struct registry {
    std::mutex mu;
    std::map<std::string, std::weak_ptr<live_file>> files;
    bool failure_logged = false;
};

registry &the_registry()
{
    static registry *r = new registry;
    return *r;
}

} // namespace

live_file::~live_file()
{
    if (!ours())
        return; // a forked child's copy: the file is its parent's
    // Under the registry's lock: a claim on another thread may have made the next file of this
    // fabric, under the same name, since the last reference to this one went.
    registry &r = the_registry();
    std::lock_guard<std::mutex> g(r.mu);
    auto it = r.files.find(fabric_);
    if (it != r.files.end() && !it->second.expired())
        return;
    ::unlink(path_.c_str()); // the reader removes those of processes that died instead
    // Each fails unless it held the last file: the stats directory, then the fabric directory.
    const std::string dir = path_.substr(0, path_.rfind('/'));
    ::rmdir(dir.c_str());
    release_fabric_dir(dir.substr(0, dir.rfind('/')));
    if (it != r.files.end())
        r.files.erase(it);
}

namespace {

std::shared_ptr<live_file> file_for(const std::string &fabric)
{
    registry &r = the_registry();
    std::lock_guard<std::mutex> g(r.mu);
    std::weak_ptr<live_file> &slot = r.files[fabric];
    if (std::shared_ptr<live_file> f = slot.lock(); f && f->ours())
        return f;
    try {
        std::shared_ptr<live_file> f = live_file::make(fabric);
        slot = f;
        return f;
    } catch (const std::system_error &e) {
        if (!r.failure_logged)
            SC_LOG_DBG("fabric '%s': live figures not published (softcomch top will not show "
                       "this process): %s",
                       fabric.c_str(), e.what());
        r.failure_logged = true;
        return nullptr;
    }
}

} // namespace

std::string live_file_path(const std::string &fabric)
{
    return live_file_path(fabric, int(::getpid()));
}

std::string live_file_path(const std::string &fabric, int pid)
{
    return live_dir(fabric_dir_path(fabric)) + "/" + file_name(pid);
}

bool live_context_slot::claim(const std::string &fabric, const live_context_identity &id) noexcept
{
    release();
    try {
        std::shared_ptr<live_file> f = file_for(fabric);
        if (!f)
            return false;
        std::lock_guard<std::mutex> g(f->mu_);
        const uint32_t i =
            live_file::first_free(f->contexts_used_, f->header()->contexts_unpublished);
        if (i == live::k_live_context_slots)
            return false;
        live::context_slot *s = live::context_at(f->base(), i);
        const uint32_t gen = s->gen.load(std::memory_order_relaxed); // even: free
        // Release stores (docs/shm_layout.md, 11.6): a reader that loads one of these loads the
        // gen word of this claim, not the one of the slot's previous owner.
        constexpr auto release = std::memory_order_release;
        s->id.store(id.id, release);
        s->kind.store(id.kind, release);
        s->state.store(id.state, release);
        s->max_msg_size.store(id.max_msg_size, release);
        s->recv_queue_size.store(id.recv_queue_size, release);
        s->connections.store(0, release);
        s->name_len.store(uint32_t(id.name.size()), release);
        s->last_tick_ns.store(0, release);
        s->claimed_unix_ns.store(unix_ns(), release);
        live::put_text(s->bluefield, id.bluefield);
        live::put_text(s->device, id.device);
        live::put_text(s->host_function, id.host_function);
        live::put_text(s->representor, id.representor);
        live::put_text(s->name, id.name);
        // Publishes the fields above to a reader that sees the odd value.
        s->gen.store(gen | 1u, std::memory_order_release);
        f->contexts_used_[i] = true;
        file_ = std::move(f);
        slot_ = s;
        index_ = i;
        return true;
    } catch (...) { // allocation: not published
        return false;
    }
}

template <class Slot>
template <class Also>
void live_slot<Slot>::give_back(std::vector<bool> live_file::*used, Also &&also) noexcept
{
    if (!file_)
        return;
    if (file_->ours()) {
        std::lock_guard<std::mutex> g(file_->mu_);
        // Even again: a reader that sees it reads the slot as free.
        slot_->gen.store(slot_->gen.load(std::memory_order_relaxed) + 1, std::memory_order_release);
        ((*file_).*used)[index_] = false;
        also(*file_);
    }
    slot_ = nullptr;
    file_.reset(); // the last slot of the file removes it
}

void live_context_slot::release() noexcept
{
    give_back(&live_file::contexts_used_, [](live_file &) {});
}

const std::string &live_context_slot::fabric() const noexcept
{
    static const std::string none;
    return file_ ? file_->fabric_ : none;
}

bool live_connection_slot::claim(const live_context_slot &ctx,
                                 const live_connection_identity &id) noexcept
{
    release();
    if (!ctx.file_ || !ctx.file_->ours())
        return false;
    live_file &f = *ctx.file_;
    std::lock_guard<std::mutex> g(f.mu_);
    const uint32_t i =
        live_file::first_free(f.connections_used_, f.header()->connections_unpublished);
    if (i == live::k_live_connection_slots)
        return false;
    live::connection_slot *s = live::connection_at(f.base(), i);
    const uint32_t gen = s->gen.load(std::memory_order_relaxed);
    constexpr auto release = std::memory_order_release; // as for a context slot
    s->counters.sent_messages.store(0, release);
    s->counters.sent_bytes.store(0, release);
    s->counters.recv_messages.store(0, release);
    s->counters.recv_bytes.store(0, release);
    s->context.store(ctx.index_, release);
    s->connection_id.store(id.connection_id, release);
    s->peer_pid.store(id.peer_pid, release);
    s->state.store(live::k_conn_open, release);
    s->flags.store(0, release);
    s->send_queued.store(0, release);
    s->send_ring.store(0, release);
    s->recv_ring.store(0, release);
    s->send_ring_limit.store(id.send_ring_limit, release);
    s->recv_ring_limit.store(id.recv_ring_limit, release);
    s->consumers.store(0, release);
    s->producers.store(0, release);
    s->peer_silent_ms.store(0, release);
    s->max_msg_size.store(id.max_msg_size, release);
    s->gen.store(gen | 1u, std::memory_order_release);
    ctx.slot_->connections.fetch_add(1, std::memory_order_relaxed);
    f.connections_used_[i] = true;
    file_ = ctx.file_;
    slot_ = s;
    index_ = i;
    context_ = ctx.index_;
    return true;
}

void live_connection_slot::release() noexcept
{
    give_back(&live_file::connections_used_, [this](live_file &f) {
        // Its context's count, while that slot is still the context's (a context gives its slot
        // back only after its connections, but a count must never wrap).
        if (f.contexts_used_[context_]) {
            live::context_slot *c = live::context_at(f.base(), context_);
            if (c->connections.load(std::memory_order_relaxed) != 0)
                c->connections.fetch_sub(1, std::memory_order_relaxed);
        }
    });
}

bool live_resource_slot::claim(const std::string &fabric, const live_resource_identity &id) noexcept
{
    release();
    try {
        std::shared_ptr<live_file> f = file_for(fabric);
        if (!f)
            return false;
        std::lock_guard<std::mutex> g(f->mu_);
        const uint32_t i =
            live_file::first_free(f->resources_used_, f->header()->resources_unpublished);
        if (i == live::k_live_resource_slots)
            return false;
        live::resource_slot *s = live::resource_at(f->base(), i);
        const uint32_t gen = s->gen.load(std::memory_order_relaxed); // even: free
        constexpr auto release = std::memory_order_release;          // as for a context slot
        s->words.tasks_done.store(0, release);
        s->words.tasks_failed.store(0, release);
        s->words.bytes.store(0, release);
        s->words.in_flight.store(0, release);
        s->words.state.store(id.state, release);
        s->kind.store(id.kind, release);
        s->id.store(id.id, release);
        s->access.store(id.access, release);
        s->addr.store(id.addr, release);
        s->len.store(id.len, release);
        live::put_text(s->name, id.name);
        live::put_text(s->device, id.device);
        live::put_text(s->peer, id.peer);
        live::put_text(s->peer_function, id.peer_function);
        s->gen.store(gen | 1u, std::memory_order_release);
        f->resources_used_[i] = true;
        file_ = std::move(f);
        slot_ = s;
        index_ = i;
        return true;
    } catch (...) { // allocation: not published
        return false;
    }
}

void live_resource_slot::release() noexcept
{
    give_back(&live_file::resources_used_, [](live_file &) {});
}

const std::string &live_resource_slot::fabric() const noexcept
{
    static const std::string none;
    return file_ ? file_->fabric_ : none;
}

} // namespace softcomch::transport
