// SPDX-License-Identifier: Apache-2.0
//
// Where the tests find what the build made and the checkout they were built from: the values
// tests/support/CMakeLists.txt writes into one generated source (build_tree.cpp.in), linked with
// softcomch_test_process. Not compile definitions: a path on a compile's command line makes that
// compile differ between checkouts, and a compiler cache shared between them miss (docs/testing.md,
// "Build time").
#pragma once

namespace sc_test::build_tree {

extern const char *const source_dir;     // the checkout (README.md, include/, bench/)
extern const char *const cmake_command;  // the cmake that configured the build (cmake --install)
extern const char *const programs_dir;   // tests/programs' executables (comch_threads, ...)
extern const char *const hostile_victim; // tests/integration/hostile's victim program

} // namespace sc_test::build_tree
