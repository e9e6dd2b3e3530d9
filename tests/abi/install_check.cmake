# SPDX-License-Identifier: Apache-2.0
#
# The installed tree works for a program built the way DOCA programs are built: with pkg-config.
#
#   cmake -DBUILD_DIR=<build tree> -DWORK_DIR=<scratch> -DCC=<C compiler> -DPKG_CONFIG=<pkg-config>
#         -DLIBDIR=<CMAKE_INSTALL_LIBDIR> -DSOURCE=<install_smoke.c> -DVERSION=<DOCA version>
#         [-DEXTRA_CFLAGS=...] -P install_check.cmake
#
# 1. cmake --install BUILD_DIR into WORK_DIR/prefix (a prefix the build never saw, so the .pc
#    files must be relocatable).
# 2. For each flavour (host: <prefix>/<libdir>/pkgconfig, DPU: <prefix>/<libdir>/softcomch/
#    pkgconfig-dpu): `pkg-config --modversion doca-comch` is VERSION, `pkg-config --cflags --libs
#    doca-comch doca-argp doca-dma` points into the prefix, and SOURCE compiles (C11, -Werror), links and
#    runs with SOFTCOMCH_SIDE set to the flavour's side. The program reports its flavour (from
#    DOCA_ARCH_HOST / DOCA_ARCH_DPU) and the library it really loaded, which must be the
#    installed one.
# 3. Without pkg-config, with plain -I/-L flags (see the end of this file).
# 4. <prefix>/applications/VERSION says VERSION, as DOCA's install tree does; the monolithic
#    `doca` module names every library, each installed.

cmake_minimum_required(VERSION 3.20)

foreach(v BUILD_DIR WORK_DIR CC PKG_CONFIG LIBDIR SOURCE VERSION)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "install_check.cmake: -D${v}=... is required")
  endif()
endforeach()
if(IS_ABSOLUTE "${LIBDIR}")
  message("SOFTCOMCH-ABI-SKIP: CMAKE_INSTALL_LIBDIR is absolute (${LIBDIR}); the install cannot be "
          "relocated into a scratch prefix")
  return()
endif()

