// SPDX-License-Identifier: Apache-2.0
//
// Replay driver for builds without a fuzz engine: feeds LLVMFuzzerTestOneInput with every file of
// the given corpus directories (or files), the target's built-in seeds, and a deterministic set
// of mutations of each (truncations, extensions, byte flips, random splices). A crash or an
// invariant trap fails the CTest test. Usage:
//   <target>_replay [--budget N] [CORPUS_DIR_OR_FILE...]   replay; --budget runs at most about N
//                                                        variants per input (evenly sampled),
//                                                        for targets whose inputs are slow
//   <target>_replay --write-seeds DIR                      (re)write the built-in seeds into DIR
#include "fuzz_target.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

uint64_t g_runs = 0;
uint64_t g_budget = 0;  // 0: every variant
uint64_t g_stride = 1;  // run every g_stride-th variant of the current input
uint64_t g_variant = 0; // variants of the current input so far

void run(const std::vector<uint8_t> &in)
{
    if (g_variant++ % g_stride != 0)
        return;
    // Copy into an exactly sized heap buffer so that ASan sees any overread.
    std::vector<uint8_t> exact(in);
    exact.shrink_to_fit();
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
    ++g_runs;
}

uint64_t next(uint64_t &s)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

// The input itself and a deterministic family of mutations of it.
void run_with_mutations(const std::vector<uint8_t> &in, uint64_t seed)
{
    const size_t n = in.size();
    // Truncations: every length for small inputs, a spread plus page boundaries otherwise.
    std::vector<size_t> cuts;
    if (n <= 1024) {
        for (size_t k = 0; k < n; ++k)
            cuts.push_back(k);
    } else {
        for (size_t k = 0; k < 64; ++k)
            cuts.push_back(n * k / 64);
        for (size_t b : {size_t(15), size_t(16), size_t(127), size_t(128), size_t(4095),
                         size_t(4096), size_t(4097), n - 1})
            if (b < n)
                cuts.push_back(b);
    }
    // Single-byte corruptions: every byte of the first 640 (headers, control blocks), then a
    // random sample of the rest.
    std::vector<size_t> positions;
    for (size_t i = 0; i < std::min(n, size_t(640)); ++i)
        positions.push_back(i);
    uint64_t s = seed | 1;
    for (int k = 0; k < 256 && n > 640; ++k)
        positions.push_back(size_t(next(s) % n));
    // The whole family: the input, cuts, 3 extensions, 4 corruptions per position, 256 random.
    const uint64_t total = 1 + cuts.size() + 3 + (n == 0 ? 0 : 4 * positions.size() + 256);
    g_variant = 0;
    g_stride = g_budget == 0 || total <= g_budget ? 1 : (total + g_budget - 1) / g_budget;
    run(in);
    for (size_t k : cuts)
        run(std::vector<uint8_t>(in.begin(), in.begin() + std::ptrdiff_t(k)));
    // Extensions.
    for (size_t extra : {size_t(1), size_t(8), size_t(4096)}) {
        auto v = in;
        v.resize(n + extra, uint8_t(extra));
        run(v);
    }
    if (n == 0)
        return;
    for (size_t i : positions) {
        for (uint8_t x : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
            auto v = in;
            v[i] ^= x;
            run(v);
        }
        auto v = in;
        v[i] = 0;
        run(v);
    }
    // Random multi-byte mutations (including 32-bit length/size fields set to extremes).
    for (int k = 0; k < 256; ++k) {
        auto v = in;
        const int edits = 1 + int(next(s) % 8);
        for (int e = 0; e < edits; ++e) {
            const size_t i = size_t(next(s) % n);
            switch (next(s) % 4) {
            case 0:
                v[i] = uint8_t(next(s));
                break;
            case 1:
                for (size_t j = i; j < std::min(n, i + 4); ++j)
                    v[j] = 0xff;
                break;
            case 2:
                for (size_t j = i; j < std::min(n, i + 8); ++j)
                    v[j] = 0;
                break;
            default:
                v[i] ^= uint8_t(1u << (next(s) % 8));
                break;
            }
        }
        run(v);
    }
}

bool read_file(const std::string &path, std::vector<uint8_t> &out)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return false;
    out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    return true;
}

std::vector<std::string> list_inputs(const std::string &path)
{
    std::vector<std::string> files;
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        return files;
    if (!S_ISDIR(st.st_mode)) {
        files.push_back(path);
        return files;
    }
    if (DIR *d = opendir(path.c_str())) {
        while (dirent *e = readdir(d)) {
            if (e->d_name[0] != '.')
                files.push_back(path + "/" + e->d_name);
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--write-seeds") == 0) {
        for (const auto &[name, bytes] : softcomch::fuzz::seeds()) {
            const std::string path = std::string(argv[2]) + "/" + name;
            std::ofstream f(path, std::ios::binary | std::ios::trunc);
            f.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
            if (!f) {
                std::fprintf(stderr, "cannot write %s\n", path.c_str());
                return 1;
            }
            std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
        }
        return 0;
    }
    size_t files = 0;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int first = 1;
    if (argc >= 3 && std::strcmp(argv[1], "--budget") == 0) {
        g_budget = std::strtoull(argv[2], nullptr, 10);
        first = 3;
    }
    for (int i = first; i < argc; ++i) {
        const auto inputs = list_inputs(argv[i]);
        if (inputs.empty()) {
            std::fprintf(stderr, "no corpus at %s\n", argv[i]);
            return 1;
        }
        for (const auto &path : inputs) {
            std::vector<uint8_t> data;
            if (!read_file(path, data)) {
                std::fprintf(stderr, "cannot read %s\n", path.c_str());
                return 1;
            }
            run_with_mutations(data, seed++);
            ++files;
        }
    }
    for (const auto &seed_input : softcomch::fuzz::seeds())
        run_with_mutations(seed_input.second, seed++);
    std::printf("replayed %zu corpus files + built-in seeds: %llu inputs, no finding\n", files,
                static_cast<unsigned long long>(g_runs));
    return 0;
}
