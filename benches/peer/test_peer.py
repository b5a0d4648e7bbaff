"""Checks of the benchmark's own parts: `target/peer-venv/bin/python -m unittest discover
benches/peer` (after `benches/peer/run` has created the environment)."""

import tempfile
import unittest
from pathlib import Path

import mujoco
import numpy as np

import asgard_engine
import mujoco_engine
import scene
import spin
from conservation import Samples, drift

ASGARD = Path(__file__).resolve().parents[2] / "target" / "release" / "asgard"


class SceneTest(unittest.TestCase):
    def test_balls_do_not_overlap_and_fill_the_packing(self):
        balls = scene.generate(200, seed=7)
        gaps = np.linalg.norm(balls.positions[:, None] - balls.positions[None], axis=2)
        np.fill_diagonal(gaps, np.inf)
        self.assertGreaterEqual(gaps.min(), 2 * scene.RADIUS)
        self.assertTrue((np.linalg.norm(balls.positions, axis=1) <= balls.region_radius).all())
        filled = 200 * 4 / 3 * np.pi * scene.RADIUS**3 / (4 / 3 * np.pi * balls.region_radius**3)
        self.assertAlmostEqual(filled, scene.PACKING)

    def test_the_same_seed_gives_the_same_scene(self):
        a, b = scene.generate(30, seed=3), scene.generate(30, seed=3)
        np.testing.assert_array_equal(a.positions, b.positions)
        np.testing.assert_array_equal(a.velocities, b.velocities)
        self.assertFalse(np.array_equal(a.velocities, scene.generate(30, seed=4).velocities))

    def test_the_flow_points_inwards(self):
        balls = scene.generate(500, seed=1)
        radial = (balls.positions * balls.velocities).sum(axis=1)
        self.assertLess(radial.mean(), 0)

    def test_asgard_text_holds_every_ball_exactly(self):
        balls = scene.generate(5, seed=2)
        text = scene.asgard_scene(balls, 3.0)
        self.assertIn("simulator finish 3.0 step 0.03", text)
        for i, (p, v) in enumerate(zip(balls.positions, balls.velocities)):
            line = next(line for line in text.splitlines() if line.startswith(f"body b{i} "))
            words = line.replace("{", " ").replace("}", " ").split()
            at = words.index("init_pos")
            self.assertEqual([float(w) for w in words[at + 1 : at + 4]], list(p))
            at = words.index("init_dpos")
            self.assertEqual([float(w) for w in words[at + 1 : at + 4]], list(v))

    def test_mujoco_model_has_free_frictionless_balls_without_gravity(self):
        balls = scene.generate(4, seed=5)
        model = mujoco.MjModel.from_xml_string(
            scene.mujoco_model(balls, mujoco_engine.ACCURATE)
        )
        self.assertEqual(model.njnt, 4)
        self.assertTrue((model.jnt_type == mujoco.mjtJoint.mjJNT_FREE).all())
        self.assertTrue((model.geom_condim == 1).all())
        np.testing.assert_array_equal(model.opt.gravity, 0)
        np.testing.assert_allclose(model.body_mass[1:], scene.MASS)
        np.testing.assert_allclose(model.body_pos[1:], balls.positions)
        np.testing.assert_allclose(model.geom_solref, [[-1e5, 0]] * 4)


def samples(velocities, contact_energy=None):
    velocities = np.asarray(velocities, dtype=float)
    return Samples(
        times=np.arange(len(velocities)),
        velocities=velocities,
        angular_velocities=np.zeros_like(velocities),
        contact_energy=np.zeros(len(velocities)) if contact_energy is None else contact_energy,
    )


