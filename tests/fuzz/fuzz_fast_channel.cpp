// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the fast-path channel (src/transport/shm/fast_channel.hpp): header validation of
// a channel image a peer created, and, for an image that passes, the consumer and producer data
// path on top of hostile queue contents, with the peer rewriting any byte of the channel (the
// header included) between operations.
//
// Input: byte 0 = n, bytes 1..n = operations (below), the rest = the start of the channel image.
// The image is zero-padded to the size its header claims when that is a plausible channel size,
// else to the next page multiple, and lives in an exactly sized 128-byte aligned heap block, so
// AddressSanitizer reports any access outside it. For any input:
//   - validate_header() returns a documented code; on success the layout is the canonical one
//     for its capacity and the image size; attach() of the same bytes from a sealed memfd agrees with
//     it, and refuses a size the file does not have;
//   - no operation reads or writes outside the image;
//   - every return is one of the codes fast_channel.hpp documents for that function;
//   - a completion the consumer hands out names a task it posted and has not finished, reports
//     no more bytes than that buffer holds and no more immediate data than configured; once the
//     consumer has seen an impossible completion it hands out nothing any more;
//   - outstanding() never exceeds num_tasks(), and no loop spins on a corrupt word (a hang is a
//     libFuzzer timeout).
#include "fuzz_target.hpp"

#include "common/unique_fd.hpp"
#include "transport/shm/fast_channel.hpp"
#include "transport/shm/peer_checks.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace softcomch::transport::shm;
using softcomch::fuzz::invariant_failed;

namespace {

struct free_deleter {
    void operator()(uint8_t *p) const { std::free(p); }
};

constexpr uint64_t k_page = 4096;
// Images above this add nothing but time (a 1024-task channel is 99 KiB).
constexpr uint64_t k_max_image = 1u << 20;

// The operations, one byte each: low nibble = kind, high nibble = argument.
enum op : uint8_t {
    op_post,          // consumer: post(task = arg, cap = 64 << (arg & 7))
    op_peek_release,  // consumer: peek(); release() what it returned
    op_revoke,        // consumer: revoke()
    op_arm,           // consumer: arm(), disarm() when arg is odd
    op_expire,        // consumer: expire()
    op_claim,         // producer: try_claim(need = 16 << arg)
    op_complete,      // producer: complete() the last claim (or a forged task when arg > 7)
    op_peek_capacity, // producer: peek_capacity()
    op_scribble,      // peer: write the next 8 operation bytes at a word chosen by the 2 before
    op_reattach,      // consumer: attach() again, on whatever the channel holds now
    op_accept,        // producer: accept(); consumer: accepted()
    op_ready,         // consumer: ready(), armed()
    op_count
};

class session {
public:
    session(uint8_t *img, uint64_t len, const fast_channel_layout &lay)
        : img_(img), len_(len), lay_(lay)
    {}

    void attach()
    {
        if (prod_.attach(img_, len_) != DOCA_SUCCESS || cons_.attach(img_, len_) != DOCA_SUCCESS)
            invariant_failed(); // validate_header() accepted this very image
        check_shape();
    }

    void run(const uint8_t *ops, size_t n)
    {
        for (size_t i = 0; i < n; ++i) {
            const uint8_t kind = uint8_t((ops[i] & 0x0f) % op_count);
            const uint32_t arg = ops[i] >> 4;
            if (kind == op_scribble) {
                // The peer rewrites one aligned word anywhere in the channel.
                if (i + 10 >= n)
                    return;
                const uint64_t word =
                    (uint64_t(ops[i + 1]) | uint64_t(ops[i + 2]) << 8) % (len_ / 8);
                std::memcpy(img_ + word * 8, ops + i + 3, 8);
                i += 10;
                continue;
            }
            step(kind, arg);
            if (cons_.outstanding() > cons_.num_tasks())
                invariant_failed();
        }
    }

private:
    void check_shape() const
    {
        if (cons_.capacity() != lay_.capacity || prod_.capacity() != lay_.capacity ||
            cons_.num_tasks() != lay_.num_tasks || cons_.imm_data_len() != lay_.imm_data_len ||
            prod_.imm_data_len() != lay_.imm_data_len)
            invariant_failed();
    }

