// SPDX-License-Identifier: Apache-2.0
#include "text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

namespace softcomch::tools {

size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

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
        const size_t d = edit_distance(w, to_lower(c));
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
