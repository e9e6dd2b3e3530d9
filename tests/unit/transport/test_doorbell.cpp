// SPDX-License-Identifier: Apache-2.0
//
// The server's doorbell page (src/transport/shm/doorbell.hpp): bits handed out and taken back,
// rings seen once, in any order of bits, through a second mapping as a client has it; and the
// client's checks of the page it is given.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <vector>

#include "transport/shm/doorbell.hpp"

using namespace softcomch;
using namespace softcomch::transport::shm;

namespace {

std::vector<uint32_t> taken(doorbell_owner &o)
{
    std::vector<uint32_t> v;
    o.take([&](uint32_t b) { v.push_back(b); });
    std::sort(v.begin(), v.end());
    return v;
}

unique_fd dup_of(int fd)
{
    return unique_fd(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
}

} // namespace

TEST(unit_transport_doorbell, bits_are_handed_out_once_and_reused_after_release)
{
    std::shared_ptr<doorbell_owner> o;
    ASSERT_EQ(doorbell_owner::create(o), DOCA_SUCCESS);
    std::set<uint32_t> seen;
    for (uint32_t i = 0; i < k_doorbell_bits; ++i) {
        const uint32_t b = o->allocate();
        ASSERT_LT(b, k_doorbell_bits);
        EXPECT_TRUE(seen.insert(b).second);
    }
    EXPECT_EQ(o->allocate(), k_no_bell);
    o->release(777);
    EXPECT_EQ(o->allocate(), 777u);
    o->release(k_no_bell); // harmless
}

TEST(unit_transport_doorbell, rings_through_a_client_mapping_are_taken_once)
{
    std::shared_ptr<doorbell_owner> o;
    ASSERT_EQ(doorbell_owner::create(o), DOCA_SUCCESS);
    EXPECT_TRUE(taken(*o).empty());
    std::vector<doorbell_ringer> r;
    const uint32_t bits[] = {0, 5, 63, 64, 70, 4095};
    for (uint32_t b : bits) {
        doorbell_ringer x;
        ASSERT_EQ(x.attach(dup_of(o->fd()), b), nullptr);
        r.push_back(std::move(x));
    }
    r[1].ring();
    r[4].ring();
    r[4].ring(); // twice before a take: seen once
    EXPECT_EQ(taken(*o), (std::vector<uint32_t>{5, 70}));
    EXPECT_TRUE(taken(*o).empty());
    for (auto &x : r)
        x.ring();
    EXPECT_EQ(taken(*o), (std::vector<uint32_t>(std::begin(bits), std::end(bits))));
    // A bit handed out starts silent, whatever its previous holder left on it.
    r[0].ring();
    EXPECT_EQ(o->allocate(), 0u);
    EXPECT_TRUE(taken(*o).empty());
}

TEST(unit_transport_doorbell, a_client_refuses_a_page_that_is_not_one)
{
    std::shared_ptr<doorbell_owner> o;
    ASSERT_EQ(doorbell_owner::create(o), DOCA_SUCCESS);
    doorbell_ringer r;
    EXPECT_STREQ(r.attach(dup_of(o->fd()), k_doorbell_bits), "the doorbell bit is out of range");
    EXPECT_EQ(r.attach(dup_of(o->fd()), k_no_bell), nullptr);
    r.ring(); // nothing to ring
    EXPECT_TRUE(taken(*o).empty());

    // Not sealed.
    unique_fd plain(::memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    ASSERT_EQ(::ftruncate(plain.get(), off_t(k_doorbell_size)), 0);
    EXPECT_NE(r.attach(std::move(plain), 1), nullptr);

    // Sealed, one page, but not a doorbell's header.
    unique_fd junk(::memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    ASSERT_EQ(::ftruncate(junk.get(), off_t(k_doorbell_size)), 0);
    ASSERT_EQ(::fcntl(junk.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    EXPECT_STREQ(r.attach(std::move(junk), 1), "the doorbell's header is not this version's");

    // Sealed, the wrong size.
    unique_fd big(::memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    ASSERT_EQ(::ftruncate(big.get(), off_t(2 * k_doorbell_size)), 0);
    ASSERT_EQ(::fcntl(big.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
    EXPECT_STREQ(r.attach(std::move(big), 1), "the doorbell is not one page");
}
