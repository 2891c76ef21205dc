#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build/fuzz and runs each for a bounded time (seconds,
# default 60) from the committed corpus (tests/fuzz/corpus/<target>/). New inputs go to
# build/fuzz/corpus/, never into the repository; a finding stops the run and fails the script
# (its input is saved as build/fuzz/crash-*: add it to the corpus with a regression test).
# The seed is fixed: a run explores the same inputs in the same order on any machine, so a longer
# run here has tried everything a shorter one in CI will (for the same code).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
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
  "$dir/tests/fuzz/impulse_${target}_fuzzer" -max_total_time="$seconds" -seed=1 -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir/corpus/$target" "tests/fuzz/corpus/$target" \
    >"$dir/$target.log" 2>&1 || status=$?
  if [[ $status -ne 0 ]]; then
    tail -60 "$dir/$target.log"
    echo "fuzz: $target found a problem (input saved under $dir/)"
    exit 1
  fi
  echo "fuzz: $target: $(grep -E '^Done' "$dir/$target.log"), corpus $(ls "$dir/corpus/$target" | wc -l) files"
done
