#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what SoftComch needs to build and test, from Debian's packages, when it is missing.
# Safe to run repeatedly: it installs nothing when everything is present.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

have_cmd cmake || need+=(cmake)
have_cmd ninja || need+=(ninja-build)
have_cmd g++ || need+=(g++)
have_cmd pkg-config || need+=(pkg-config)
have_cmd make || need+=(make)
have_cmd python3 || need+=(python3) # scripts/ci-report.py (.ci/run's timing report)
# A compiler cache, used when present (never needed for a correct build: CMakeLists.txt,
# SOFTCOMCH_CCACHE; docs/testing.md, "Build time").
have_cmd ccache || need+=(ccache)
have_pkg zlib1g-dev || need+=(zlib1g-dev) # doca_compress: deflate (src/compress)
have_pkg libssl-dev || need+=(libssl-dev) # doca_sha: SHA-1/256/512 from libcrypto (src/sha)
have_pkg libgtest-dev || need+=(libgtest-dev)
have_pkg libgmock-dev || need+=(libgmock-dev)
{ have_cmd clang-format-14 || have_cmd clang-format; } || need+=(clang-format) # scripts/check-format.sh
have_cmd tmux || need+=(tmux) # the terminal tests of softcomch top (tests/cli/test_cli_top_tmux.cpp)
have_pkg libucx-dev || need+=(libucx-dev) # bench/peers/peer_ucx (UCX shared memory, the UCP API)
have_pkg libzmq3-dev || need+=(libzmq3-dev) # bench/peers/peer_zmq (ZeroMQ over ipc://)
have_pkg libiceoryx-posh-dev || need+=(libiceoryx-posh-dev) # bench/peers/peer_iceoryx
have_cmd iox-roudi || need+=(iceoryx) # the RouDi daemon bench/peers/peer_iceoryx starts and stops
if [ "${SOFTCOMCH_WITH_MESON:-0}" = 1 ]; then
  have_cmd meson || need+=(meson)
fi
# make fuzz: clang with libFuzzer. Debian 12's clang-14 has the fuzzer runtime in
# libclang-rt-14-dev, which clang-14 only recommends (not installed with --no-install-recommends).
if [ "${SOFTCOMCH_WITH_FUZZ:-0}" = 1 ]; then
  { have_cmd clang++-14 || have_cmd clang++; } || need+=(clang-14)
  have_pkg libclang-rt-14-dev || need+=(libclang-rt-14-dev)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

echo "softcomch: installing missing packages: ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then SUDO=sudo; else
    echo "softcomch: need root to install: apt-get install ${need[*]}" >&2
    exit 1
  fi
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
