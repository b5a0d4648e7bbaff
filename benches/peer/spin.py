"""Free spinning bodies (issue 28): N rigid bodies with three different principal moments of
inertia, spinning with no torque, no gravity and no contact, simulated by Asgard and by
MuJoCo's RK4 for the same time. Energy and angular momentum are conserved exactly in theory;
the table gives each engine's relative errors in them, read from the same samples, beside its
wall and processor time. Started by `benches/peer/run spin [N...]`.

Each body's kinetic energy is `1/2 w_b . I w_b` (body axes) and its angular momentum
`R I w_b` (world axes); the errors are the largest relative changes `|E(t) - E(0)| / E(0)`
and `|L(t) - L(0)| / |L(0)|` over the bodies and the samples (per body: a total would let
errors of opposite sign cancel).
"""

import argparse
import json
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

DURATION = 10.0
"""Simulated time, seconds."""
SAMPLES = 100
"""Samples of the motion per run (every 0.1 s)."""
TIMESTEP = 0.002
"""MuJoCo's RK4 step, seconds (the issue's comparison)."""
MASS = 1.0


@dataclass
class Bodies:
    """Principal moments (N, 3) and starting angular velocities in body axes (N, 3); every
    body starts unrotated, so body and world axes agree at the start."""

    moments: np.ndarray
    spins: np.ndarray

    @property
    def count(self):
        return len(self.moments)


def generate(count, seed):
    """Boxes with random sides from 0.2 to 1 m (so three different moments) and random
    spins of a few radians per second about all three axes."""
    rng = np.random.default_rng(seed)
    sides = rng.uniform(0.2, 1.0, (count, 3))
    a, b, c = sides[:, 0] ** 2, sides[:, 1] ** 2, sides[:, 2] ** 2
    moments = MASS / 12.0 * np.stack([b + c, a + c, a + b], axis=1)
    spins = rng.normal(0.0, 2.0, (count, 3))
    return Bodies(moments, spins)


def _vector(v):
    return " ".join(repr(float(x)) for x in v)


def asgard_scene(bodies, tolerance):
    lines = [
        f"# {bodies.count} free spinning bodies (benches/peer/spin.py).",
        f"simulator finish {DURATION!r} step {DURATION / SAMPLES!r} collisions 0"
        + (f" tolerance {tolerance!r}" if tolerance else ""),
        "shape_set block desc {box {1 1 1}}",
    ]
    for i, (moments, spin) in enumerate(zip(bodies.moments, bodies.spins)):
        lines.append(
            f"body s{i} shape block mass {MASS!r} inertia {{{_vector(moments)}}} "
            f"init_pos {{{3.0 * (i % 32)!r} {3.0 * (i // 32)!r} 0}} init_drot {{{_vector(spin)}}}"
        )
    return "\n".join(lines) + "\n"


def mujoco_xml(bodies):
    parts = "\n".join(
        f'    <body name="s{i}" pos="{3.0 * (i % 32)!r} {3.0 * (i // 32)!r} 0"><freejoint/>'
        f'<inertial pos="0 0 0" mass="{MASS!r}" diaginertia="{_vector(m)}"/></body>'
        for i, m in enumerate(bodies.moments)
    )
    return f"""<mujoco model="spin">
  <option timestep="{TIMESTEP!r}" gravity="0 0 0" integrator="RK4"/>
  <worldbody>
{parts}
  </worldbody>
</mujoco>
"""


@dataclass
class Outcome:
    label: str
    wall_s: float
    cpu_s: float
    energy: float
    momentum: float
    steps: str


def errors(moments, rotations, body_spins):
    """Relative energy and momentum errors from samples: `rotations` (S, N, 3, 3) body to
    world, `body_spins` (S, N, 3) angular velocity in body axes."""
    energy = 0.5 * (moments[None] * body_spins**2).sum(axis=2)
    momentum = np.einsum("snij,snj->sni", rotations, moments[None] * body_spins)
    e = (np.abs(energy - energy[0]) / energy[0]).max()
    change = np.linalg.norm(momentum - momentum[0], axis=2)
    l = (change / np.linalg.norm(momentum[0], axis=1)).max()
    return float(e), float(l)


