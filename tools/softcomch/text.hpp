// SPDX-License-Identifier: Apache-2.0
//
// Text helpers shared by the subcommands: "did you mean" suggestions and wrapped paragraphs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace softcomch::tools {

// `s` in lower case (ASCII).
std::string to_lower(std::string_view s);

// The (at most `count`) candidates closest to `word`, case-insensitively, at a distance of at
// most `max_distance`; nearest first.
std::vector<std::string> nearest(std::string_view word, const std::vector<std::string> &candidates,
                                 size_t max_distance, size_t count);

// Prints `text` to stdout wrapped at 100 columns; the first line continues at column `column`,
// the next ones start indented by `indent`. Ends with a newline.
void print_wrapped(std::string_view text, size_t indent, size_t column);

} // namespace softcomch::tools
