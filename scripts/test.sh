#!/usr/bin/env bash
# Every test: install what is needed, check formatting, build Release and run the whole suite;
# build Debug under AddressSanitizer and UndefinedBehaviorSanitizer and run the suite again; run
# each fuzzer for a bounded time (docs/reliability.md). Warnings are errors throughout.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/check_format.sh
bash scripts/build.sh Release
ctest --test-dir build/release --output-on-failure -j"$(nproc)"
# The sanitized suite leaves out the testbed and the benchmarks: no test needs them, and their
# compile time is the budget this build spends on the sanitizers.
bash scripts/build.sh Debug build/debug-asan -DIMPULSE_SANITIZE=ON -DIMPULSE_BUILD_TESTBED=OFF \
  -DIMPULSE_BUILD_BENCHMARKS=OFF
ctest --test-dir build/debug-asan --output-on-failure -j"$(nproc)"
bash scripts/fuzz.sh 180 fixed
