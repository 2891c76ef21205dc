#!/usr/bin/env python3
"""Steps seeded random scenes with the `impulse` command and lists those that break a physical rule.

Six kinds of scene, each written to the scene-format contract (docs/scene-format.md):
  pairs   two bodies on one joint (any type, anchors up to 3 m from the centres, masses 0.1 to
          100 kg, one body static in 30%, ranges about the start, gravity on or off, random
          velocities);
  chains  2 to 8 bodies hanging from a post on random joints (motors in some), over a ground, the
          bodies placed so that no two of them, nor a body and the post, overlap at the start
          (but for the post and the body hanging from it);
  drops   2 to 8 random shapes (compounds in 20%), masses 0.1 to 100 kg, thrown onto a box, plane
          or two-triangle mesh ground;
  slivers as drops, but thin hulls: needles and plates 0.3 to 2.5 m long and 1 mm to 5 cm thick;
  springs two bodies as pairs on a six_dof whose axes are springs (60%, a third of them also
          limited), free or fixed, or a distance spring (30%), frequencies 0.5 to 10 Hz, damping
          ratios 0 to 2 (springs stretch: not held to the joints-apart rule);
  stacks  a column of 2 to 10 boxes of random sizes (half extents 0.1 to 0.8 m) and masses (0.1 to
          100 kg: heavy on light up to 1000 to 1), each resting on the one below, placed so that
          the boxes above each one have their centre of mass within half its top face: a column
          that stands.
Each scene runs --steps steps (600: 10 s); a scene is listed when its mechanical energy rose by
more than --energy of its scale (pairs: the largest kinetic energy, start or end; chains, drops
and stacks: the bodies' weight times 5 m plus their kinetic energy) by the end, or at its most
over the run (`impulse run --json`'s energy.most: a rise that falls again), when its joints end
more than 5 cm apart, when a body ends more than 2 m below a ground it was over (drops, slivers),
when a sliver ends with a corner more than 2 cm into the ground without having fallen through
(sank), when a box ends more than 2 cm sideways from where it started (stacks: toppled), or when
the command failed. Scenes with motors are not held to the energy rule. A summary line counts each.

  python3 scripts/sweep.py pairs --solver pgs --count 300 --seed 0
  python3 scripts/sweep.py drops --count 100 --keep /tmp/drops   # keep the scene files

A developer's tool, as scripts/peers_compare.py (it needs python3, which scripts/setup.sh does not
install); docs/reliability.md ("Random sweeps") has what it found.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

TYPES = ["ball", "hinge", "prismatic", "cone_twist", "six_dof", "fixed", "distance"]


def unit():
    v = [random.gauss(0, 1) for _ in range(3)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def about_zero(lo, hi):
    return [random.uniform(lo, 0), random.uniform(0, hi)]


def shape(largest):
    kind = random.choice(["box", "sphere", "capsule"])
    if kind == "box":
        return {"type": "box", "half_extents": [random.uniform(0.05, largest) for _ in range(3)]}
    if kind == "sphere":
        return {"type": "sphere", "radius": random.uniform(0.05, largest * 0.8)}
    return {"type": "capsule", "radius": random.uniform(0.05, largest / 2),
            "half_height": random.uniform(0.05, largest)}


def reach(s):
    """The radius of a sphere about the body's origin that holds the shape."""
    if s["type"] == "box":
        return math.sqrt(sum(h * h for h in s["half_extents"]))
    if s["type"] == "sphere":
        return s["radius"]
    return s["radius"] + s["half_height"]


def joint(kind, a, b, anchor, b_position, motors):
    j = {"name": "j_%s_%s" % (a, b or "world"), "type": kind, "body_a": a}
    if b:
        j["body_b"] = b
    if kind == "distance":
        j["anchor_a"] = [random.uniform(-0.3, 0.3) for _ in range(3)]
        j["anchor_b"] = [x + random.uniform(-0.3, 0.3) for x in b_position]
        length = math.dist(j["anchor_a"], j["anchor_b"])
        if random.random() < 0.5:
            j["min"] = length * random.uniform(0, 1)
            j["max"] = length + random.uniform(0, 1)
        return j
    j["anchor"] = anchor
    if kind in ("hinge", "prismatic", "cone_twist"):
        j["axis"] = unit()
    if kind == "hinge" and random.random() < 0.7:
        j["limits"] = about_zero(-2.5, 2.5)
    if kind == "hinge" and motors and random.random() < 0.3:
        j["motor"] = {"speed": random.uniform(-3, 3), "max_torque": random.uniform(0, 50)}
    if kind == "prismatic" and random.random() < 0.7:
        j["limits"] = about_zero(-1, 1)
    if kind == "cone_twist":
        j["swing_limit"] = random.uniform(0.1, 1.5)
        j["twist_limits"] = about_zero(-1.5, 1.5)
    if kind == "six_dof":
        j["linear"] = [six_dof_axis(0.3, 0.3, lambda: about_zero(-1, 1)) for _ in range(3)]
        j["angular"] = [six_dof_axis(0.3, 0.3, lambda: about_zero(-1.5, 1.5)) for _ in range(3)]
    return j


