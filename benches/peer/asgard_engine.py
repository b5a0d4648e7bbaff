"""Runs the scene with `asgard simulate` and reads the motion back."""

import json
import resource
import subprocess
from pathlib import Path

import numpy as np

from conservation import Samples
from outcome import Outcome
from scene import asgard_scene


def run(binary, balls, duration, samples, workdir):
    """Simulates `balls` for `duration` seconds with the Asgard binary, sampling the motion
    `samples` times. The wall time is the one Asgard reports in its stats: the solver's run
    only (collision detection, impulses, back-up and tracks), without starting the process,
    evaluating the scene text, building the model, sampling or writing the JSON. The
    processor time is the whole process's, all of those included, so it is an upper bound."""
    workdir = Path(workdir)
    scene_path = workdir / f"balls{balls.count}.asg"
    motion_path = workdir / f"balls{balls.count}.asgard.json"
    scene_path.write_text(asgard_scene(balls, duration))
    command = [
        str(binary),
        "simulate",
        str(scene_path),
        "--sample",
        repr(duration / samples),
        "-o",
        str(motion_path),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    finished = subprocess.run(command, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if finished.returncode != 0:
        raise RuntimeError(
            f"asgard simulate failed on {scene_path} (status {finished.returncode}):\n"
            f"{finished.stderr}"
        )
    with motion_path.open() as f:
        motion = json.load(f)
    bodies = [motion["bodies"][f"b{i}"] for i in range(balls.count)]
    counts = {len(b["t"]) for b in bodies}
    if counts != {samples + 1}:
        raise RuntimeError(
            f"{motion_path}: expected {samples + 1} samples per ball, found {sorted(counts)}"
        )
    times = np.array(bodies[0]["t"])
    return Outcome(
        label="Asgard",
        setting="Asgard: event-driven partitioned solver, instantaneous elastic impulses",
        wall_s=motion["stats"]["wall_s"],
        cpu_s=(after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        samples=Samples(
            times=times,
            velocities=np.array([b["vel"] for b in bodies]).transpose(1, 0, 2),
            angular_velocities=np.array([b["angvel"] for b in bodies]).transpose(1, 0, 2),
            contact_energy=np.zeros(len(times)),
        ),
        collisions=len(motion["collisions"]),
    )