def quaternion_matrices(q):
    """Rotation matrices (…, 3, 3) of unit quaternions (…, 4) given as w, x, y, z."""
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def run_asgard(label, binary, bodies, tolerance, workdir):
    """`asgard simulate` with `tolerance` (None: the scene's default). The wall time is the
    solver's run as Asgard reports it; the processor time is the whole process's (reading
    the scene, compiling, sampling and writing the JSON included)."""
    name = f"spin{bodies.count}-{label.replace(' ', '_')}"
    scene_path, motion_path = workdir / f"{name}.asg", workdir / f"{name}.json"
    scene_path.write_text(asgard_scene(bodies, tolerance))
    command = [str(binary), "simulate", str(scene_path), "--stats", "-o", str(motion_path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    finished = subprocess.run(command, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{finished.stderr}")
    steps = next(
        (line for line in finished.stderr.splitlines() if re.match(r"\d+ steps", line)), "?"
    ).split(",")[0]
    with motion_path.open() as f:
        motion = json.load(f)
    states = [motion["bodies"][f"s{i}"] for i in range(bodies.count)]
    if {len(s["t"]) for s in states} != {SAMPLES + 1}:
        raise RuntimeError(f"{motion_path}: expected {SAMPLES + 1} samples per body")
    rotations = quaternion_matrices(np.array([s["rot"] for s in states]).transpose(1, 0, 2))
    world_spins = np.array([s["angvel"] for s in states]).transpose(1, 0, 2)
    body_spins = np.einsum("snji,snj->sni", rotations, world_spins)
    energy, momentum = errors(bodies.moments, rotations, body_spins)
    return Outcome(
        label=label,
        wall_s=motion["stats"]["wall_s"],
        cpu_s=(after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        energy=energy,
        momentum=momentum,
        steps=steps,
    )


def run_mujoco(bodies):
    """MuJoCo's RK4 at `TIMESTEP`; the times cover the `mj_step` calls only, one per step."""
    model = mujoco.MjModel.from_xml_string(mujoco_xml(bodies))
    data = mujoco.MjData(model)
    qvel = data.qvel.reshape(bodies.count, 6)
    qvel[:, 3:] = bodies.spins
    mujoco.mj_forward(model, data)
    steps = round(DURATION / TIMESTEP)
    chunk = steps // SAMPLES

    def sample():
        quats = data.xquat[1:].copy()
        return quats, data.qvel.reshape(bodies.count, 6)[:, 3:].copy()

    samples = [sample()]
    wall = cpu = 0.0
    for step in range(1, steps + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        mujoco.mj_step(model, data)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        if step % chunk == 0:
            samples.append(sample())
    rotations = quaternion_matrices(np.array([s[0] for s in samples]))
    body_spins = np.array([s[1] for s in samples])
    energy, momentum = errors(bodies.moments, rotations, body_spins)
    return Outcome(
        label=f"MuJoCo RK4 dt {TIMESTEP:g}",
        wall_s=wall,
        cpu_s=cpu,
        energy=energy,
        momentum=momentum,
        steps=f"{steps} steps",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("counts", nargs="*", type=int, default=[1000])
    parser.add_argument("--asgard", required=True, help="the asgard release binary")
    parser.add_argument("--baseline", help="another asgard binary, run at the default tolerance")
    parser.add_argument(
        "--tolerance", type=float, action="append", default=None,
        help="tolerances for Asgard besides the default (repeatable; default 1e-7)",
    )
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    tolerances = args.tolerance or [1e-7]
    for count in args.counts:
        if count < 1:
            sys.exit(f"peer spin: error: a scene needs at least 1 body, got {count}")
        bodies = generate(count, args.seed)
        print(f"\nN = {count} free spinning bodies, {DURATION:g} s, {SAMPLES} samples", flush=True)
        try:
            outcomes = [run_asgard("Asgard default", args.asgard, bodies, None, workdir)]
            for tolerance in tolerances:
                outcomes.append(
                    run_asgard(f"Asgard {tolerance:g}", args.asgard, bodies, tolerance, workdir)
                )
            if args.baseline:
                outcomes.append(
                    run_asgard("baseline default", args.baseline, bodies, None, workdir)
                )
            outcomes.append(run_mujoco(bodies))
        except (RuntimeError, ValueError, OSError) as e:
            sys.exit(f"peer spin: error: N = {count}: {e}")
        reference = outcomes[-1]
        print(
            f"{'engine':<22} {'wall s':>8} {'x MuJoCo':>8} {'cpu s':>8} {'x MuJoCo':>8} "
            f"{'dE max':>9} {'dL max':>9}  steps"
        )
        for o in outcomes:
            print(
                f"{o.label:<22} {o.wall_s:>8.3f} {o.wall_s / reference.wall_s:>8.2f} "
                f"{o.cpu_s:>8.3f} {o.cpu_s / reference.cpu_s:>8.2f} "
                f"{o.energy:>9.1e} {o.momentum:>9.1e}  {o.steps}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
