#!/usr/bin/env bash
# Installs what Impulse needs on Debian 12 (as root). Idempotent: apt-get skips what is there.
set -euo pipefail
packages=(
  build-essential cmake git pkg-config
  googletest libgtest-dev libbenchmark-dev
  libeigen3-dev nlohmann-json3-dev libcli11-dev
  clang-format clang-tidy
  # the fuzzers (scripts/fuzz.sh): clang and its libFuzzer and sanitizer runtimes
  clang libclang-rt-dev
  gnuplot-nox
  # the testbed (optional target) and its headless capture test
  libglfw3-dev libimgui-dev libgl-dev libstb-dev xvfb xauth libgl1-mesa-dri
  # the peers benchmark (optional target): the engines it compares against
  libbullet-dev libode-dev
)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
