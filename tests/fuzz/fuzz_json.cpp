// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target: the JSON parser (src/common/json.hpp), which reads user files (the topology,
// SOFTCOMCH_TOPOLOGY) and tool output. For any input:
//   - parse() returns, never crashes, never recurses past max_depth;
//   - a refusal says where: "<line>:<column>: <problem>", with the position inside the text;
//   - an accepted document survives dump() and parse() again unchanged, compact and pretty.
#include "common/json.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_target.hpp"

namespace json = softcomch::json;

namespace {

// "<line>:<column>: <problem>" with 1 <= line <= lines of the text (+1), 1 <= column.
bool well_formed_error(const std::string &err, const std::string &text)
{
    unsigned long line = 0, col = 0;
    int used = 0;
    if (std::sscanf(err.c_str(), "%lu:%lu: %n", &line, &col, &used) != 2 || used == 0 ||
        size_t(used) >= err.size())
        return false;
    size_t lines = 1;
    for (char c : text)
        lines += c == '\n';
    return line >= 1 && line <= lines + 1 && col >= 1 && col <= text.size() + 2;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (size_t(1) << 20))
        return 0; // the topology loader refuses files above 1 MiB
    const std::string text(reinterpret_cast<const char *>(data), size);
    std::string err = "unset";
    const json::value v = json::parse(text, &err);
    if (!err.empty()) {
        if (!v.is_null() || !well_formed_error(err, text))
            softcomch::fuzz::invariant_failed();
        return 0;
    }
    for (int indent : {0, 2}) {
        std::string again_err = "unset";
        const json::value again = json::parse(json::dump(v, indent), &again_err);
        if (!again_err.empty() || !(again == v))
            softcomch::fuzz::invariant_failed();
    }
    return 0;
}

namespace softcomch::fuzz {

std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds()
{
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
    auto add = [&](const std::string &name, const std::string &text) {
        out.emplace_back(name, std::vector<uint8_t>(text.begin(), text.end()));
    };
    add("topology.json", R"({"version": 1, "bluefields": [{"id": "bf0", "model": "bf3",
  "host": [{"pci": "0000:b1:00.0", "function": "pf0"}],
  "dpu": [{"pci": "0000:03:00.0", "representors": [{"name": "pf0hpf", "host_function": "0000:b1:00.0"}]}],
  "comch_caps": {"max_msg_size": 4080, "max_clients": 64}}]})");
    add("scalars.json", R"([null, true, false, 0, -1, 9223372036854775807, -9223372036854775808,
  18446744073709551615, 1.5, -0.0, 1e300, 2.5e-310, "", "a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00"])");
    add("nested.json", std::string(128, '[') + std::string(128, ']'));
    add("too_deep.json", std::string(129, '[') + std::string(129, ']'));
    add("duplicate_key.json", R"({"a": 1, "a": 2})");
    add("trailing_comma.json", "[1, 2,]\n");
    add("unterminated.json", "{\"key\": \"val");
    add("bad_escape.json", R"(["\x"])");
    add("lone_surrogate.json", R"(["\ud800"])");
    add("comment.json", "// no\n{}");
    add("two_values.json", "{} {}");
    return out;
}

} // namespace softcomch::fuzz
