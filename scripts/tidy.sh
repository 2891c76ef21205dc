#!/usr/bin/env bash
# Runs clang-tidy (the repo's .clang-tidy) over the library, the command and the benchmarks; fails
# on any warning. Slow (about 10 s a file), so not part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh Release >/dev/null
files=$(git ls-files 'src/*.cpp' 'apps/*.cpp' 'bench/*.cpp')
out=$(echo "$files" | xargs -P "$(nproc)" -n 4 clang-tidy -p build/release --quiet 2>/dev/null || true)
warnings=$(echo "$out" | grep -E "(warning|error):" | sort -u || true)
if [ -n "$warnings" ]; then
  echo "$warnings"
  exit 1
fi
echo "clang-tidy: $(echo "$files" | wc -l) files clean"
