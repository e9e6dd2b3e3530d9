// SPDX-License-Identifier: Apache-2.0
//
// What the build knows of where this tool lives: the values tools/CMakeLists.txt writes into one
// generated source (tools/build_tree.cpp.in), so that no other source of the tool changes with
// the checkout's path (a compiler cache shared between checkouts keeps them: docs/testing.md,
// "Build time").
#pragma once

namespace softcomch::tools::build_tree {

// The install's libexec/softcomch relative to its bin/ ("../libexec/softcomch").
extern const char *const libexec_from_bindir;
// <build>/samples: the build tree's samples and programs.
extern const char *const samples_dir;
// <source>/samples and <source>/bench of the checkout this tool was built from.
extern const char *const source_samples_dir;
extern const char *const source_bench_dir;

} // namespace softcomch::tools::build_tree