    void step(uint8_t kind, uint32_t arg)
    {
        switch (kind) {
        case op_post: {
            // Addresses are the consumer's own; nothing dereferences them here.
            const uint64_t cap = uint64_t(64) << (arg & 7);
            const doca_error_t e = cons_.post(arg, 0x10000 + uint64_t(arg) * 0x1000, cap);
            if (e != DOCA_SUCCESS && e != DOCA_ERROR_AGAIN && e != DOCA_ERROR_INVALID_VALUE &&
                e != DOCA_ERROR_BAD_STATE)
                invariant_failed();
            if (e == DOCA_SUCCESS && (cons_.expired() || arg >= cons_.num_tasks()))
                invariant_failed();
            break;
        }
        case op_peek_release: {
            const bool was_corrupted = cons_.corrupted();
            const fast_completion *c = cons_.peek();
            if (c == nullptr)
                break;
            if (was_corrupted || cons_.corrupted() || c->task >= cons_.num_tasks() ||
                c->imm_len > cons_.imm_data_len() || c->len > (uint64_t(64) << 7))
                invariant_failed();
            uint32_t sum = 0;
            for (uint32_t k = 0; k < c->imm_len; ++k)
                sum += c->imm[k];
            (void)sum;
            const uint32_t before = cons_.outstanding();
            if (before == 0)
                invariant_failed(); // a completion for a task that is not outstanding
            cons_.release();
            if (cons_.outstanding() != before - 1)
                invariant_failed();
            break;
        }
        case op_revoke: {
            post_entry e;
            const uint32_t before = cons_.outstanding();
            if (cons_.revoke(&e)) {
                if (e.task >= cons_.num_tasks() || before == 0 || cons_.outstanding() != before - 1)
                    invariant_failed();
            }
            break;
        }
        case op_arm:
            (void)cons_.arm();
            if (arg & 1)
                cons_.disarm();
            break;
        case op_expire:
            cons_.expire();
            break;
        case op_claim: {
            post_entry e;
            const uint64_t need = uint64_t(16) << arg;
            const doca_error_t r = prod_.try_claim(need, &e);
            if (r == DOCA_SUCCESS) {
                if (e.capacity < need)
                    invariant_failed();
                claimed_ = e;
                have_claim_ = true;
            } else if (r != DOCA_ERROR_AGAIN && r != DOCA_ERROR_TOO_BIG &&
                       r != DOCA_ERROR_NOT_CONNECTED) {
                invariant_failed();
            }
            break;
        }
        case op_complete: {
            fast_completion c;
            c.task = arg > 7 || !have_claim_ ? arg * 0x11111111u : claimed_.task;
            c.status = arg & 1 ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
            c.len = have_claim_ && arg <= 7 ? claimed_.capacity >> (arg & 3) : uint64_t(arg) << 60;
            c.producer_id = 7;
            c.imm_len = arg * 3;
            std::memset(c.imm, int(arg), sizeof c.imm);
            bool wake = false;
            const doca_error_t r = prod_.complete(c, &wake);
            // INVALID_VALUE exactly for too much immediate data; else SUCCESS or AGAIN.
            const bool too_long = c.imm_len > prod_.imm_data_len();
            if ((r == DOCA_ERROR_INVALID_VALUE) != too_long ||
                (!too_long && r != DOCA_SUCCESS && r != DOCA_ERROR_AGAIN))
                invariant_failed();
            have_claim_ = have_claim_ && r != DOCA_SUCCESS;
            break;
        }
        case op_peek_capacity: {
            uint64_t cap = 0;
            (void)prod_.peek_capacity(&cap);
            break;
        }
        case op_reattach:
            // Re-binding is control path: the channel is meant to be quiescent, but nothing in
            // it may make the attach read or write outside the image.
            if (cons_.attach(img_, len_) != DOCA_SUCCESS) {
                // The peer may have broken the header since: then the old binding stays.
                fast_channel_layout now;
                if (fast_channel::validate_header(img_, len_, &now) == DOCA_SUCCESS)
                    invariant_failed();
            }
            have_claim_ = false;
            check_shape_if_valid();
            break;
        case op_accept:
            prod_.accept();
            (void)cons_.accepted();
            break;
        case op_ready:
            (void)cons_.ready();
            (void)cons_.armed();
            (void)prod_.expired();
            break;
        default:
            break;
        }
    }

    // After a re-attach the consumer's shape is whatever the current header says, which the
    // peer may have rewritten into another valid channel of the same size.
    void check_shape_if_valid() const
    {
        if (cons_.capacity() == 0 || cons_.num_tasks() > cons_.capacity() ||
            cons_.imm_data_len() > k_fast_max_imm)
            invariant_failed();
    }

