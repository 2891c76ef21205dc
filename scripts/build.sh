#!/usr/bin/env bash
# Configures and builds one build type into build/<type> (default Release) with warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."
type="${1:-Release}"
dir="build/${type,,}"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DIMPULSE_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$dir" -j"$(nproc)"
