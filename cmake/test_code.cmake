# SPDX-License-Identifier: Apache-2.0
# How the test code is compiled (docs/testing.md, "Build time"): softcomch_test_code(<target>) for
# every target under tests/ but the pattern programs of tests/programs (comch_threads is also a
# benchmark) and the libFuzzer binaries. The tests' own code is mostly long GoogleTest bodies,
# whose optimisation is most of the build's time (-O2: 29 s for test_bad_input_core.cpp, 142 s
# under ASan; -O0: 4.5 s and 11 s) and buys nothing they measure: what they exercise, the library
# and the tools, keeps the build type's optimisation. SOFTCOMCH_TEST_OPTIMIZE="" gives the test
# code the build type's flags too.
set(SOFTCOMCH_TEST_OPTIMIZE "-O0" CACHE STRING
    "Optimisation flags of the test code (tests/); empty: the build type's")

function(softcomch_test_code target)
  softcomch_warnings(${target})
  if(SOFTCOMCH_TEST_OPTIMIZE)
    # After the build type's flags on the command line, so it is the one that counts.
    separate_arguments(opts UNIX_COMMAND "${SOFTCOMCH_TEST_OPTIMIZE}")
    target_compile_options(${target} PRIVATE ${opts})
  endif()
endfunction()
