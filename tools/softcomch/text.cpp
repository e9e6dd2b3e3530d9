// SPDX-License-Identifier: Apache-2.0
#include "text.hpp"

#include "common/near_name.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

namespace softcomch::tools {

std::string to_lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::vector<std::string> nearest(std::string_view word, const std::vector<std::string> &candidates,
                                 size_t max_distance, size_t count)
{
    const std::string w = to_lower(word);
    std::vector<std::pair<size_t, std::string>> scored;
    for (const auto &c : candidates) {
        const size_t d = softcomch::name_distance(w, to_lower(c));
        if (d <= max_distance)
            scored.emplace_back(d, c);
    }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto &x, const auto &y) { return x.first < y.first; });
    std::vector<std::string> out;
    for (size_t i = 0; i < scored.size() && i < count; ++i)
        out.push_back(scored[i].second);
    return out;
}

void print_wrapped(std::string_view text, size_t indent, size_t column)
{
    constexpr size_t width = 100;
    bool first_word = true;
    while (!text.empty()) {
        const size_t end = text.find(' ');
        const std::string_view word = text.substr(0, end);
        if (!first_word && column + 1 + word.size() > width) {
            std::printf("\n%*s", int(indent), "");
            column = indent;
            first_word = true;
        }
        if (!word.empty()) {
            std::printf("%s%.*s", first_word ? "" : " ", int(word.size()), word.data());
            column += word.size() + (first_word ? 0 : 1);
            first_word = false;
        }
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    std::printf("\n");
}

} // namespace softcomch::tools
