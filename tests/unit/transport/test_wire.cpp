// SPDX-License-Identifier: Apache-2.0
//
// Handshake messages: round trips, fixed layout, and rejection of truncated or corrupt input.
#include "transport/wire.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace softcomch::transport::wire;

namespace {

hello_msg sample_hello()
{
    hello_msg h;
    h.proto_min = 1;
    h.proto_max = 3;
    h.client_pid = 4321;
    h.max_msg_size = 4080;
    h.recv_queue_size = 16;
    h.bluefield = "bf0";
    h.host_function = "0000:b1:00.0";
    h.server_name = "comch_ctrl_path_sample_server";
    return h;
}

accept_msg sample_accept()
{
    accept_msg a;
    a.proto_version = 1;
    a.max_msg_size = 4080;
    a.connection_id = 0x0102030405060708ull;
    a.c2s_capacity = 131072;
    a.s2c_capacity = 131072;
    a.c2s_limit = 10;
    a.s2c_limit = 16;
    a.max_record = 4096;
    a.segment_size = 4096 * 35;
    return a;
}

template <class M> std::vector<uint8_t> enc(const M &m)
{
    std::vector<uint8_t> buf(k_max_message_size);
    size_t len = 0;
    EXPECT_EQ(encode(m, buf.data(), buf.size(), &len), DOCA_SUCCESS);
    buf.resize(len);
    return buf;
}

uint32_t le32(const std::vector<uint8_t> &b, size_t off)
{
    return uint32_t(b[off]) | uint32_t(b[off + 1]) << 8 | uint32_t(b[off + 2]) << 16 |
           uint32_t(b[off + 3]) << 24;
}

} // namespace

TEST(unit_transport_wire, type_table)
{
    EXPECT_EQ(message_size(msg_type::hello), 360u);
    EXPECT_EQ(message_size(msg_type::accept), 64u);
    EXPECT_EQ(message_size(msg_type::reject), 280u);
    EXPECT_EQ(message_size(static_cast<msg_type>(99)), 0u);
    EXPECT_EQ(fds_for(msg_type::hello), 1u);
    EXPECT_EQ(fds_for(msg_type::accept), 3u);
    EXPECT_EQ(fds_for(msg_type::reject), 0u);
    EXPECT_STREQ(type_name(msg_type::accept), "ACCEPT");
    EXPECT_STREQ(type_name(static_cast<msg_type>(99)), "UNKNOWN");
    EXPECT_STREQ(type_name(msg_type::consumer_announce), "CONSUMER_ANNOUNCE");
    EXPECT_EQ(fds_for(msg_type::consumer_announce), 3u);
}

TEST(unit_transport_wire, fast_path_messages_round_trip)
{
    consumer_announce_msg a;
    a.consumer_id = 7;
    a.imm_data_len = 32;
    a.mechanism = 2; // pvw
    a.pid = 1234;
    a.channel_size = 8192;
    a.addr = 0x7f0000001000ull;
    a.len = 1 << 20;
    uint8_t buf[k_max_message_size];
    size_t len = 0;
    ASSERT_EQ(encode(a, buf, sizeof buf, &len), DOCA_SUCCESS);
    EXPECT_EQ(len, 80u);
    message out;
    ASSERT_EQ(decode_any(buf, len, &out), DOCA_SUCCESS);
    const auto &a2 = std::get<consumer_announce_msg>(out);
    EXPECT_EQ(a2.consumer_id, 7u);
    EXPECT_EQ(a2.mechanism, 2u);
    EXPECT_EQ(a2.addr, a.addr);
    EXPECT_EQ(a2.len, a.len);
    a.mechanism = 1; // shared needs the mapped pages around the range
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a.map_base = a.addr;
    a.map_size = a.len;
    ASSERT_EQ(encode(a, buf, sizeof buf, &len), DOCA_SUCCESS);
    a.imm_data_len = 33; // above the immediate-data maximum
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a.imm_data_len = 0;
    a.addr = ~0ull - 10; // wraps around
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);

    consumer_ack_msg k{9, 0};
    ASSERT_EQ(encode(k, buf, sizeof buf, &len), DOCA_SUCCESS);
    ASSERT_EQ(decode_any(buf, len, &out), DOCA_SUCCESS);
    EXPECT_EQ(std::get<consumer_ack_msg>(out).consumer_id, 9u);
    consumer_expire_msg e{11};
    ASSERT_EQ(encode(e, buf, sizeof buf, &len), DOCA_SUCCESS);
    ASSERT_EQ(decode_any(buf, len, &out), DOCA_SUCCESS);
    EXPECT_EQ(std::get<consumer_expire_msg>(out).consumer_id, 11u);
    buf[20] = 1; // reserved word must be zero
    EXPECT_EQ(decode_any(buf, len, &out), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_wire, hello_round_trip_and_layout)
{
    const hello_msg h = sample_hello();
    const auto b = enc(h);
    ASSERT_EQ(b.size(), 360u);
    // Fixed little-endian layout.
    EXPECT_EQ(le32(b, 0), k_magic);
    EXPECT_EQ(std::memcmp(b.data(), "SCWM", 4), 0);
    EXPECT_EQ(b[4], 1);
    EXPECT_EQ(b[6], 1);
    EXPECT_EQ(le32(b, 8), 360u);
    EXPECT_EQ(le32(b, 20), 4321u);
    EXPECT_EQ(le32(b, 24), 4080u);
    EXPECT_EQ(b[32], 3);
    EXPECT_EQ(std::memcmp(b.data() + 40, "bf0", 3), 0);
    EXPECT_EQ(std::memcmp(b.data() + 72, "0000:b1:00.0", 12), 0);

    header hd;
    ASSERT_EQ(decode_header(b.data(), b.size(), &hd), DOCA_SUCCESS);
    EXPECT_EQ(hd.type, uint16_t(msg_type::hello));
    hello_msg out;
    ASSERT_EQ(decode(b.data(), b.size(), &out), DOCA_SUCCESS);
    EXPECT_EQ(out.proto_min, 1);
    EXPECT_EQ(out.proto_max, 3);
    EXPECT_EQ(out.client_pid, 4321u);
    EXPECT_EQ(out.max_msg_size, 4080u);
    EXPECT_EQ(out.recv_queue_size, 16u);
    EXPECT_EQ(out.bluefield, "bf0");
    EXPECT_EQ(out.host_function, "0000:b1:00.0");
    EXPECT_EQ(out.server_name, h.server_name);

    // Longest name, and bytes beyond ASCII in it.
    hello_msg big = h;
    big.server_name = std::string(255, '\xe9');
    const auto b2 = enc(big);
    ASSERT_EQ(decode(b2.data(), b2.size(), &out), DOCA_SUCCESS);
    EXPECT_EQ(out.server_name, big.server_name);
}

