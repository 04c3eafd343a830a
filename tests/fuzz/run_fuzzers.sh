#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time each, starting from its seed corpus
# (tests/fuzz/corpus/<target>/, copied: new inputs stay out of the tree). A crash, a sanitizer
# report, a leak, a timeout or an out-of-memory fails the run; the input that did it is saved as
# <artifacts>/<target>-crash-... and the script exits 1 after trying every target.
#
#   tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_EACH]      (default 20 s; env FUZZ_ARTIFACTS=dir)
#
# BUILD_DIR is configured with clang and -DFIZZGEN_BUILD_FUZZERS=ON and built with
# `cmake --build BUILD_DIR --target fizzgen_fuzzers` (see .ci/run). To replay one crash input:
# BUILD_DIR/tests/fuzz/<target> <file>; then make it a test in tests/fuzz_regression_test.cpp.
set -uo pipefail

build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS_EACH]}
seconds=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
artifacts=${FUZZ_ARTIFACTS:-$build/fuzz-artifacts}
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t fuzzers < <(find "$build/tests" -maxdepth 2 -type f -perm -u+x -name '*_fuzz' | sort)
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "run_fuzzers: no *_fuzz programs under $build/tests (build the fizzgen_fuzzers target)" >&2
  exit 2
fi

failed=()
for fuzzer in "${fuzzers[@]}"; do
  name=$(basename "$fuzzer")
  mkdir -p "$work/$name"
  [ -d "$here/corpus/$name" ] && cp "$here/corpus/$name"/* "$work/$name"/ 2>/dev/null
  log="$artifacts/$name.log"
  # -timeout: one input may take 10 s; -rss_limit_mb: the checker's tables stay far below this.
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$name-" "$work/$name" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  if [ $rc -eq 0 ]; then
    printf 'run_fuzzers: %-20s ok   %8s runs in %ss, %s, corpus %s inputs\n' "$name" "${runs:-?}" "$seconds" \
      "${cov:-cov: ?}" "$(ls "$work/$name" | wc -l)"
  else
    failed+=("$name")
    printf 'run_fuzzers: %-20s FAILED (exit %s); log %s\n' "$name" "$rc" "$log"
    grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/    /'
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "run_fuzzers: ${#failed[@]} failed: ${failed[*]} (inputs in $artifacts)"
  exit 1
fi
echo "run_fuzzers: all ${#fuzzers[@]} fuzzers clean"
