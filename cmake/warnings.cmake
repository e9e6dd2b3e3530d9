# SPDX-License-Identifier: Apache-2.0
# Warnings are errors in our own code. Applied per target with softcomch_warnings(<target>).
function(softcomch_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Werror -Wshadow -Wcast-align -Wunused -Wpointer-arith
    $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual -Wno-missing-field-initializers>)
endfunction()