TEST(unit_transport_wire, accept_and_reject_round_trip)
{
    const accept_msg a = sample_accept();
    const auto b = enc(a);
    ASSERT_EQ(b.size(), 64u);
    accept_msg ao;
    ASSERT_EQ(decode(b.data(), b.size(), &ao), DOCA_SUCCESS);
    EXPECT_EQ(ao.connection_id, a.connection_id);
    EXPECT_EQ(ao.c2s_limit, 10u);
    EXPECT_EQ(ao.s2c_limit, 16u);
    EXPECT_EQ(ao.max_record, 4096u);
    EXPECT_EQ(ao.segment_size, a.segment_size);
    EXPECT_EQ(ao.max_msg_size, 4080u);

    reject_msg r;
    r.reason = DOCA_ERROR_NOT_FOUND;
    r.text = "no server named 'x' on 0000:b1:00.0";
    const auto rb = enc(r);
    ASSERT_EQ(rb.size(), 280u);
    reject_msg ro;
    ASSERT_EQ(decode(rb.data(), rb.size(), &ro), DOCA_SUCCESS);
    EXPECT_EQ(ro.reason, DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(ro.text, r.text);
    // Empty text is fine.
    r.text.clear();
    const auto rb2 = enc(r);
    ASSERT_EQ(decode(rb2.data(), rb2.size(), &ro), DOCA_SUCCESS);
    EXPECT_TRUE(ro.text.empty());
}

TEST(unit_transport_wire, decode_any_dispatches)
{
    message m;
    auto b = enc(sample_hello());
    ASSERT_EQ(decode_any(b.data(), b.size(), &m), DOCA_SUCCESS);
    EXPECT_TRUE(std::holds_alternative<hello_msg>(m));
    b = enc(sample_accept());
    ASSERT_EQ(decode_any(b.data(), b.size(), &m), DOCA_SUCCESS);
    EXPECT_TRUE(std::holds_alternative<accept_msg>(m));
    reject_msg r;
    r.reason = DOCA_ERROR_BAD_STATE;
    b = enc(r);
    ASSERT_EQ(decode_any(b.data(), b.size(), &m), DOCA_SUCCESS);
    EXPECT_EQ(std::get<reject_msg>(m).reason, DOCA_ERROR_BAD_STATE);
    // A decoder for another type refuses.
    hello_msg h;
    EXPECT_EQ(decode(b.data(), b.size(), &h), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_wire, encoder_refuses_invalid_fields)
{
    uint8_t buf[k_max_message_size];
    size_t len = 0;
    hello_msg h = sample_hello();
    h.server_name = std::string(256, 'a');
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    h.server_name.clear();
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    h.server_name = std::string("a\0b", 3);
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    h.bluefield = "bf 0";
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    h.host_function = std::string(32, '0');
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    h.proto_min = 2;
    h.proto_max = 1;
    EXPECT_EQ(encode(h, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    h = sample_hello();
    EXPECT_EQ(encode(h, buf, 359, &len), DOCA_ERROR_TOO_BIG);

    accept_msg a = sample_accept();
    a.c2s_capacity = 12;
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a = sample_accept();
    a.c2s_capacity = 4096; // fewer than two maximal records
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a = sample_accept();
    a.s2c_limit = 0;
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a = sample_accept();
    a.max_record = 4095 + 1 - 64; // cannot hold 16 + 4080
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    a = sample_accept();
    a.segment_size = 1000;
    EXPECT_EQ(encode(a, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);

    reject_msg r;
    r.reason = DOCA_SUCCESS;
    EXPECT_EQ(encode(r, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
    r.reason = DOCA_ERROR_SKIPPED; // the highest known code is fine
    EXPECT_EQ(encode(r, buf, sizeof buf, &len), DOCA_SUCCESS);
    r.reason = DOCA_ERROR_UNKNOWN;
    r.text = std::string(256, 'x');
    EXPECT_EQ(encode(r, buf, sizeof buf, &len), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_wire, rejects_every_truncation_and_extension)
{
    std::vector<std::vector<uint8_t>> msgs = {enc(sample_hello()), enc(sample_accept())};
    reject_msg r;
    r.reason = DOCA_ERROR_AGAIN;
    r.text = "busy";
    msgs.push_back(enc(r));
    for (const auto &m : msgs) {
        for (size_t n = 0; n < m.size(); ++n) {
            message out;
            EXPECT_EQ(decode_any(m.data(), n, &out), DOCA_ERROR_INVALID_VALUE) << n;
        }
        // One trailing byte too many (with the length field adjusted too, or not).
        std::vector<uint8_t> longer = m;
        longer.push_back(0);
        message out;
        EXPECT_EQ(decode_any(longer.data(), longer.size(), &out), DOCA_ERROR_INVALID_VALUE);
        longer[8] = uint8_t(longer.size());
        longer[9] = uint8_t(longer.size() >> 8);
        EXPECT_EQ(decode_any(longer.data(), longer.size(), &out), DOCA_ERROR_INVALID_VALUE);
    }
    EXPECT_EQ(decode_any(nullptr, 100, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_wire, rejects_corrupt_headers_and_fields)
{
    const auto good = enc(sample_hello());
    message out;
    auto b = good;
    b[0] ^= 1; // magic
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[4] = 2; // version
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_UNSUPPORTED_VERSION);
    b = good;
    b[12] = 1; // flags
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[6] = 99; // unknown (future) type: NOT_SUPPORTED, header still reported
    header hd;
    EXPECT_EQ(decode_header(b.data(), b.size(), &hd), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(hd.type, 99);
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_NOT_SUPPORTED);
    b = good;
    b[6] = 2; // says ACCEPT but has HELLO's size
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[32] = 32; // bluefield length beyond its field
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[34] = 0xff;
    b[35] = 0xff; // name length 65535
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[40 + 20] = 'x'; // garbage in the bluefield padding
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[104 + 3] = 0; // NUL inside the name
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    b[36] = 1; // reserved
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = good;
    std::memset(b.data() + 20, 0, 4); // pid 0
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);

    const auto ga = enc(sample_accept());
    b = ga;
    b[32] = 3; // c2s capacity not a power of two
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = ga;
    b[40] = 0; // c2s limit 0
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = ga;
    b[18] = 1; // reserved
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);

    reject_msg r;
    r.reason = DOCA_ERROR_AGAIN;
    r.text = "t";
    const auto gr = enc(r);
    b = gr;
    std::memset(b.data() + 16, 0, 4); // reason 0
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = gr;
    b[16] = 31; // not a DOCA error code (would not fit the enum's value range either)
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = gr;
    b[17] = 1; // 0x100 + 5
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
    b = gr;
    b[20] = 0; // text length 0 but text byte present
    EXPECT_EQ(decode_any(b.data(), b.size(), &out), DOCA_ERROR_INVALID_VALUE);
}

TEST(unit_transport_wire, single_byte_corruptions_never_crash)
{
    // Every byte of every message, several patterns: either rejected, or decoded into a
    // message that re-encodes to exactly the corrupt bytes (i.e. it was a valid message).
    std::vector<std::vector<uint8_t>> msgs = {enc(sample_hello()), enc(sample_accept())};
    reject_msg r;
    r.reason = DOCA_ERROR_AGAIN;
    r.text = "busy";
    msgs.push_back(enc(r));
    for (const auto &m : msgs) {
        for (size_t i = 0; i < m.size(); ++i) {
            for (uint8_t x : {uint8_t(1), uint8_t(0x80), uint8_t(0xff)}) {
                auto b = m;
                b[i] ^= x;
                message out;
                if (decode_any(b.data(), b.size(), &out) != DOCA_SUCCESS)
                    continue;
                uint8_t again[k_max_message_size];
                size_t len = 0;
                const auto reencode = [&](const auto &v) {
                    return encode(v, again, sizeof again, &len);
                };
                const doca_error_t err = std::visit(reencode, out);
                ASSERT_EQ(err, DOCA_SUCCESS) << i;
                ASSERT_EQ(len, b.size());
                EXPECT_EQ(std::memcmp(again, b.data(), len), 0) << "byte " << i;
            }
        }
    }
}
