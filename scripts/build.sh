#!/usr/bin/env bash
# Configures and builds one build type with warnings as errors: `build.sh [TYPE [DIR [OPTION...]]]`,
# by default Release into build/<type>; further arguments go to cmake (e.g. -DIMPULSE_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
type="${1:-Release}"
dir="${2:-build/${type,,}}"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DIMPULSE_WARNINGS_AS_ERRORS=ON "${@:3}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
