"""Total momentum and kinetic energy of the balls over a run, and how far they drift from
their starting values."""

from dataclasses import dataclass

import numpy as np

from scene import MASS, RADIUS

BALL_INERTIA = 0.4 * MASS * RADIUS**2
"""Moment of inertia of a solid ball about any axis through its centre."""


@dataclass
class Samples:
    """The balls' velocities at sample times: `times` (S,), `velocities` and
    `angular_velocities` (S, N, 3), and `contact_energy` (S,), the elastic energy held in
    contacts at that moment (zero for an engine whose collisions are instantaneous)."""

    times: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray
    contact_energy: np.ndarray


@dataclass
class Drift:
    """Relative errors of total momentum and kinetic energy at the end of a run and their
    maximum over the samples.

    Momentum error is |P(t) - P(0)| / sum |m v(0)|: the total momentum of a random gas is
    near zero, so it is measured against the sum of the balls' momentum magnitudes. Energy
    error is |E(t) - E(0)| / E(0), with E the translational and rotational kinetic energy plus
    the energy held in contacts, so that a soft contact in progress does not count as an
    error."""

    momentum_end: float
    momentum_max: float
    energy_end: float
    energy_max: float


def momentum(samples):
    """Total linear momentum at each sample, (S, 3)."""
    return MASS * samples.velocities.sum(axis=1)


def energy(samples):
    """Total kinetic energy plus contact energy at each sample, (S,)."""
    translation = 0.5 * MASS * (samples.velocities**2).sum(axis=(1, 2))
    rotation = 0.5 * BALL_INERTIA * (samples.angular_velocities**2).sum(axis=(1, 2))
    return translation + rotation + samples.contact_energy


def drift(samples):
    """How far momentum and energy moved from the first sample's values."""
    p = momentum(samples)
    scale = MASS * np.linalg.norm(samples.velocities[0], axis=1).sum()
    p_error = np.linalg.norm(p - p[0], axis=1) / scale
    e = energy(samples)
    e_error = np.abs(e - e[0]) / e[0]
    return Drift(
        momentum_end=float(p_error[-1]),
        momentum_max=float(p_error.max()),
        energy_end=float(e_error[-1]),
        energy_max=float(e_error.max()),
    )
