"""The pile benchmark (issue 24): N balls dropped in layers into an open box, simulated by
Asgard and by MuJoCo at its default settings for the same simulated time; processor and wall
time, the kinetic energy left at the end and the deepest overlap side by side. Started by
`benches/peer/run pile [N...] [--seconds S]`, which prepares the binary and the Python
environment.

The layout is the one of `benches/scenes/pile200.asg` for N = 200: layers of 5 x 5 balls of
radius 0.1 m, 0.3 m apart, each layer 0.25 m above the one below and shifted a little so that
the balls do not land exactly on each other, in a 2 m square box with 1.5 m walls. Asgard's
balls have restitution 0.3 and friction 0.5 against walls of friction 0.5; MuJoCo's have its
default contacts (soft, critically damped: `solref 0.02 1`, `solimp 0.9 0.95 0.001`, condim 3)
with friction 0.5, timestep 2 ms, Euler, which is what a user who opens MuJoCo gets."""

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import mujoco
import numpy as np

from scene import vector

RADIUS = 0.1
"""Ball radius, metres."""
MASS = 4.0 / 3.0 * math.pi * RADIUS**3
"""Ball mass at unit density, Asgard's default, kilograms."""
GRAVITY = 9.81
SAMPLES = 20
"""States sampled over the run, for the overlap measure."""


def positions(count):
    """The balls' starting positions, layer by layer (see the module documentation)."""
    out = []
    k = 0
    while len(out) < count:
        for i in range(5):
            for j in range(5):
                if len(out) < count:
                    out.append(
                        (-0.6 + i * 0.3 + 0.01 * k, 0.3 + k * 0.25, -0.6 + j * 0.3 - 0.013 * k)
                    )
        k += 1
    return np.array(out)


def asgard_scene(balls, seconds):
    """The scene as Asgard scene text."""
    lines = [
        f"# {len(balls)} balls dropped into an open box (benches/peer/pile.py).",
        f"simulator finish {seconds!r} step {seconds / SAMPLES!r}",
        f"shape_set ball desc {{sphere {RADIUS!r}}}",
        "shape_set floorslab desc {box {2 0.2 2}}",
        "shape_set wallx desc {box {0.2 1.5 2}}",
        "shape_set wallz desc {box {2 1.5 0.2}}",
        "body floor shape floorslab init_pos {0 -0.1 0} fixed 1",
        "body w1 shape wallx init_pos {-1.1 0.75 0} fixed 1",
        "body w2 shape wallx init_pos {1.1 0.75 0} fixed 1",
        "body w3 shape wallz init_pos {0 0.75 -1.1} fixed 1",
        "body w4 shape wallz init_pos {0 0.75 1.1} fixed 1",
    ]
    for n, p in enumerate(balls):
        lines.append(
            f"body b{n} shape ball init_pos {{{vector(p)}}} restitution 0.3"
        )
        lines.append(f"force body b{n} gravity {{0 -{GRAVITY!r} 0}}")
    return "\n".join(lines) + "\n"


def mujoco_model(balls):
    """The scene as MuJoCo MJCF, y up as in Asgard, MuJoCo's default contacts."""
    bodies = "\n".join(
        f'    <body name="b{n}" pos="{vector(p)}"><freejoint/>'
        f'<geom type="sphere" size="{RADIUS!r}" mass="{MASS!r}"/></body>'
        for n, p in enumerate(balls)
    )
    return f"""<mujoco model="pile">
  <option timestep="0.002" gravity="0 -{GRAVITY!r} 0"/>
  <default><geom friction="0.5 0.005 0.0001"/></default>
  <size memory="64M"/>
  <worldbody>
    <geom type="box" size="1 0.1 1" pos="0 -0.1 0"/>
    <geom type="box" size="0.1 0.75 1" pos="-1.1 0.75 0"/>
    <geom type="box" size="0.1 0.75 1" pos="1.1 0.75 0"/>
    <geom type="box" size="1 0.75 0.1" pos="0 0.75 -1.1"/>
    <geom type="box" size="1 0.75 0.1" pos="0 0.75 1.1"/>
{bodies}
  </worldbody>
</mujoco>
"""


