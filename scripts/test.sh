#!/usr/bin/env bash
# Every test: install what is needed, check formatting, build Release and run the whole suite;
# where Release is built for AVX-512, compare its steps with an x86-64-v3 build's;
# build Debug under AddressSanitizer and UndefinedBehaviorSanitizer and run the suite again; step
# scenes on three threads under ThreadSanitizer; run each fuzzer for a bounded time
# (docs/reliability.md). Warnings are errors throughout.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/check_format.sh
bash scripts/build.sh Release
ctest --test-dir build/release --output-on-failure -j"$(nproc)"
# Built for AVX-512, the steps must give the bits of an x86-64-v3 build: a replay that differs is
# a miscompile on a live path (scripts/compare_builds.sh).
if grep -qx 'IMPULSE_INSTRUCTION_SET:INTERNAL=x86-64-v4' build/release/CMakeCache.txt; then
  cmake -S . -B build/release-v3 -DCMAKE_BUILD_TYPE=Release -DIMPULSE_WARNINGS_AS_ERRORS=ON \
    -DIMPULSE_ARCH=x86-64-v3 -DIMPULSE_BUILD_TESTS=OFF -DIMPULSE_BUILD_BENCHMARKS=OFF \
    -DIMPULSE_BUILD_EXAMPLES=OFF -DIMPULSE_BUILD_TESTBED=OFF >/dev/null
  cmake --build build/release-v3 -j"$(nproc)" --target impulse_cli
  bash scripts/compare_builds.sh build/release build/release-v3
fi
# The sanitized suite leaves out the testbed and the benchmarks: no test needs them, and their
# compile time is the budget this build spends on the sanitizers. It is built for the compiler's
# default instruction set, so the suite runs once with fused multiply-adds (Release, where the
# machine has them) and once without (the lanes' bit-for-bit tests skip themselves under FMA).
bash scripts/build.sh Debug build/debug-asan -DIMPULSE_SANITIZE=ON -DIMPULSE_BUILD_TESTBED=OFF \
  -DIMPULSE_BUILD_BENCHMARKS=OFF -DIMPULSE_ARCH=default
ctest --test-dir build/debug-asan --output-on-failure -j"$(nproc)"
# The threads under ThreadSanitizer: scenes whose narrowphase, rows and pgs sweeps are shared
# among three threads, stepped beside one thread (impulse_threads also fails on different bits).
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIMPULSE_WARNINGS_AS_ERRORS=ON \
  -DIMPULSE_SANITIZE_THREADS=ON -DIMPULSE_BUILD_TESTS=OFF -DIMPULSE_BUILD_TESTBED=OFF >/dev/null
cmake --build build/tsan -j"$(nproc)" --target impulse_threads
for scene in pyramid tower700 ragdolls soak pile; do
  TSAN_OPTIONS=halt_on_error=1 build/tsan/bench/impulse_threads --scene "$scene" --threads 3 \
    --steps 10 --warm-up 5
done
# The same with patch friction, whose friction rows read several normal rows.
for scene in pyramid ragdolls; do
  TSAN_OPTIONS=halt_on_error=1 build/tsan/bench/impulse_threads --scene "$scene" --threads 3 \
    --steps 10 --warm-up 5 --friction-model patch
done
bash scripts/fuzz.sh 180 fixed
