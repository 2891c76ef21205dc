#!/usr/bin/env bash
# Replays every built-in scene with the `impulse` command of two builds and fails where their
# records differ: `compare_builds.sh BUILD_DIR_A BUILD_DIR_B [STEPS]`. Each scene is exported by
# the first build and that file replayed by both, under the coulomb and patch friction models on
# one and two threads: the steps are compared, not the scene builders, whose scalar arithmetic
# the compiler may fuse differently for another instruction set (the soak's ragdoll axes differ in
# their last bits between x86-64-v3 and v4). The v3 and v4 builds step with the same bits (their
# lanes are four floats, fused alike), so a replay that differs between them is a miscompile on a
# live path, as GCC 12 made of a select of lanes for AVX-512 (docs/performance.md, "Built for
# AVX-512 where the machine has it"). Builds for sets that round differently (the baseline has no
# fused multiply-add) are expected to differ.
set -euo pipefail
if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUILD_DIR_A BUILD_DIR_B [STEPS]" >&2
  exit 2
fi
steps="${3:-200}"
commands=("$1/apps/cli/impulse" "$2/apps/cli/impulse")
for command in "${commands[@]}"; do
  if [[ ! -x "$command" ]]; then
    echo "$0: no impulse command at $command (build the impulse_cli target)" >&2
    exit 2
  fi
done
records="$(mktemp -d)"
trap 'rm -rf "$records"' EXIT
differ=0
replays=0
for scene in $("${commands[0]}" scenes); do
  "${commands[0]}" export "$scene" "$records/scene.json"
  for model in coulomb patch; do
    for threads in 1 2; do
      for k in 0 1; do
        if ! "${commands[$k]}" run "$records/scene.json" --steps "$steps" \
          --friction-model "$model" --threads "$threads" --record "$records/$k.jsonl" >/dev/null; then
          echo "$0: ${commands[$k]} failed on $scene, $model friction, $threads thread(s)" >&2
          exit 1
        fi
      done
      replays=$((replays + 1))
      if ! cmp -s "$records/0.jsonl" "$records/1.jsonl"; then
        echo "differs: $scene, $model friction, $threads thread(s)"
        differ=$((differ + 1))
      fi
    done
  done
done
echo "$replays replays of $steps steps: $differ differ between $1 and $2"
[[ $differ -eq 0 ]]