def six_dof_axis(free, fixed, otherwise):
    """A six_dof axis: "free" with probability free, "fixed" with fixed, else otherwise()."""
    c = random.random()
    if c < free:
        return "free"
    if c < free + fixed:
        return "fixed"
    return otherwise()


def scene(name, gravity, solver, bodies, joints=()):
    return {"format": "impulse-scene/1", "name": name, "gravity": [0, -9.81 if gravity else 0, 0],
            "timestep": 1 / 60, "sleeping": False, "solver": {"type": solver, "iterations": 10},
            "bodies": bodies, "joints": list(joints)}


def pair_bodies():
    """Body a (static in 30%) at the origin, body b up to 3 m away, and an anchor."""
    bodies = []
    if random.random() < 0.3:
        bodies.append({"name": "a", "type": "static", "position": [0, 0, 0],
                       "shape": {"type": "sphere", "radius": 0.05}})
    else:
        bodies.append({"name": "a", "type": "dynamic", "mass": 10 ** random.uniform(-1, 2),
                       "position": [0, 0, 0], "shape": shape(0.6),
                       "linear_velocity": [random.uniform(-2, 2) for _ in range(3)],
                       "angular_velocity": [random.uniform(-3, 3) for _ in range(3)]})
    b_position = [random.uniform(-3, 3) for _ in range(3)]
    bodies.append({"name": "b", "type": "dynamic", "mass": 10 ** random.uniform(-1, 2),
                   "position": b_position, "shape": shape(0.6),
                   "linear_velocity": [random.uniform(-2, 2) for _ in range(3)],
                   "angular_velocity": [random.uniform(-3, 3) for _ in range(3)]})
    anchor = ([random.uniform(-3, 3) for _ in range(3)] if random.random() < 0.7
              else [x / 2 for x in b_position])
    return bodies, b_position, anchor


def pairs(seed, solver):
    gravity = random.random() < 0.5
    bodies, b_position, anchor = pair_bodies()
    j = joint(random.choice(TYPES), "a", "b", anchor, b_position, motors=False)
    return scene("pairs%d" % seed, gravity, solver, bodies, [j])


def spring():
    return {"frequency": random.uniform(0.5, 10), "damping_ratio": random.uniform(0, 2)}


def springs(seed, solver):
    gravity = random.random() < 0.5
    bodies, b_position, anchor = pair_bodies()
    if random.random() < 0.3:
        j = joint("distance", "a", "b", anchor, b_position, motors=False)
        j["spring"] = spring()
    else:
        j = joint("six_dof", "a", "b", anchor, b_position, motors=False)

        def soft(bound):
            axis = {"spring": spring()}
            if random.random() < 0.3:
                axis["limits"] = about_zero(-bound, bound)
            return axis
        j["linear"] = [six_dof_axis(0.2, 0.2, lambda: soft(1)) for _ in range(3)]
        j["angular"] = [six_dof_axis(0.2, 0.2, lambda: soft(1.5)) for _ in range(3)]
    return scene("springs%d" % seed, gravity, solver, bodies, [j])


def chains(seed, solver):
    bodies = [{"name": "ground", "type": "static", "position": [0, -0.5, 0],
               "shape": {"type": "box", "half_extents": [20, 0.5, 20]}},
              {"name": "post", "type": "static", "position": [0, 4, 0],
               "shape": {"type": "sphere", "radius": 0.05}}]
    # The post is placed first: a body may overlap only the one it hangs from.
    joints, placed = [], [([0, 4, 0], 0.05)]
    previous, previous_position = "post", [0, 4, 0]
    for i in range(random.randint(2, 8)):
        for _ in range(100):  # a place where it overlaps no body but the one it hangs from
            s = shape(0.4)
            d = unit()
            step = random.uniform(0.3, 1.0)
            p = [previous_position[k] + d[k] * step for k in range(3)]
            p[1] = max(p[1], 0.8)
            if all(math.dist(p, q) > reach(s) + r for q, r in placed[:-1]):
                break
        name = "b%d" % i
        bodies.append({"name": name, "type": "dynamic", "mass": 10 ** random.uniform(-0.5, 1.5),
                       "position": p, "shape": s})
        anchor = [(previous_position[k] + p[k]) / 2 for k in range(3)]
        kind = random.choice(TYPES[:-1] + ["ball", "hinge"])
        joints.append(joint(kind, name, previous, anchor, p, motors=True))
        placed.append((p, reach(s)))
        previous, previous_position = name, p
    return scene("chains%d" % seed, True, solver, bodies, joints)


