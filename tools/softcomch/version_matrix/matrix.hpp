// SPDX-License-Identifier: Apache-2.0
//
// The Comch version matrix (`softcomch version-matrix`, installed as <prefix>/share/
// version-matrix.json): one row per Comch symbol and capability across the API generations (and
// rows for the DOCA libraries SoftComch implements beside Comch: DMA, Compress, SHA), in
// the version-matrix.json schema of DOCA's structured-tools contract (docs/cli.md). A row gives
// the first and the last DOCA release that has it (no last release: still there), the source it
// was established from, and the evidence (`source_quote`): a declaration seen in a header, or the
// guide's statement, in our words; where the sources disagree, the row says so.
//
// The facts are those of the project's API research (shared spec, doca-api.md section 5). Rows:
// rows_comch.cpp (doca_comch_*, 2.7 and later, and the 2.7 names renamed since),
// rows_predecessors.cpp (doca_cc_* of 2.5 and 2.6, the legacy doca_comm_channel_*),
// rows_features.cpp (capabilities as the caps command names them, headers, pkg-config modules,
// libraries, error codes), rows_engines.cpp (DMA, Compress, SHA and the DOCA Core parts they use:
// mmap export, sync events, graphs, mmap advise; from other sources than the shared spec's, named
// below).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace softcomch::tools::version_matrix {

// The contract's schema version this file follows, and when these rows were compiled.
inline constexpr const char *schema_version = "1.0.0";
inline constexpr const char *generated_at = "2026-12-01T00:00:00Z";

struct entry {
    std::string library;    // pkg-config module: "doca-comch", "doca" (2.x umbrella), ...
    std::string capability; // machine-readable: a symbol, or a capability name
    std::string display_name;
    std::string min_doca_version;
    std::optional<std::string> max_doca_version; // nullopt: still available
    std::string source_url;
    std::string source_quote;
};

// Every row, in a stable order (Comch's features first, then its symbols by generation, then the
// other libraries' rows).
const std::vector<entry> &entries();

// The version-matrix.json document of `rows`.
softcomch::json::value document(const std::vector<entry> &rows);

// Compares DOCA versions numerically field by field ("2.10.0" > "2.9.0"), the first `fields`
// fields only; missing fields are 0.
int compare_versions(const std::string &a, const std::string &b, int fields = 3);
// Whether `row` is available in `release` ("2.6", "2.6.0", "2.6.0058": major.minor decide).
bool available_in(const entry &row, const std::string &release);

// ---- for the row files ----

namespace sources {
// S-ids of the shared spec (doca-api.md, section A), as URLs.
inline constexpr const char *headers_3_0 = "https://github.com/stolyarchuk/doca-docs"; // S1
inline constexpr const char *packages_2_6 = "https://github.com/ssbandjl/doca";        // S3
inline constexpr const char *guide_current =
    "https://docs.nvidia.com/doca/sdk/doca+comch/index.html";
inline constexpr const char *guide_2_8 =
    "https://docs.nvidia.com/doca/sdk/doca+comch+%E2%80%93+new/index.html"; // S7
inline constexpr const char *guide_2_8_archive =
    "https://docs.nvidia.com/doca/archive/2-8-0/DOCA+Comch";
inline constexpr const char *guide_2_7 =
    "https://docs.nvidia.com/doca/archive/2-7-0/DOCA+Comch+%E2%80%93+New/index.html"; // S8
inline constexpr const char *guide_2_5 = "https://docs.nvidia.com/doca/archive/doca-v2-5-0/"
                                         "doca+comm+channel+%E2%80%93+new/index.html"; // S9
inline constexpr const char *guide_3_2 =
    "https://docs.nvidia.com/doca/archive/3-2-0/doca-comch/index.html"; // S11
inline constexpr const char *guide_1_5 = "https://docs.nvidia.com/doca/archive/doca-v1.5.0/"
                                         "comm-channel-programming-guide/index.html"; // S13
inline constexpr const char *skills = "https://github.com/NVIDIA-DOCA/doca-skills";
inline constexpr const char *samples = "https://github.com/NVIDIA-DOCA/doca-samples";
// Beyond the shared spec (rows_engines.cpp): a DOCA 2.5.0108 x86_64 install tree (include/, lib/,
// samples/; its doca_version.h and applications/VERSION say 2.5.0108), a DOCA 2.2.0080 header set
// (its doca_version.h says 2.2.0080; removed from the repository later, hence the commit), and
// NVIDIA's guides of the releases named.
inline constexpr const char *tree_2_5 = "https://github.com/DPUART/doca-test";
inline constexpr const char *headers_2_2 = "https://github.com/annali07/transfer/tree/"
                                           "047e62ce0e45dbf150f916f77971382290397722/doca/include";
inline constexpr const char *dma_guide_1_3 =
    "https://docs.nvidia.com/doca/archive/doca-v1.3/pdf/dma-programming-guide.pdf";
inline constexpr const char *dma_guide_2_2 =
    "https://docs.nvidia.com/doca/archive/doca-v2.2.0/dma-programming-guide/index.html";
inline constexpr const char *dma_guide_2_5 =
    "https://docs.nvidia.com/doca/archive/doca-v2.5.0/DOCA+DMA";
inline constexpr const char *dma_guide_2_8 = "https://docs.nvidia.com/doca/archive/2-8-0/DOCA+DMA";
inline constexpr const char *core_guide_1_4 =
    "https://docs.nvidia.com/doca/archive/doca-v1.4/doca-core-programming-guide/index.html";
inline constexpr const char *compress_guide_1_5 =
    "https://docs.nvidia.com/doca/archive/doca-v1.5.0/compress-programming-guide/index.html";
inline constexpr const char *sha_guide_1_5 =
    "https://docs.nvidia.com/doca/archive/doca-v1.5.0/sha-programming-guide/index.html";
} // namespace sources

// Said in every row whose first release depends on when Comch got its name (rows_features.cpp).
extern const char *const rename_disagreement;
// How the legacy endpoint API ended (rows_predecessors.cpp).
extern const char *const legacy_end;

// A doca_comch_* function of 3.0 and the doca_cc_* name the 2.6 headers gave the same call.
struct twin {
    std::string comch;
    std::string cc;
};
std::vector<twin> twins_2_6(); // rows_comch.cpp
// The DOCA 2.5 name of a 2.6 doca_cc_* call, when the sources record one (rows_predecessors.cpp).
std::optional<std::string> name_2_5(const std::string &cc_2_6);

void add_comch_rows(std::vector<entry> &rows);
void add_predecessor_rows(std::vector<entry> &rows);
void add_feature_rows(std::vector<entry> &rows);
void add_engine_rows(std::vector<entry> &rows); // rows_engines.cpp

} // namespace softcomch::tools::version_matrix
