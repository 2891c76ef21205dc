#!/usr/bin/env bash
# The main job: install what is needed, build, and run the default built-in scene.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh Release
./build/release/apps/cli/impulse run "${1:-dzhanibekov}"
