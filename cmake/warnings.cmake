# SPDX-License-Identifier: Apache-2.0
# Warnings for our own code, applied per target with softcomch_warnings(<target>). They are errors
# only with -DSOFTCOMCH_WERROR=ON, which the project's own Makefile targets and CI set: a user's
# build with another compiler version must not fail on a warning that compiler adds.
option(SOFTCOMCH_WERROR "Treat warnings as errors (on in the Makefile's targets and in CI)" OFF)

function(softcomch_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wshadow -Wcast-align -Wunused -Wpointer-arith
    $<$<BOOL:${SOFTCOMCH_WERROR}>:-Werror>
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual -Wno-missing-field-initializers>)
endfunction()
