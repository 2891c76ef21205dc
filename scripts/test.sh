#!/usr/bin/env bash
# Every test: install what is needed, check formatting, build Release and Debug with warnings as
# errors, and run the whole suite in both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/check_format.sh
for type in Release Debug; do
  bash scripts/build.sh "$type"
  ctest --test-dir "build/${type,,}" --output-on-failure -j"$(nproc)"
done
