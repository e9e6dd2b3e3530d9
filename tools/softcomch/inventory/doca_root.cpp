// SPDX-License-Identifier: Apache-2.0
#include "doca_root.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "../system.hpp"

namespace softcomch::tools::inventory {

namespace {

namespace fs = std::filesystem;

bool is_dir(const fs::path &p)
{
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool is_file(const fs::path &p)
{
    std::error_code ec;
    return fs::exists(p, ec) && !fs::is_directory(p, ec);
}

// The subdirectories of `dir`, sorted; none if it cannot be read.
std::vector<fs::path> subdirs(const fs::path &dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (is_dir(it->path()))
            out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

// Where DOCA installs keep their libraries: lib/<multiarch>, lib, lib64, and the older split
// layout's infrastructure/lib[/<multiarch>].
std::vector<fs::path> library_dirs(const fs::path &root)
{
    std::vector<fs::path> dirs;
    for (const char *base : {"lib", "lib64", "infrastructure/lib"}) {
        const fs::path b = root / base;
        if (!is_dir(b))
            continue;
        dirs.push_back(b);
        for (const auto &sub : subdirs(b))
            if (sub.filename().string().find("-linux-") != std::string::npos)
                dirs.push_back(sub);
    }
    return dirs;
}

} // namespace

std::optional<std::string> pc_file_version(const std::string &pc_path)
{
    const auto text = read_file(pc_path);
    if (!text)
        return std::nullopt;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.starts_with("Version:"))
            continue;
        std::string v = line.substr(8);
        v.erase(0, v.find_first_not_of(" \t"));
        while (!v.empty() && (v.back() == ' ' || v.back() == '\r' || v.back() == '\t'))
            v.pop_back();
        return v.empty() ? std::nullopt : std::optional<std::string>(v);
    }
    return std::nullopt;
}

doca_install inspect_doca_root(const std::string &root)
{
    doca_install d;
    d.root = root;
    d.present = is_dir(root);
    if (!d.present)
        return d;
    d.applications_version = read_first_line(root + "/applications/VERSION");
    if (is_file(fs::path(root) / "tools" / "doca_caps"))
        d.doca_caps = root + "/tools/doca_caps";
    for (const auto &libdir : library_dirs(root)) {
        std::error_code ec;
        for (fs::directory_iterator it(libdir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.starts_with("libdoca_comch.so"))
                d.comch_libraries.push_back(it->path().string());
        }
        if (is_dir(libdir / "softcomch"))
            for (const auto &e : fs::directory_iterator(libdir / "softcomch", ec))
                if (e.path().filename().string().starts_with("libsoftcomch.so"))
                    d.softcomch = true;
        const fs::path pc = libdir / "pkgconfig";
        if (is_file(pc / "doca-comm-channel.pc"))
            d.legacy_pc.push_back((pc / "doca-comm-channel.pc").string());
        if (!is_file(pc / "doca-common.pc"))
            continue;
        d.pc_dirs.push_back(pc.string());
        for (fs::directory_iterator it(pc, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".pc")
                d.modules.push_back(it->path().stem().string());
        if (!d.comch_pc_version)
            d.comch_pc_version = pc_file_version((pc / "doca-comch.pc").string());
    }
    std::sort(d.comch_libraries.begin(), d.comch_libraries.end());
    std::sort(d.modules.begin(), d.modules.end());
    d.modules.erase(std::unique(d.modules.begin(), d.modules.end()), d.modules.end());
    for (const auto &s : subdirs(fs::path(root) / "samples")) {
        const std::string name = s.filename().string();
        if (!name.starts_with("doca_"))
            continue;
        std::string lib = name;
        std::replace(lib.begin(), lib.end(), '_', '-');
        d.samples.push_back({lib, s.string()});
    }
    return d;
}

} // namespace softcomch::tools::inventory
