# SPDX-License-Identifier: Apache-2.0
if(SOFTCOMCH_SANITIZE)
  add_compile_options(-fsanitize=${SOFTCOMCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${SOFTCOMCH_SANITIZE})
endif()
