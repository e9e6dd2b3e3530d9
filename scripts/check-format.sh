#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The tree is formatted by clang-format (.clang-format at the root for C++; samples/, programs/
# and include/ for the C code in DOCA's layout). Exits non-zero and names the files that are not.
#   scripts/check-format.sh          check (CI)
#   scripts/check-format.sh --fix    rewrite the files in place
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$cf" ]; then
  echo "check-format: clang-format is not installed (apt-get install clang-format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.inl' | grep -v '^tests/abi/fixtures/')
if [ "${1:-}" = --fix ]; then
  "$cf" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) are not formatted ($("$cf" --version | head -1)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: fix with scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