# Each step has its own time limit, so that a hang names the step instead of timing out the test.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmd ${ARGN})
    message(FATAL_ERROR "${what} failed (${rc}):\n  ${cmd}\n${out}${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(REAL_PATH ${prefix} real_prefix)

# The program must see the installed tree and the built-in machine only.
foreach(var SOFTCOMCH_TOPOLOGY SOFTCOMCH_LOG_LEVEL PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH)
  unset(ENV{${var}})
endforeach()

separate_arguments(extra_flags UNIX_COMMAND "${EXTRA_CFLAGS}")
file(READ ${prefix}/applications/VERSION version_file)
string(STRIP "${version_file}" version_file)
if(NOT version_file STREQUAL VERSION)
  message(FATAL_ERROR "applications/VERSION says '${version_file}', expected '${VERSION}'")
endif()

foreach(flavour host dpu)
  if(flavour STREQUAL "host")
    set(pcdir ${prefix}/${LIBDIR}/pkgconfig)
  else()
    set(pcdir ${prefix}/${LIBDIR}/softcomch/pkgconfig-dpu)
  endif()
  foreach(pc doca-common doca-comch doca-argp doca-dma doca-cc doca-comm-channel doca)
    if(NOT EXISTS ${pcdir}/${pc}.pc)
      message(FATAL_ERROR "${flavour}: ${pc}.pc is not installed in ${pcdir}")
    endif()
  endforeach()
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  # The monolithic module of DOCA 1.x build files: every library, each one installed.
  run("${flavour}: pkg-config --libs doca" ${PKG_CONFIG} --libs doca)
  foreach(lib doca_common doca_comch doca_argp doca_dma doca_cc doca_comm_channel)
    if(NOT run_out MATCHES "-l${lib}( |$|\n)")
      message(FATAL_ERROR "${flavour}: pkg-config --libs doca lacks -l${lib}:\n  ${run_out}")
    endif()
  endforeach()

  run("${flavour}: pkg-config --modversion" ${PKG_CONFIG} --modversion doca-comch)
  string(STRIP "${run_out}" modversion)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "${flavour}: pkg-config --modversion doca-comch is '${modversion}', expected '${VERSION}'")
  endif()

  run("${flavour}: pkg-config --cflags --libs" ${PKG_CONFIG} --cflags --libs doca-comch doca-argp doca-dma)
  string(STRIP "${run_out}" pc_flags)
  separate_arguments(flags UNIX_COMMAND "${pc_flags}")
  set(inc_ok FALSE)
  set(lib_ok FALSE)
  foreach(f IN LISTS flags)
    if(f MATCHES "^-I(.*)$")
      file(REAL_PATH "${CMAKE_MATCH_1}" p)
      if(p STREQUAL "${real_prefix}/include/softcomch/${flavour}")
        set(inc_ok TRUE)
      endif()
    elseif(f MATCHES "^-L(.*)$")
      file(REAL_PATH "${CMAKE_MATCH_1}" p)
      if(p STREQUAL "${real_prefix}/${LIBDIR}")
        set(lib_ok TRUE)
      endif()
    endif()
  endforeach()
  if(NOT inc_ok OR NOT lib_ok)
    message(FATAL_ERROR "${flavour}: pkg-config flags do not point into the install prefix "
                        "${real_prefix} (flavour include dir and lib dir expected):\n  ${pc_flags}")
  endif()

  set(exe ${WORK_DIR}/smoke_${flavour})
  run("${flavour}: compiling and linking ${SOURCE}"
      ${CC} -std=c11 -Wall -Wextra -Werror ${extra_flags} ${SOURCE} -o ${exe} ${flags})

  set(ENV{SOFTCOMCH_SIDE} ${flavour})
  run("${flavour}: running the program" ${exe})
  set(out "${run_out}")
  if(NOT out MATCHES "flavour=${flavour}\n")
    message(FATAL_ERROR "${flavour}: the program was built for another flavour:\n${out}")
  endif()
  foreach(key comch_lib argp_lib common_lib dma_lib)
    if(NOT out MATCHES "${key}=([^\n]*)\n")
      message(FATAL_ERROR "${flavour}: the program did not report ${key}:\n${out}")
    endif()
    file(REAL_PATH "${CMAKE_MATCH_1}" loaded)
    string(FIND "${loaded}" "${real_prefix}/" at)
    if(NOT at EQUAL 0)
      message(FATAL_ERROR "${flavour}: ${key} is ${loaded}, not the installed library under ${real_prefix}")
    endif()
  endforeach()
  message(STATUS "${flavour}: built with `pkg-config --cflags --libs doca-comch doca-argp doca-dma` and ran:\n${out}")

  # A program of an older generation calls only its own library (libdoca_comm_channel), which is
  # built on libdoca_comch: with --as-needed the program does not need libdoca_comch itself, and
  # the library must find it beside itself (the program's runpath does not reach it).
  set(legacy_src ${WORK_DIR}/legacy_${flavour}.c)
  file(WRITE ${legacy_src} "#include <doca_comm_channel.h>\n"
    "int main(void) { uint32_t n = 0; return doca_comm_channel_get_max_service_name_len(&n) "
    "== DOCA_SUCCESS && n > 1 ? 0 : 1; }\n")
  run("${flavour}: pkg-config --cflags --libs doca-comm-channel" ${PKG_CONFIG} --cflags --libs
      doca-comm-channel)
  string(STRIP "${run_out}" legacy_flags)
  separate_arguments(legacy_flags UNIX_COMMAND "${legacy_flags}")
  run("${flavour}: compiling and linking a doca_comm_channel program (--as-needed)"
      ${CC} -std=c11 -Wall -Wextra -Werror -DDOCA_ALLOW_EXPERIMENTAL_API ${extra_flags}
      ${legacy_src} -o ${WORK_DIR}/legacy_${flavour} -Wl,--as-needed ${legacy_flags})
  run("${flavour}: running the doca_comm_channel program" ${WORK_DIR}/legacy_${flavour})
endforeach()

# 3. The way cgo bindings and hand-written Makefiles build against DOCA: no pkg-config, just
#    -I<prefix>/include -L<prefix>/<libdir> (DOCA's layout: lib/<multiarch>). The host flavour's
#    doca_build_config.h must be reachable from include/ itself. The loader finds the libraries
#    through LD_LIBRARY_PATH here (a system prefix registers them with ldconfig: make install).
set(exe ${WORK_DIR}/smoke_plain)
run("plain -I/-L: compiling and linking ${SOURCE}"
    ${CC} -std=c11 -Wall -Wextra -Werror ${extra_flags} -I${prefix}/include ${SOURCE} -o ${exe}
    -L${prefix}/${LIBDIR} -ldoca_dma -ldoca_comch -ldoca_argp -ldoca_common)
set(ENV{SOFTCOMCH_SIDE} host)
set(ENV{LD_LIBRARY_PATH} ${prefix}/${LIBDIR})
run("plain -I/-L: running the program" ${exe})
if(NOT run_out MATCHES "flavour=host\n")
  message(FATAL_ERROR "plain -I/-L: include/ does not give the host flavour:\n${run_out}")
endif()
message(STATUS "plain -I${prefix}/include -L${prefix}/${LIBDIR}: built and ran:\n${run_out}")
