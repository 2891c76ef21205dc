#!/usr/bin/env bash
# Draws docs/images/convergence.png: relative residual against iteration on a resting column of
# 10 cubes, for each solver, warm and cold started (data: the impulse_convergence program).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh Release >/dev/null
mkdir -p docs/images
data=$(mktemp)
./build/release/bench/impulse_convergence > "$data"
plots=()
for solver in pgs global_sparse jacobi block; do
  for warm in 0 1; do
    awk -F, -v s="$solver" -v w="$warm" '$1 == s && $2 == w {print $3, ($4 > 1e-8 ? $4 : 1e-8)}' "$data" > "$data.$solver.$warm"
    style=$([ "$warm" = 1 ] && echo "dt 1" || echo "dt 2")
    label="$solver $([ "$warm" = 1 ] && echo warm || echo cold)"
    plots+=("\"$data.$solver.$warm\" using 1:2 with lines lw 2 $style title \"$label\"")
  done
done
plot_command=$(IFS=,; echo "${plots[*]}")
gnuplot <<GNUPLOT
set terminal pngcairo size 900,560 font ",11"
set output "docs/images/convergence.png"
set logscale y
set format y "1e%T"
set xlabel "iteration"
set ylabel "relative residual |r| / |b|"
set title "Resting column of 10 cubes, one step at rest (dt 1/60)"
set key outside right
set termoption noenhanced
set xrange [0:200]
set yrange [1e-8:10]
plot $plot_command
GNUPLOT
rm -f "$data" "$data".*
echo "wrote docs/images/convergence.png"
