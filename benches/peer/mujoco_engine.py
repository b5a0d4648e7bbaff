"""Runs the scene in MuJoCo with contacts set up to be as elastic as MuJoCo allows."""

import math
import time
from dataclasses import dataclass

import mujoco
import numpy as np

from conservation import Samples
from outcome import Outcome
from scene import mujoco_model


@dataclass(frozen=True)
class Contact:
    """MuJoCo's solver settings for the balls' contacts.

    `solref` "-K -B" is MuJoCo's direct form: a contact acts as a spring of stiffness K
    (acceleration per metre of penetration, so independent of mass) with damping B; B = 0
    makes it undamped, i.e. elastic. A contact lasts about pi / sqrt(K) seconds, and the
    energy it gains or loses falls with the number of steps it spans. `solimp` with
    dmin = dmax near 1 makes the solver follow that spring almost exactly at any penetration
    depth. Friction is off (condim 1)."""

    name: str
    timestep: float
    stiffness: float
    integrator: str = "Euler"
    solimp: str = "0.99 0.99 0.001"

    @property
    def solref(self):
        return f"{-self.stiffness!r} -0"

    def describe(self):
        contact_s = math.pi / math.sqrt(self.stiffness)
        return (
            f"{self.integrator}, timestep {self.timestep:g} s, solref {self.solref}, "
            f"solimp {self.solimp}: a contact lasts {contact_s * 1e3:.1f} ms = "
            f"{contact_s / self.timestep:.0f} steps"
        )


ACCURATE = Contact(name="accurate", timestep=1e-4, stiffness=1e5)
"""Contacts spanning about 100 steps: an energy error of order 1e-4 per contact (measured on
head-on pairs), penetration about 1 % of the radius at 2 m/s."""

FAST = Contact(name="fast", timestep=1e-3, stiffness=1e6)
"""A millisecond timestep (MuJoCo's default is two) with contacts as stiff as a few steps
per contact allow (K * dt^2 = 1, about 3 steps): close to an impulse."""


def run(balls, duration, samples, contact):
    """Simulates `balls` for `duration` seconds and samples the state `samples` times.

    The wall and processor times cover the `mj_step` calls only (collision detection,
    constraint solve, integration), one call per step so that contact onsets (pairs in contact
    at a step that were not at the step before) can be counted between them; compiling the
    model, counting and sampling are not timed. A Python call costs about a microsecond,
    which the timed calls include."""
    model = mujoco.MjModel.from_xml_string(mujoco_model(balls, contact))
    steps = round(duration / contact.timestep)
    if steps % samples:
        raise ValueError(
            f"{samples} samples do not divide the {steps} steps of {contact.timestep} s "
            f"in {duration} s"
        )
    chunk = steps // samples
    data = mujoco.MjData(model)
    qvel = data.qvel.reshape(balls.count, 6)
    qvel[:, :3] = balls.velocities
    qvel[:, 3:] = 0.0
    mujoco.mj_forward(model, data)
    states = [_state(data)]
    wall = cpu = 0.0
    onsets = 0
    touching = np.empty(0, dtype=np.int64)
    for step in range(1, steps + 1):
        started, started_cpu = time.perf_counter(), time.process_time()
        mujoco.mj_step(model, data)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        now = _touching(data, balls.count)
        onsets += len(np.setdiff1d(now, touching, assume_unique=True))
        touching = now
        if step % chunk == 0:
            # The contacts and forces mj_step leaves are those of the step's start; bring
            # them up to the new positions (mj_forward changes nothing that the next step
            # does not recompute).
            mujoco.mj_forward(model, data)
            states.append(_state(data))
    _check_no_overflow(data)
    return Outcome(
        label=f"MuJoCo {contact.name}",
        setting=f"MuJoCo {contact.name}: {contact.describe()}",
        wall_s=wall,
        cpu_s=cpu,
        samples=Samples(
            times=np.arange(samples + 1) * (chunk * contact.timestep),
            velocities=np.array([s[0] for s in states]),
            angular_velocities=np.array([s[1] for s in states]),
            contact_energy=np.array([s[2] for s in states]),
        ),
        collisions=onsets,
    )


def _check_no_overflow(data):
    """MuJoCo drops contacts when its arena is full and only warns; results without them
    would be wrong."""
    for warning in (mujoco.mjtWarning.mjWARN_CONTACTFULL, mujoco.mjtWarning.mjWARN_CNSTRFULL):
        if data.warning[warning].number:
            raise RuntimeError(
                f"MuJoCo ran out of contact memory ({warning.name}, {data.narena} bytes): "
                f"raise MUJOCO_MEMORY_MB in scene.py"
            )


def _state(data):
    """Linear and angular velocity of every ball, (N, 3) each (a free joint's qvel is the
    linear velocity in world axes, then the angular velocity in body axes), and the energy
    held in the contact springs: half force times penetration for each contact."""
    qvel = data.qvel.reshape(-1, 6)
    stored = 0.0
    if data.ncon:
        force = data.efc_force[data.contact.efc_address]
        penetration = np.maximum(-data.contact.dist, 0.0)
        stored = 0.5 * float(np.dot(force, penetration))
    return qvel[:, :3].copy(), qvel[:, 3:].copy(), stored


def _touching(data, count):
    """The pairs of balls in contact, each as one integer, sorted."""
    geoms = data.contact.geom
    low = geoms.min(axis=1).astype(np.int64)
    return np.unique(low * count + geoms.max(axis=1))
