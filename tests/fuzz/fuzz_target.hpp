// SPDX-License-Identifier: Apache-2.0
//
// What every fuzz target in this directory provides: the libFuzzer entry point, plus seed
// inputs built with the real encoders (used by the replay driver and `--write-seeds`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace softcomch::fuzz {

// (file name, bytes) pairs: valid messages/images and a few broken ones.
std::vector<std::pair<std::string, std::vector<uint8_t>>> seeds();

// Stops the process loudly when an invariant of the code under test is broken (a finding).
[[noreturn]] inline void invariant_failed()
{
    __builtin_trap();
}

} // namespace softcomch::fuzz
