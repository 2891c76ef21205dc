#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build/fuzz and runs each for a bounded time (seconds,
# default 60) from the committed corpus (tests/fuzz/corpus/<target>/). New inputs go to
# build/fuzz/corpus/, never into the repository; a finding stops the run and fails the script
# (its input is saved as build/fuzz/crash-*: add it to the corpus with a regression test).
# The seed is fixed. With "fixed" as the second argument each target also stops after a fixed
# number of inputs (the test command's run), so a faster machine does no more fuzzing than a slower
# one; the runs are alike, not identical (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
fixed="${2:-}"
declare -A fixed_runs=([scene]=200000 [world]=4000)
if ! command -v clang++ >/dev/null; then
  echo "fuzz: skipped (no clang++)"
  exit 0
fi
dir=build/fuzz
CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIMPULSE_WARNINGS_AS_ERRORS=ON \
  -DIMPULSE_BUILD_FUZZERS=ON -DIMPULSE_BUILD_TESTS=OFF -DIMPULSE_BUILD_BENCHMARKS=OFF \
  -DIMPULSE_BUILD_APPS=OFF -DIMPULSE_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target impulse_scene_fuzzer impulse_world_fuzzer
for target in scene world; do
  mkdir -p "$dir/corpus/$target"
  status=0
  runs=()
  [[ "$fixed" == fixed ]] && runs=(-runs="${fixed_runs[$target]}")
  "$dir/tests/fuzz/impulse_${target}_fuzzer" -max_total_time="$seconds" -seed=1 "${runs[@]}" \
    -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir/corpus/$target" "tests/fuzz/corpus/$target" \
    >"$dir/$target.log" 2>&1 || status=$?
  if [[ $status -ne 0 ]]; then
    tail -60 "$dir/$target.log"
    echo "fuzz: $target found a problem (input saved under $dir/)"
    exit 1
  fi
  echo "fuzz: $target: $(grep -E '^Done' "$dir/$target.log"), corpus $(ls "$dir/corpus/$target" | wc -l) files"
done