    uint8_t *img_;
    uint64_t len_;
    fast_channel_layout lay_;
    fast_consumer cons_;
    fast_producer prod_;
    post_entry claimed_;
    bool have_claim_ = false;
};

// The image size: what the header claims if that is a plausible channel size for this input,
// else the next page multiple of the input.
uint64_t image_size(const uint8_t *img, size_t n)
{
    const uint64_t pages = (uint64_t(n) + k_page - 1) / k_page * k_page;
    uint64_t claimed = 0;
    if (n >= 24)
        std::memcpy(&claimed, img + 16, 8); // config.total_size
    if (claimed >= pages && claimed % k_page == 0 && claimed <= k_max_image && claimed != 0)
        return claimed;
    return pages == 0 ? k_page : pages;
}

// The producer's way in: the image in a memfd of its own, attached by descriptor with the size
// the peer announced (the image's, or a page more or less when `how` says so). The announced
// size must match the file, and then the result must be validate_header()'s.
void attach_from_fd(const uint8_t *img, uint64_t len, doca_error_t validated,
                    const fast_channel_layout &lay, uint8_t how)
{
    // A sealed memfd of its own per input, as a peer must send (an unsealed one is refused).
    softcomch::unique_fd fd(::memfd_create("fuzz-fast-channel", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd || ::ftruncate(fd.get(), off_t(len)) != 0 ||
        ::pwrite(fd.get(), img, size_t(len), 0) != ssize_t(len) ||
        softcomch::transport::shm::seal_memfd(fd.get()) != DOCA_SUCCESS)
        invariant_failed();
    const uint64_t announced = (how & 0xc0) == 0x40   ? len + k_page
                               : (how & 0xc0) == 0x80 ? len - k_page
                                                      : len;
    fast_channel ch;
    const doca_error_t err = fast_channel::attach(fd.get(), announced, ch, false);
    if (announced != len) {
        if (err != DOCA_ERROR_INVALID_VALUE || ch.valid())
            invariant_failed();
        return;
    }
    if (err != validated)
        invariant_failed();
    if (err == DOCA_SUCCESS &&
        (!ch.valid() || ch.size() != len || ch.layout().capacity != lay.capacity ||
         ch.layout().num_tasks != lay.num_tasks || ch.layout().imm_data_len != lay.imm_data_len))
        invariant_failed();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > k_max_image)
        return 0;
    const size_t nops = std::min<size_t>(data[0], size - 1);
    const uint8_t *ops = data + 1;
    const uint8_t *prefix = data + 1 + nops;
    const size_t plen = size - 1 - nops;
    const uint64_t len = image_size(prefix, plen);
    std::unique_ptr<uint8_t, free_deleter> img(
        static_cast<uint8_t *>(std::aligned_alloc(128, len)));
    std::memset(img.get(), 0, len);
    if (plen != 0)
        std::memcpy(img.get(), prefix, plen);

    fast_channel_layout lay;
    const doca_error_t err = fast_channel::validate_header(img.get(), len, &lay);
    attach_from_fd(img.get(), len, err, lay, data[0]);
    if (err != DOCA_SUCCESS) {
        if (err != DOCA_ERROR_INVALID_VALUE && err != DOCA_ERROR_AGAIN &&
            err != DOCA_ERROR_UNSUPPORTED_VERSION)
            invariant_failed();
        return 0;
    }
    // Accepted: the canonical layout, exactly the image.
    if (lay.total_size != len || lay.capacity != fast_channel::capacity_for(lay.num_tasks) ||
        fast_channel::size_for(lay.num_tasks) != len || lay.post_offset != k_fast_ctrl_size ||
        lay.comp_offset + uint64_t(lay.capacity) * k_fast_comp_entry_size > len ||
        lay.post_offset + uint64_t(lay.capacity) * k_fast_post_entry_size > lay.comp_offset ||
        lay.imm_data_len > k_fast_max_imm)
        invariant_failed();
    session s(img.get(), len, lay);
    s.attach();
    s.run(ops, nops);
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    // An input: the operations, then the image with its trailing zeros dropped (the target pads
    // the image back to the size its header claims).
    auto input = [&](const std::string &name, const std::vector<uint8_t> &ops,
                     const std::vector<uint8_t> &image) {
        size_t used = image.size();
        while (used > 0 && image[used - 1] == 0)
            --used;
        std::vector<uint8_t> b;
        b.push_back(uint8_t(ops.size()));
        b.insert(b.end(), ops.begin(), ops.end());
        b.insert(b.end(), image.begin(), image.begin() + std::ptrdiff_t(used));
        out.emplace_back(name, b);
    };
    auto channel = [&](uint32_t num_tasks, uint32_t imm, bool traffic) {
        fast_channel_params p;
        p.num_tasks = num_tasks;
        p.imm_data_len = imm;
        p.consumer_id = 5;
        p.prefault = false;
        const uint64_t len = fast_channel::size_for(num_tasks);
        std::unique_ptr<uint8_t, free_deleter> mem(
            static_cast<uint8_t *>(std::aligned_alloc(128, len)));
        std::memset(mem.get(), 0, len);
        if (fast_channel::init(mem.get(), len, p) != DOCA_SUCCESS)
            invariant_failed();
        if (traffic) {
            // Two posts, one claimed and completed, one left: non-trivial positions.
            fast_consumer c;
            fast_producer pr;
            if (c.attach(mem.get(), len) != DOCA_SUCCESS ||
                pr.attach(mem.get(), len) != DOCA_SUCCESS)
                invariant_failed();
            (void)c.post(0, 0x10000, 4096);
            (void)c.post(1, 0x20000, 4096);
            post_entry e;
            if (pr.claim(&e)) {
                fast_completion fc;
                fc.task = e.task;
                fc.len = 100;
                fc.imm_len = imm;
                bool wake;
                (void)pr.complete(fc, &wake);
            }
        }
        // The pid words (diagnostics, not validated): fixed, so the seeds are reproducible.
        const uint32_t pid = 1234;
        for (size_t off : {size_t(16 + 48), size_t(132), size_t(392)})
            std::memcpy(mem.get() + off, &pid, sizeof pid);
        return std::vector<uint8_t>(mem.get(), mem.get() + len);
    };
    auto o = [](op kind, uint32_t arg) {
        return uint8_t(kind | (arg << 4));
    };
    const std::vector<uint8_t> none;
    // A plain life cycle: post, claim, complete, peek/release, revoke, expire.
    const std::vector<uint8_t> cycle = {
        o(op_post, 0),   o(op_post, 1),         o(op_claim, 2),         o(op_complete, 0),
        o(op_arm, 0),    o(op_peek_release, 0), o(op_peek_capacity, 0), o(op_claim, 15),
        o(op_revoke, 0), o(op_expire, 0),       o(op_claim, 0),         o(op_post, 2),
        o(op_accept, 0), o(op_ready, 0),        o(op_reattach, 0),      o(op_peek_release, 0)};
    // A hostile peer: forged completion, then scribbles over claim_pos and the header.
    const std::vector<uint8_t> hostile = {o(op_post, 0),
                                          o(op_complete, 9),
                                          o(op_peek_release, 0),
                                          o(op_post, 1),
                                          o(op_scribble, 0),
                                          32,
                                          0,
                                          0xff,
                                          0xff,
                                          0xff,
                                          0xff,
                                          0xff,
                                          0xff,
                                          0xff,
                                          0x7f,
                                          o(op_claim, 0),
                                          o(op_revoke, 0),
                                          o(op_scribble, 0),
                                          2,
                                          0,
                                          0,
                                          0,
                                          1,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          o(op_reattach, 0),
                                          o(op_post, 0),
                                          o(op_claim, 0),
                                          o(op_complete, 0),
                                          o(op_peek_release, 0)};
    input("tasks1.bin", none, channel(1, 0, false));
    input("tasks5_imm8.bin", cycle, channel(5, 8, false));
    input("tasks64_imm32.bin", cycle, channel(64, 32, false));
    input("tasks8_traffic.bin", hostile, channel(8, 32, true));
    input("tasks2_hostile.bin", hostile, channel(2, 4, false));
    // Broken ones: unpublished, another version, wrong magic, capacity not canonical.
    auto img = channel(4, 0, false);
    auto broken = img;
    std::memset(broken.data() + 8, 0, 4);
    input("unpublished.bin", none, broken);
    broken = img;
    broken[8] = 1;
    input("version1.bin", none, broken);
    broken = img;
    broken[0] ^= 0xff;
    input("bad_magic.bin", none, broken);
    broken = img;
    broken[24] = 8; // capacity 8 for 4 tasks
    input("capacity.bin", none, broken);
    return out;
}

} // namespace softcomch::fuzz
