#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the libFuzzer targets of tests/fuzz with clang (their own build tree, -fsanitize=
# fuzzer,address,undefined) and runs each for a bounded time, starting from its committed corpus.
# Called by `make fuzz` and `make fuzz-merge`; docs/failure-model.md ("Fuzzing and sanitizers").
#
#   scripts/fuzz.sh run   [TARGET...]   fuzz each target FUZZ_SECONDS seconds (default 60), then
#                                      write the summary (executions per target) to
#                                      $FUZZ_BUILD/fuzz-summary.txt; fails if any target found a
#                                      crash, a sanitizer report, a leak or a timeout
#   scripts/fuzz.sh merge [TARGET...]   add the inputs of the last runs that reach new coverage
#                                      to tests/fuzz/corpus/<target>/ (libFuzzer -merge=1)
#
# Environment: FUZZ_SECONDS, FUZZ_BUILD (build-fuzz), FUZZ_JOBS (build parallelism, nproc),
# FUZZ_PARALLEL (targets fuzzed at once, FUZZ_JOBS),
# WERROR (ON), CLANG / CLANGXX (clang-14 / clang++-14 when present, else clang / clang++).
# New inputs and findings stay in $FUZZ_BUILD/corpus/<target>/ and $FUZZ_BUILD/findings/<target>/
# (crash-*, leak-*, timeout-* files: replay one with $FUZZ_BUILD/tests/fuzz/<target> <file>).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
shift || true
all_targets=(fuzz_wire fuzz_segment_header fuzz_fast_channel fuzz_endpoint_info fuzz_json
  fuzz_topology fuzz_api fuzz_export_desc fuzz_lz4)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}
werror=${WERROR:-ON}
cc=${CLANG:-$(command -v clang-14 || command -v clang || true)}
cxx=${CLANGXX:-$(command -v clang++-14 || command -v clang++ || true)}

if [ -z "$cc" ] || [ -z "$cxx" ]; then
  echo "fuzz: clang is not installed (SOFTCOMCH_WITH_FUZZ=1 scripts/install-deps.sh installs it)" >&2
  exit 2
fi

# ---- build ----
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DSOFTCOMCH_FUZZ=ON \
    -DSOFTCOMCH_SANITIZE=address,undefined -DSOFTCOMCH_BUILD_BENCH=OFF \
    -DSOFTCOMCH_WERROR="$werror" > /dev/null
fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

bin="$build/tests/fuzz"
mkdir -p "$build/corpus" "$build/findings"

if [ "$mode" = merge ]; then
  for t in "${targets[@]}"; do
    if [ ! -d "$build/corpus/$t" ]; then
      echo "fuzz-merge: $t: no run to merge (make fuzz first)"
      continue
    fi
    before=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
    "$bin/$t" -merge=1 "tests/fuzz/corpus/$t" "$build/corpus/$t" > "$build/findings/$t.merge.log" 2>&1
    after=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
    echo "fuzz-merge: $t: $((after - before)) input(s) added to tests/fuzz/corpus/$t"
  done
  exit 0
fi

if [ "$mode" != run ]; then
  echo "usage: scripts/fuzz.sh run|merge [TARGET...]" >&2
  exit 2
fi

# ---- run ----
# Inputs larger than the largest seed add time, not coverage (fuzz_segment_header's images are
# the exception: whole segments). RSS limit: a target that needs more is a finding (memory
# blow-up). A single input that runs for 25 s is a finding (a hang).
max_len_of() {
  case "$1" in
    fuzz_segment_header) echo 1048576 ;;
    fuzz_fast_channel) echo 16384 ;;
    fuzz_api) echo 1536 ;;
    fuzz_export_desc) echo 1024 ;;
    *) echo 8192 ;;
  esac
}
summary="$build/fuzz-summary.txt"
{
  echo "# make fuzz: $seconds s per target, $(date -u +%Y-%m-%dT%H:%M:%SZ), $("$cxx" --version | head -1)"
  printf '%-22s %12s %10s %8s %8s  %s\n' target executions exec/s corpus cov result
} > "$summary"
# One target per CPU at a time (FUZZ_PARALLEL, default FUZZ_JOBS): each is single-threaded.
parallel=${FUZZ_PARALLEL:-$jobs}
run_one() {
  local t=$1 work="$build/corpus/$1" findings="$build/findings/$1" rc=0
  mkdir -p "$work" "$findings"
  echo "fuzz: $t for $seconds s ..."
  # -close_fd_mask=1 mutes the targets' own output; libFuzzer's report goes to stderr anyway.
  ( cd "$findings" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$OLDPWD/$bin/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
      -max_len="$(max_len_of "$t")" -print_final_stats=1 -close_fd_mask=1 \
      -artifact_prefix="$OLDPWD/$findings/" "$OLDPWD/$work" "$OLDPWD/tests/fuzz/corpus/$t" ) \
      > "$build/findings/$t.log" 2>&1 || rc=$?
  echo "$rc" > "$build/findings/$t.rc"
}
running=0
for t in "${targets[@]}"; do
  rm -f "$build/findings/$t.rc"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t"
  findings="$build/findings/$t"
  log="$build/findings/$t.log"
  rc=$(cat "$build/findings/$t.rc" 2>/dev/null || echo 99)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  files=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    result="FINDING (exit $rc): $(ls "$findings" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | head -1)"
    failed=1
  fi
  printf '%-22s %12s %10s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "$files" "${cov:-?}" "$result" >> "$summary"
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $t: finding; the report:" >&2
    grep -E 'ERROR|SUMMARY|fuzz_api:|runtime error|==[0-9]+==' "$log" | head -20 >&2 || true
  fi
done
cat "$summary"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: findings above (inputs in $build/findings/<target>/, logs in $build/findings/<target>.log)" >&2
  exit 1
fi
