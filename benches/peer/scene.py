"""The benchmark scene: N equal elastic balls in free space, and its text for each engine.

The balls start at random, non-overlapping positions inside a sphere and move with random
velocities plus a flow towards the centre, so that the cloud first contracts (every ball meets
others, even for small N) and then spreads out again. There is no gravity, no wall and no
friction: total momentum and kinetic energy are conserved exactly in theory.
"""

from dataclasses import dataclass

import numpy as np

RADIUS = 0.5
"""Ball radius, metres (diameter 1)."""
MASS = 1.0
"""Ball mass, kilograms."""
PACKING = 0.3
"""Fraction of the starting sphere's volume filled by balls."""
INFLOW = 1.0
"""Speed towards the centre at the edge of the starting sphere, m/s (proportional to the
distance from the centre inside it)."""
THERMAL = 0.25
"""Standard deviation of each random velocity component, m/s."""


@dataclass
class Balls:
    """Starting positions and velocities of the balls, one row per ball."""

    positions: np.ndarray
    velocities: np.ndarray
    region_radius: float

    @property
    def count(self):
        return len(self.positions)

    def crossing_time(self):
        """Time for the inflow to carry a ball from the edge to the centre, seconds."""
        return self.region_radius / INFLOW


def generate(count, seed):
    """`count` balls placed by random sequential addition (rejecting overlaps) in a sphere
    sized for `PACKING`, with seeded random velocities."""
    rng = np.random.default_rng(seed)
    ball_volume = 4.0 / 3.0 * np.pi * RADIUS**3
    region_radius = (count * ball_volume / PACKING * 3.0 / (4.0 * np.pi)) ** (1.0 / 3.0)
    min_distance = 2.0 * RADIUS * 1.001
    positions = np.empty((count, 3))
    placed = 0
    attempts = 0
    while placed < count:
        attempts += 1
        if attempts > 1000 * count:
            raise RuntimeError(f"cannot place {count} balls at packing {PACKING}")
        candidate = rng.uniform(-1.0, 1.0, 3) * region_radius
        if np.linalg.norm(candidate) > region_radius:
            continue
        gaps = np.linalg.norm(positions[:placed] - candidate, axis=1)
        if placed and gaps.min() < min_distance:
            continue
        positions[placed] = candidate
        placed += 1
    velocities = -positions / region_radius * INFLOW + rng.normal(0.0, THERMAL, (count, 3))
    return Balls(positions, velocities, region_radius)


MUJOCO_MEMORY_MB = 64
"""MuJoCo's arena for contacts and constraints. Its default grows with the model (1.7 GB for
a thousand balls); the densest run here uses 4 MB, and `mujoco_engine.run` fails if it ever
overflows."""


def vector(v):
    """A vector as both engines' texts write it: its components, space-separated."""
    return " ".join(repr(float(x)) for x in v)


def asgard_scene(balls, duration):
    """The scene as Asgard scene text, simulated from 0 to `duration` seconds."""
    lines = [
        f"# {balls.count} elastic balls in free space (benches/peer).",
        f"simulator finish {duration!r} step {duration / 100!r}",
        f"shape_set ball desc {{sphere {RADIUS!r}}}",
    ]
    for i, (p, v) in enumerate(zip(balls.positions, balls.velocities)):
        lines.append(
            f"body b{i} shape ball mass {MASS!r} restitution 1 friction 0 "
            f"init_pos {{{vector(p)}}} init_dpos {{{vector(v)}}}"
        )
    return "\n".join(lines) + "\n"


def mujoco_model(balls, contact):
    """The scene as MuJoCo MJCF: one free-jointed sphere per ball, no gravity, frictionless
    contacts with `contact`'s parameters. The starting velocities are set on the data, not in
    the model (MJCF has no initial velocity)."""
    bodies = "\n".join(
        f'    <body name="b{i}" pos="{vector(p)}"><freejoint/>'
        f'<geom type="sphere" size="{RADIUS!r}" mass="{MASS!r}"/></body>'
        for i, p in enumerate(balls.positions)
    )
    return f"""<mujoco model="balls">
  <option timestep="{contact.timestep!r}" gravity="0 0 0" integrator="{contact.integrator}"/>
  <default>
    <geom condim="1" friction="0 0 0" solref="{contact.solref}" solimp="{contact.solimp}"
          margin="0" gap="0"/>
  </default>
  <size memory="{MUJOCO_MEMORY_MB}M"/>
  <worldbody>
{bodies}
  </worldbody>
</mujoco>
"""
