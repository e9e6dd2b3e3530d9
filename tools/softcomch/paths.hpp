// SPDX-License-Identifier: Apache-2.0
//
// Where the softcomch executable and its companion programs (the samples) are.
#pragma once

#include <string>
#include <vector>

namespace softcomch::tools {

// Directory of the running executable (from /proc/self/exe); empty if unknown.
std::string self_dir();

// Directories searched for the sample programs, in order:
//   $SOFTCOMCH_SAMPLES_DIR                         explicit override
//   <dir of softcomch>/<bindir -> libexecdir>/softcomch   an installed tree
//   <build dir>/samples                            the build tree softcomch was built in
std::vector<std::string> samples_search_path();

// The first directory of samples_search_path() that holds an executable `program`; empty if
// none does.
std::string find_sample_dir(const std::string &program);

} // namespace softcomch::tools
