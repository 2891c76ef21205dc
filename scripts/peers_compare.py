#!/usr/bin/env python3
"""Compares Impulse's CPU time per step in two builds of impulse_peers, scene by scene.

Each round runs both programs on the same scenes, one after the other (which goes first
alternates), and takes the ratio B/A of their CPU medians: the host's drift falls on both. With
--nudges N each round runs the scenes nudged by seeds 1..N (impulse_peers --nudge) as well as
the issue's own, so that a change that alters a scene's bits is measured over trajectories
rather than on the one it happens to follow (docs/performance.md). Prints, per scene, the median
of the paired ratios and their quartiles over every round and nudge, and the median ratio of
each nudge.

  python3 scripts/peers_compare.py A/impulse_peers B/impulse_peers --scenes tower700 --rounds 3 --nudges 4
"""

import argparse
import json
import statistics
import subprocess
import sys


def cpu_medians(program, scenes, nudge, extra):
    command = [program, "--scenes", scenes, "--engines", "impulse", "--json", "--nudge", str(nudge)]
    out = subprocess.run(command + extra, capture_output=True, text=True, check=True).stdout
    # Impulse at the first --threads count ("impulse"; the others are "impulse@N").
    return {r["scene"]: r["cpu_median_ms"] for r in json.loads(out)["results"]
            if r["engine"] == "impulse"}


def quartiles(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 4], statistics.median(ordered), ordered[3 * len(ordered) // 4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the impulse_peers to compare against")
    parser.add_argument("b", help="the impulse_peers compared")
    parser.add_argument("--scenes", default="pyramid20,tower700,pile1000,ragdolls")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--nudges", type=int, default=0, help="also nudged by seeds 1..N")
    # Any other option goes to both programs (e.g. --threads 2 --every-step-on-threads).
    args, extra = parser.parse_known_args()
    ratios = {}  # scene -> nudge -> [B/A per round]
    for round_index in range(args.rounds):
        for nudge in range(args.nudges + 1):
            # By role, not by path: the same program as A and B measures the host's noise.
            order = ("a", "b") if (round_index + nudge) % 2 == 0 else ("b", "a")
            times = {role: cpu_medians(getattr(args, role), args.scenes, nudge, extra)
                     for role in order}
            for scene, a_ms in times["a"].items():
                ratios.setdefault(scene, {}).setdefault(nudge, []).append(times["b"][scene] / a_ms)
    for scene, by_nudge in ratios.items():
        every = [r for values in by_nudge.values() for r in values]
        q1, median, q3 = quartiles(every)
        per_nudge = " ".join(f"{statistics.median(v):.3f}" for v in by_nudge.values())
        print(f"{scene:10s} B/A median {median:.4f} (quartiles {q1:.4f}-{q3:.4f}, "
              f"{len(every)} pairs); by nudge 0..{args.nudges}: {per_nudge}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