class DriftTest(unittest.TestCase):
    def test_an_exchange_of_velocities_conserves_everything(self):
        before = [[1, 0, 0], [-1, 0, 0]]
        after = [[-1, 0, 0], [1, 0, 0]]
        d = drift(samples([before, after]))
        self.assertEqual((d.momentum_max, d.energy_max), (0, 0))

    def test_errors_are_relative_to_the_start(self):
        # Momentum scale: |m v| summed = 2; energy 1. One ball loses a tenth of its speed.
        d = drift(samples([[[1, 0, 0], [-1, 0, 0]], [[0.9, 0, 0], [-1, 0, 0]]]))
        self.assertAlmostEqual(d.momentum_end, 0.1 / 2)
        self.assertAlmostEqual(d.energy_end, (1 - 0.5 * (0.81 + 1)) / 1)

    def test_the_maximum_is_over_the_run_and_contact_energy_counts(self):
        v = [[[1, 0, 0], [-1, 0, 0]], [[0, 0, 0], [0, 0, 0]], [[-1, 0, 0], [1, 0, 0]]]
        held = drift(samples(v, contact_energy=np.array([0.0, 1.0, 0.0])))
        self.assertEqual(held.energy_max, 0)
        lost = drift(samples(v))
        self.assertEqual((lost.energy_end, lost.energy_max), (0, 1))


def head_on_pair():
    """Two balls 1 m apart (surface to surface) closing at 2 m/s: they meet at 0.5 s."""
    return scene.Balls(
        positions=np.array([[-1.0, 0, 0], [1.0, 0, 0]]),
        velocities=np.array([[1.0, 0, 0], [-1.0, 0, 0]]),
        region_radius=1.0,
    )


class MujocoTest(unittest.TestCase):
    def test_a_head_on_pair_exchanges_velocities_and_one_collision_is_counted(self):
        outcome = mujoco_engine.run(head_on_pair(), 2.0, 10, mujoco_engine.ACCURATE)
        self.assertEqual(outcome.collisions, 1)
        np.testing.assert_allclose(
            outcome.samples.velocities[-1], [[-1, 0, 0], [1, 0, 0]], atol=1e-3
        )
        self.assertLess(drift(outcome.samples).energy_max, 1e-3)


class SpinTest(unittest.TestCase):
    def test_a_steady_spin_about_a_principal_axis_has_no_error(self):
        moments = np.array([[1.0, 2.0, 3.0]])
        angles = np.linspace(0.0, 3.0, 7)
        quats = np.stack([np.cos(angles / 2), 0 * angles, np.sin(angles / 2), 0 * angles], 1)
        rotations = spin.quaternion_matrices(quats[:, None, :])
        spins = np.tile([0.0, 1.0, 0.0], (7, 1, 1))
        self.assertEqual(spin.errors(moments, rotations, spins), (0.0, 0.0))
        spins[3, 0, 1] = 1.001
        energy, momentum = spin.errors(moments, rotations, spins)
        self.assertAlmostEqual(energy, 1.001**2 - 1)
        self.assertAlmostEqual(momentum, 0.001)

    def test_both_engines_get_the_same_bodies(self):
        bodies = spin.generate(3, seed=1)
        model = mujoco.MjModel.from_xml_string(spin.mujoco_xml(bodies))
        self.assertEqual(model.opt.integrator, mujoco.mjtIntegrator.mjINT_RK4)
        np.testing.assert_allclose(model.body_inertia[1:], bodies.moments)
        text = spin.asgard_scene(bodies, None)
        self.assertIn("collisions 0", text)
        self.assertEqual(text.count("inertia {"), 3)


@unittest.skipUnless(ASGARD.exists(), f"{ASGARD} is not built (benches/peer/run builds it)")
class AsgardTest(unittest.TestCase):
    def test_a_head_on_pair_exchanges_velocities_exactly(self):
        with tempfile.TemporaryDirectory() as workdir:
            outcome = asgard_engine.run(ASGARD, head_on_pair(), 2.0, 10, workdir)
        self.assertEqual(outcome.collisions, 1)
        self.assertEqual(len(outcome.samples.times), 11)
        np.testing.assert_allclose(
            outcome.samples.velocities[-1], [[-1, 0, 0], [1, 0, 0]], atol=1e-12
        )
        self.assertLess(drift(outcome.samples).energy_max, 1e-12)


if __name__ == "__main__":
    unittest.main()