def overlap(points):
    """The deepest overlap among balls at `points` (N, 3) and with the box, metres."""
    deepest = 0.0
    for n, p in enumerate(points):
        gaps = np.linalg.norm(points[n + 1 :] - p, axis=1) - 2 * RADIUS
        deepest = max(deepest, -gaps.min(initial=0.0))
        walls = (p[1] - RADIUS, p[0] + 1 - RADIUS, 1 - p[0] - RADIUS, p[2] + 1 - RADIUS, 1 - p[2] - RADIUS)
        deepest = max(deepest, -min(walls))
    return deepest


def kinetic(velocities):
    """The balls' translational kinetic energy, joules."""
    return 0.5 * MASS * float((np.asarray(velocities) ** 2).sum())


def run_asgard(binary, balls, seconds, workdir):
    """Asgard's run: processor time of the whole process (scene, model, solver, output)."""
    scene = workdir / f"pile{len(balls)}.asg"
    motion = workdir / f"pile{len(balls)}.asgard.json"
    scene.write_text(asgard_scene(balls, seconds))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(binary), "simulate", str(scene), "--stats", "-o", str(motion)],
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"asgard simulate failed on {scene}:\n{done.stderr}")
    with motion.open() as f:
        result = json.load(f)
    bodies = [result["bodies"][f"b{n}"] for n in range(len(balls))]
    frames = np.array([b["pos"] for b in bodies]).transpose(1, 0, 2)
    return {
        "engine": "Asgard",
        "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "wall": wall,
        "kinetic": kinetic([b["vel"][-1] for b in bodies]),
        "overlap": max(overlap(f) for f in frames),
        "contacts": len(result["collisions"]),
    }


def run_mujoco(balls, seconds):
    """MuJoCo's run: processor time of the `mj_step` calls only."""
    model = mujoco.MjModel.from_xml_string(mujoco_model(balls))
    data = mujoco.MjData(model)
    steps = round(seconds / model.opt.timestep)
    chunk = max(1, steps // SAMPLES)
    wall = cpu = 0.0
    deepest = 0.0
    for step in range(1, steps + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        mujoco.mj_step(model, data)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        if step % chunk == 0 or step == steps:
            deepest = max(deepest, overlap(data.qpos.reshape(-1, 7)[:, :3]))
    return {
        "engine": "MuJoCo default",
        "cpu": cpu,
        "wall": wall,
        "kinetic": kinetic(data.qvel.reshape(-1, 6)[:, :3]),
        "overlap": deepest,
        "contacts": int(data.ncon),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("counts", nargs="*", type=int, default=[200])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--asgard", required=True, help="the asgard release binary")
    parser.add_argument("--workdir", required=True, help="where scenes and motion go")
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if args.seconds <= 0:
        sys.exit(f"pile: error: --seconds must be positive, got {args.seconds}")
    for count in args.counts:
        if not 1 <= count <= 1000:
            sys.exit(f"pile: error: a pile has 1 to 1000 balls, got {count}")
    for count in args.counts:
        balls = positions(count)
        print(f"\nN = {count} balls dropped into a box, {args.seconds:g} s simulated", flush=True)
        rows = [run_asgard(args.asgard, balls, args.seconds, workdir), run_mujoco(balls, args.seconds)]
        cpu = rows[0]["cpu"]
        print(
            f"{'engine':<16} {'cpu s':>8} {'x Asgard':>9} {'wall s':>8} "
            f"{'kinetic J':>10} {'overlap mm':>10}"
        )
        for r in rows:
            print(
                f"{r['engine']:<16} {r['cpu']:>8.3f} {r['cpu'] / cpu:>9.2f} {r['wall']:>8.3f} "
                f"{r['kinetic']:>10.2e} {r['overlap'] * 1e3:>10.2f}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
