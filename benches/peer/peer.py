"""The peer-engine benchmark (issue 4 section 7): N elastic balls in free space simulated by
Asgard and by MuJoCo for the same simulated time; wall time, momentum and energy drift and
collision counts side by side. Started by `benches/peer/run`, which prepares the binary and
the Python environment."""

import argparse
import sys
from pathlib import Path

import asgard_engine
import mujoco_engine
import scene
from conservation import drift

SAMPLES = 100
"""Velocity samples per run, for the maximum drift over the run."""


def duration_for(balls):
    """Simulated time: one and a half times the inflow's crossing time, so the cloud
    contracts, collides and spreads again; rounded to 0.1 s so that every engine's timestep
    divides it into `SAMPLES` equal chunks."""
    return max(1.0, round(1.5 * balls.crossing_time(), 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("counts", nargs="*", type=int, default=[10, 100, 1000])
    parser.add_argument("--asgard", required=True, help="the asgard release binary")
    parser.add_argument("--workdir", required=True, help="where scenes and motion go")
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    for count in args.counts:
        if count < 2:
            sys.exit(f"peer: error: a scene needs at least 2 balls, got {count}")
    for count in args.counts:
        try:
            balls = scene.generate(count, args.seed + count)
        except RuntimeError as e:
            sys.exit(f"peer: error: {e}")
        duration = duration_for(balls)
        print(
            f"\nN = {count}: {duration:g} s simulated, start radius "
            f"{balls.region_radius:.2f} m, seed {args.seed + count}",
            flush=True,
        )
        try:
            outcomes = [asgard_engine.run(args.asgard, balls, duration, SAMPLES, workdir)]
            for contact in (mujoco_engine.ACCURATE, mujoco_engine.FAST):
                outcomes.append(mujoco_engine.run(balls, duration, SAMPLES, contact))
        except (RuntimeError, ValueError, OSError) as e:
            sys.exit(f"peer: error: N = {count}: {e}")
        print_table(count, outcomes)


def print_table(count, outcomes):
    """One row per run: wall and processor time and their ratios to Asgard's, collisions in
    all and per ball, and the relative momentum (dP) and energy (dE) errors at the end and
    their maximum."""
    wall, cpu = outcomes[0].wall_s, outcomes[0].cpu_s
    header = (
        f"{'engine':<16} {'wall s':>9} {'x Asgard':>9} {'cpu s':>9} {'x Asgard':>9} "
        f"{'collisions':>10} "
        f"{'per ball':>8} {'dP end':>9} {'dP max':>9} {'dE end':>9} {'dE max':>9}"
    )
    print(header)
    for o in outcomes:
        d = drift(o.samples)
        print(
            f"{o.label:<16} {o.wall_s:>9.3f} {o.wall_s / wall:>9.2f} "
            f"{o.cpu_s:>9.3f} {o.cpu_s / cpu:>9.2f} {o.collisions:>10} "
            f"{2 * o.collisions / count:>8.1f} {d.momentum_end:>9.1e} {d.momentum_max:>9.1e} "
            f"{d.energy_end:>9.1e} {d.energy_max:>9.1e}"
        )
    for o in outcomes:
        print(f"  {o.setting}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