def ground():
    """A static box, plane or two-triangle mesh ground whose top is y = 0, 40 m across."""
    kind = random.choice(["box", "plane", "mesh"])
    if kind == "box":
        g = {"position": [0, -0.5, 0], "shape": {"type": "box", "half_extents": [20, 0.5, 20]}}
    elif kind == "plane":
        g = {"position": [0, 0, 0], "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}}
    else:
        g = {"position": [0, 0, 0], "shape": {
            "type": "mesh", "vertices": [[-20, 0, -20], [20, 0, -20], [20, 0, 20], [-20, 0, 20]],
            "triangles": [[0, 2, 1], [0, 3, 2]]}}
    return dict(g, name="ground", type="static")


def thrown(i, lowest):
    """Body i of a drop: mass 0.1 to 100 kg, at a random attitude, moving and spinning, placed
    over the ground's middle with its centre from `lowest` to 5 m up."""
    q = [random.gauss(0, 1) for _ in range(4)]
    n = math.sqrt(sum(x * x for x in q))
    return {"name": "b%d" % i, "type": "dynamic", "mass": 10 ** random.uniform(-1, 2),
            "position": [random.uniform(-1.5, 1.5), random.uniform(lowest, 5),
                         random.uniform(-1.5, 1.5)],
            "orientation": [x / n for x in q],
            "linear_velocity": [random.uniform(-3, 3) for _ in range(3)],
            "angular_velocity": [random.uniform(-5, 5) for _ in range(3)]}


def drops(seed, solver):
    bodies = [ground()]
    for i in range(random.randint(2, 8)):
        b = thrown(i, 0.8)
        if random.random() < 0.2:
            b["shapes"] = [dict(shape(0.8), position=[random.uniform(-0.4, 0.4) for _ in range(3)])
                           for _ in range(2)]
        elif random.random() < 0.25:
            b["shape"] = {"type": "convex_hull", "points": [
                [random.uniform(-0.5, 0.5) for _ in range(3)] for _ in range(random.randint(6, 20))]}
        else:
            b["shape"] = shape(0.8)
        bodies.append(b)
    return scene("drops%d" % seed, True, solver, bodies)


def slivers(seed, solver):
    bodies = [ground()]
    for i in range(random.randint(2, 8)):
        # Along x, 0.3 to 2.5 m; across, 1 mm to 5 cm thick on y and z (a needle) or on y alone (a
        # plate as wide as a tenth to a half of its length): its ends, then points between them.
        length = random.uniform(0.3, 2.5)
        thick = 10 ** random.uniform(-3, math.log10(0.05))
        wide = thick if random.random() < 0.5 else length * random.uniform(0.1, 0.5)
        points = []
        for k in range(random.randint(8, 20)):
            x = (-0.5 if k < 2 else 0.5) * length if k < 4 else random.uniform(-0.5, 0.5) * length
            points.append([x, random.uniform(-0.5, 0.5) * thick, random.uniform(-0.5, 0.5) * wide])
        b = thrown(i, 0.5 * length + 0.1)
        b["shape"] = {"type": "convex_hull", "points": points}
        bodies.append(b)
    return scene("slivers%d" % seed, True, solver, bodies)


def rotate(q, v):
    """v turned by the unit quaternion q = [x, y, z, w]."""
    u, w = q[:3], q[3]
    t = [2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
         2 * (u[0] * v[1] - u[1] * v[0])]
    return [v[k] + w * t[k] + (u[(k + 1) % 3] * t[(k + 2) % 3] - u[(k + 2) % 3] * t[(k + 1) % 3])
            for k in range(3)]


def stacks(seed, solver):
    boxes, top = [], 0.0
    for i in range(random.randint(2, 10)):
        h = [random.uniform(0.1, 0.8) for _ in range(3)]
        boxes.append({"name": "b%d" % i, "type": "dynamic", "mass": 10 ** random.uniform(-1, 2),
                      "position": [0, top + h[1], 0], "shape": {"type": "box", "half_extents": h}})
        top += 2 * h[1]
    # Each box off the one below by up to a third of the smaller half extent, drawn again where the
    # boxes above some box lean past half its top face (centred, every column stands).
    for _ in range(100):
        for below, box in zip(boxes, boxes[1:]):
            for k in (0, 2):
                reach = min(box["shape"]["half_extents"][k], below["shape"]["half_extents"][k]) / 3
                box["position"][k] = below["position"][k] + random.uniform(-1, 1) * reach
        if all(stands(boxes[k], boxes[k + 1:]) for k in range(len(boxes) - 1)):
            break
    else:
        for box in boxes:
            box["position"][0] = box["position"][2] = 0
    ground = {"name": "ground", "type": "static", "position": [0, -0.5, 0],
              "shape": {"type": "box", "half_extents": [20, 0.5, 20]}}
    return scene("stacks%d" % seed, True, solver, [ground] + boxes)


def stands(box, above):
    """Whether the boxes above have their centre of mass within half of box's top face."""
    mass = sum(b["mass"] for b in above)
    return all(abs(sum(b["mass"] * b["position"][k] for b in above) / mass - box["position"][k])
               <= 0.5 * box["shape"]["half_extents"][k] for k in (0, 2))


def run(command, path, steps):
    out = subprocess.run([command, "run", path, "--steps", str(steps), "--json"],
                         capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else None


def energy(summary):
    return summary["energy"]["kinetic"] + summary["energy"]["potential"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind",
                        choices=["pairs", "springs", "chains", "drops", "slivers", "stacks"])
    parser.add_argument("--impulse", default="build/release/apps/cli/impulse")
    parser.add_argument("--solver", default="pgs")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="the first scene's seed")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--energy", type=float, default=0.05,
                        help="the rise in mechanical energy, against its scale, that lists a scene")
    parser.add_argument("--keep", help="a directory to keep the scene files in")
    args = parser.parse_args()
    make = {"pairs": pairs, "springs": springs, "chains": chains, "drops": drops,
            "slivers": slivers, "stacks": stacks}[args.kind]
    directory = args.keep or tempfile.mkdtemp()
    os.makedirs(directory, exist_ok=True)
    counts = {"energy": 0, "peak": 0, "apart": 0, "fell": 0, "sank": 0, "toppled": 0, "failed": 0}
    for seed in range(args.seed, args.seed + args.count):
        random.seed(seed)
        s = make(seed, args.solver)
        path = os.path.join(directory, "%s%d.json" % (args.kind, seed))
        with open(path, "w") as f:
            json.dump(s, f)
        start, end = run(args.impulse, path, 0), run(args.impulse, path, args.steps)
        if start is None or end is None:
            counts["failed"] += 1
            print("%s: the command failed" % path)
            continue
        dynamic = [b for b in s["bodies"] if b["type"] == "dynamic"]
        if args.kind in ("pairs", "springs"):
            scale = max(start["energy"]["kinetic"], end["energy"]["kinetic"], 1e-3)
        else:
            scale = start["energy"]["kinetic"] + sum(9.81 * b["mass"] * 5 for b in dynamic)
        rise = (energy(end) - energy(start)) / scale
        motors = any("motor" in j for j in s["joints"])
        found = []
        if rise > args.energy and not motors:
            found.append("energy +%.3g of its scale" % rise)
            counts["energy"] += 1
        peak = (end["energy"]["most"] - end["energy"]["start"]) / scale
        if peak > args.energy and not motors:
            found.append("energy +%.3g of its scale at its most" % peak)
            counts["peak"] += 1
        if s["joints"] and end["max_joint_error"] > 0.05 and args.kind != "springs":
            found.append("joints %.3g m apart" % end["max_joint_error"])
            counts["apart"] += 1
        if args.kind in ("drops", "slivers"):
            under = [b["position"][1] for b in end["bodies"][1:]
                     if abs(b["position"][0]) < 19 and abs(b["position"][2]) < 19]
            if under and min(under) < -2:
                found.append("a body %.3g m under the ground" % -min(under))
                counts["fell"] += 1
        if args.kind == "slivers":
            hulls = {b["name"]: b["shape"]["points"] for b in dynamic}
            sunk = [-min(b["position"][1] + rotate(b["orientation"], p)[1]
                         for p in hulls[b["name"]])
                    for b in end["bodies"][1:] if -2 <= b["position"][1]
                    and abs(b["position"][0]) < 19 and abs(b["position"][2]) < 19]
            if sunk and max(sunk) > 0.02:
                found.append("a corner %.3g m into the ground" % max(sunk))
                counts["sank"] += 1
        if args.kind == "stacks":
            placed = {b["name"]: b["position"] for b in s["bodies"]}
            sideways = max(math.hypot(b["position"][0] - placed[b["name"]][0],
                                      b["position"][2] - placed[b["name"]][2])
                           for b in end["bodies"] if b["name"] != "ground")
            if sideways > 0.02:
                found.append("toppled: a box %.3g m sideways" % sideways)
                counts["toppled"] += 1
        if found:
            print("%s: %s" % (path, "; ".join(found)))
    print("%s, %s, %d scenes from seed %d: energy gained in %d, joints apart in %d, "
          "fell through in %d, failed %d; energy gained at its most in %d"
          % (args.kind, args.solver, args.count, args.seed, counts["energy"], counts["apart"],
             counts["fell"], counts["failed"], counts["peak"])
          + ("; toppled in %d" % counts["toppled"] if args.kind == "stacks" else "")
          + ("; sank in %d" % counts["sank"] if args.kind == "slivers" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
