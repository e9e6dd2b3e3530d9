// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: validation of a shared-memory segment image (src/transport/shm/segment.hpp) and,
// for images that pass, the ring data path on top of hostile ring contents. Any image must be
// rejected cleanly; an accepted one must never let a ring operation leave the image.
#include "fuzz_target.hpp"

#include "transport/shm/segment.hpp"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace softcomch::transport::shm;

namespace {

struct free_deleter {
    void operator()(uint8_t *p) const { std::free(p); }
};

// Runs a bounded mix of producer and consumer operations on ring `d` of a validated image.
void exercise(uint8_t *img, const segment_layout &lay, ring_dir d)
{
    uint8_t *mem = img + lay.rings[d].offset;
    const uint64_t len = lay.rings[d].size;
    ring_producer p;
    ring_consumer c;
    if (p.attach(mem, len) != DOCA_SUCCESS || c.attach(mem, len) != DOCA_SUCCESS)
        softcomch::fuzz::invariant_failed(); // validate_header() accepted it
    const uint8_t *lo = mem;
    const uint8_t *hi = mem + len;
    // Consume whatever the image claims is there (bounded), reading every payload byte.
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 2 * (c.capacity() / 64) + 2; ++i) {
        const record_view *v = c.peek();
        if (v == nullptr)
            break;
        const auto *data = static_cast<const uint8_t *>(v->data);
        if (v->len > c.max_payload() || data < lo || data + v->len > hi)
            softcomch::fuzz::invariant_failed();
        for (uint32_t k = 0; k < v->len; ++k)
            sum += data[k];
        c.release();
    }
    // Produce until full (bounded), writing whole payloads.
    for (uint32_t i = 0; i < p.capacity() / 64 + 2; ++i) {
        void *slot = p.try_claim(p.max_payload());
        if (slot == nullptr)
            break;
        auto *s = static_cast<uint8_t *>(slot);
        if (s < lo || s + p.max_payload() > hi)
            softcomch::fuzz::invariant_failed();
        std::memset(s, int(sum), p.max_payload());
        (void)p.commit(1, p.max_payload());
    }
    (void)c.arm();
    (void)c.pending();
    (void)p.in_flight();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > (size_t(1) << 22))
        return 0; // larger images add nothing but time
    // Shared memory is page aligned; give the image the same alignment (validation needs 8).
    const size_t cap = (size + 4095) & ~size_t(4095);
    auto *raw = static_cast<uint8_t *>(std::aligned_alloc(4096, cap));
    std::unique_ptr<uint8_t, free_deleter> img(raw);
    std::memcpy(img.get(), data, size);
    segment_layout lay;
    const doca_error_t err = segment::validate_header(img.get(), size, &lay);
    if (err != DOCA_SUCCESS)
        return 0;
    // Accepted: the layout must describe the image exactly.
    if (lay.total_size != size)
        softcomch::fuzz::invariant_failed();
    for (auto d : {c2s, s2c}) {
        if (lay.rings[d].offset < k_segment_header_size ||
            lay.rings[d].offset + lay.rings[d].size > size)
            softcomch::fuzz::invariant_failed();
    }
    exercise(img.get(), lay, c2s);
    exercise(img.get(), lay, s2c);
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto image = [&](const std::string &name, const ring_params &a, const ring_params &b,
                     bool with_traffic) {
        segment_params sp;
        sp.rings[c2s] = a;
        sp.rings[s2c] = b;
        sp.generation = 42;
        sp.prefault = false;
        segment s;
        if (segment::create(sp, s) != DOCA_SUCCESS)
            invariant_failed();
        if (with_traffic) {
            // A few messages in flight in c2s, some consumed: non-trivial positions.
            ring_producer p;
            ring_consumer c;
            if (s.producer(c2s, p) != DOCA_SUCCESS || s.consumer(c2s, c) != DOCA_SUCCESS)
                invariant_failed();
            for (uint32_t i = 0; i < 3; ++i) {
                bool wake;
                (void)p.send(uint16_t(i), "payload", 7, &wake);
                if (i == 0 && c.peek() != nullptr)
                    c.release();
            }
        }
        const auto *base = static_cast<const uint8_t *>(s.base());
        out.emplace_back(name, std::vector<uint8_t>(base, base + s.size()));
    };
    image("valid_min.bin", {128, 64, 1}, {128, 64, 1}, false);
    image("valid_traffic.bin", {512, 128, 3}, {256, 64, 2}, true);
    // Broken ones: header page only, unpublished version, corrupt ring magic.
    auto hdr = out[0].second;
    hdr.resize(4096);
    out.emplace_back("header_only.bin", hdr);
    auto unpublished = out[0].second;
    std::memset(unpublished.data() + 8, 0, 4);
    out.emplace_back("unpublished.bin", unpublished);
    auto bad_ring = out[1].second;
    bad_ring[4096] ^= 0xff;
    out.emplace_back("bad_ring_magic.bin", bad_ring);
    return out;
}

} // namespace softcomch::fuzz
