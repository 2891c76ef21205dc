#!/usr/bin/env bash
# Fails when any C++ file differs from what clang-format (with the repo's .clang-format) makes of it.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run --Werror
echo "format: $(git ls-files '*.h' '*.cpp' | wc -l) files clean"
