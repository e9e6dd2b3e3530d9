# SPDX-License-Identifier: Apache-2.0
if(SOFTCOMCH_SANITIZE)
  # -O1, as both sanitizers' documentation suggests: -O2's inlining made the instrumented build
  # a third slower to compile for nothing a sanitizer finds (docs/testing.md, "Build time"). The
  # test code has its own level (cmake/test_code.cmake).
  add_compile_options(-fsanitize=${SOFTCOMCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all
    $<$<CONFIG:RelWithDebInfo,Release>:-O1>)
  add_link_options(-fsanitize=${SOFTCOMCH_SANITIZE})
  # g++ has no macro for UBSan; tests that UBSan's own runtime cannot run check this one.
  string(FIND "${SOFTCOMCH_SANITIZE}" "undefined" ubsan_at)
  if(NOT ubsan_at EQUAL -1)
    add_compile_definitions(SOFTCOMCH_UBSAN=1)
  endif()
endif()
# libFuzzer builds (tests/fuzz/CMakeLists.txt, `make fuzz`): every object carries coverage
# instrumentation, so the fuzz binaries see the layers they link; only they link libFuzzer.
if(SOFTCOMCH_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
