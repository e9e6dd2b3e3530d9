// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the endpoint info file of a fabric directory (src/transport/fabric.hpp), which
// every process of the fabric reads (connect, `softcomch doctor`, `top`, stale-endpoint cleanup)
// and any process of the same uid can write. For any text:
//   - parse_endpoint_info() returns, never crashes, and leaves the output untouched on refusal;
//   - an accepted file has what the parse promises: a pid in 1..2^31-1, the socket path derived
//     from the info path;
//   - an accepted file is understood the same after a rewrite: format() then parse() gives the
//     same endpoint, and format() of that gives the same text (a fixed point).
#include "fuzz_target.hpp"

#include "transport/fabric.hpp"

#include <string>

using softcomch::fuzz::invariant_failed;
using softcomch::transport::endpoint_info;
using softcomch::transport::format_endpoint_info;
using softcomch::transport::parse_endpoint_info;

namespace {

const std::string k_info_path = "/fabric/0123456789abcdef.info";
const std::string k_sock_path = "/fabric/0123456789abcdef.sock";

bool same(const endpoint_info &a, const endpoint_info &b)
{
    return a.key.bluefield == b.key.bluefield && a.key.host_function == b.key.host_function &&
           a.key.name == b.key.name && a.socket_path == b.socket_path && a.pid == b.pid &&
           a.dpu_device == b.dpu_device && a.representor == b.representor &&
           a.max_msg_size == b.max_msg_size && a.recv_queue_size == b.recv_queue_size;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    endpoint_info e;
    e.pid = -42; // a value parse never produces: shows whether a refusal wrote the output
    if (!parse_endpoint_info(text, k_info_path, e)) {
        if (e.pid != -42 || !e.key.name.empty() || !e.socket_path.empty())
            invariant_failed();
        return 0;
    }
    if (e.pid <= 0 || e.socket_path != k_sock_path)
        invariant_failed();
    // Not an info path: always refused, whatever the text.
    endpoint_info other;
    if (parse_endpoint_info(text, "/fabric/x.sock", other))
        invariant_failed();
    const std::string written = format_endpoint_info(e);
    endpoint_info again;
    if (!parse_endpoint_info(written, k_info_path, again) || !same(e, again) ||
        format_endpoint_info(again) != written)
        invariant_failed();
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const std::string &name, const std::string &text) {
        out.emplace_back(name, std::vector<uint8_t>(text.begin(), text.end()));
    };
    endpoint_info e;
    e.key.bluefield = "bf0";
    e.key.host_function = "0000:b1:00.0";
    e.key.name = "comch_ctrl_path_sample_server";
    e.pid = 4242;
    e.dpu_device = "0000:03:00.0";
    e.representor = "pf0hpf";
    e.max_msg_size = 4080;
    e.recv_queue_size = 16;
    add("written.info", format_endpoint_info(e));
    // A name with every kind of byte the writer escapes.
    e.key.name = std::string("a=b%c\nd\x7f\xff e\t", 13);
    add("escaped.info", format_endpoint_info(e));
    add("minimal.info", "version=1\nname=x\npid=1\n");
    add("comments_unknown.info", "# a comment\n\nversion=1\nname=s\npid=2147483647\nfuture=1\n");
    add("no_trailing_newline.info", "version=1\nname=s\npid=7");
    // Broken ones.
    add("version2.info", "version=2\nname=s\npid=7\n");
    add("pid0.info", "version=1\nname=s\npid=0\n");
    add("pid_big.info", "version=1\nname=s\npid=2147483648\n");
    add("bad_escape.info", "version=1\nname=%4\npid=7\n");
    add("no_equals.info", "version=1\nname\npid=7\n");
    add("size_overflow.info", "version=1\nname=s\npid=7\nmax_msg_size=4294967296\n");
    add("missing_pid.info", "version=1\nname=s\n");
    return out;
}

} // namespace softcomch::fuzz
