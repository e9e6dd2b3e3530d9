#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# After `make install PREFIX=...`: lets the dynamic loader find SoftComch's libraries for programs
# built without an rpath (plain -L flags, cgo, hand-written Makefiles), the way a DOCA install
# does, by writing /etc/ld.so.conf.d/softcomch.conf and running ldconfig.
#
#   register-libdir.sh PREFIX [auto|yes|no]
#     auto (default): only for a system prefix (/opt/..., /usr/...) and only as root, and not when
#           another libdoca_comch is already registered with the loader (a real DOCA install: see
#           README, "SoftComch next to a real DOCA")
#     yes:  register, whatever the prefix (needs root)
#     no:   do nothing
# Undo: rm /etc/ld.so.conf.d/softcomch.conf && ldconfig
set -euo pipefail
prefix=${1:?usage: register-libdir.sh PREFIX [auto|yes|no]}
mode=${2:-auto}
conf=/etc/ld.so.conf.d/softcomch.conf

[ "$mode" = no ] && exit 0
libdir=$(dirname "$(find "$prefix/lib" -maxdepth 2 -name 'libdoca_comch.so.*' -print -quit 2>/dev/null || true)")
if [ -z "$libdir" ] || [ "$libdir" = . ]; then
  echo "softcomch: no libdoca_comch under $prefix/lib; nothing to register" >&2
  exit 0
fi
libdir=$(cd "$libdir" && pwd -P)

if [ "$mode" = auto ]; then
  case "$prefix" in
    /opt/*|/usr/*) ;;
    *) exit 0 ;; # a private prefix: programs find it through the pkg-config rpath
  esac
  [ "$(id -u)" -eq 0 ] || { echo "softcomch: not root: the loader does not know $libdir (programs built with pkg-config do not need it; see README)"; exit 0; }
  # Another libdoca_comch the loader already resolves (a real DOCA): do not shadow it silently.
  other=
  while read -r f; do
    d=$(cd "$(dirname "$f")" && pwd -P)
    # A directory our own conf file registered is an earlier SoftComch install: replaced below.
    if [ "$d" != "$libdir" ] && ! { [ -f "$conf" ] && grep -qxF "$d" "$conf"; }; then other=$f; break; fi
  done < <(ldconfig -p 2>/dev/null | awk '/libdoca_comch\.so/ {print $NF}')
  if [ -n "$other" ]; then
    echo "softcomch: the loader already resolves libdoca_comch to $other (a real DOCA install?);"
    echo "softcomch: not registering $libdir. To switch: make install PREFIX=$prefix LDCONFIG=yes"
    exit 0
  fi
fi
[ "$(id -u)" -eq 0 ] || { echo "softcomch: registering $libdir with the loader needs root" >&2; exit 1; }
if [ -f "$conf" ] && grep -qxF "$libdir" "$conf"; then
  ldconfig
  exit 0
fi
echo "$libdir" > "$conf"
ldconfig
echo "softcomch: $conf -> $libdir (ldconfig done; undo: rm $conf && ldconfig)"
