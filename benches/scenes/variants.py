#!/usr/bin/env python3
"""Walls and piles of other sizes than benches/scenes/wall64.asg and pile200.asg, written to a
folder, to measure contact scenes of the same kinds as an independent measurer would build
(issue 24, docs/BENCHMARKS.md):

    python3 benches/scenes/variants.py OUT_DIR

Walls (bricks 0.3 x 0.15 x 0.15 m, 0.8 kg, friction 0.6, a millimetre apart, 4 s): w10x6,
w6x10, w12x5, w7x7 (COURSES x COLUMNS, running bond, a ball of 20-40 kg at 8-10 m/s), and
stand8, 8 x 8 stacked without bond or ball (3 s). Piles (balls of radius 0.1 m dropped in
layers of 25 into the open box of pile200.asg, each position jittered by up to 2 cm from a
fixed seed, 1 s): p150, p200a, p200b (restitution 0.3) and p250 (restitution 0.4).
"""
import os
import random
import sys


def wall(courses, columns, mass, speed, ball=True, finish=4, bond=True):
    lines = [
        f"simulator finish {finish} step 0.01",
        "shape_set brick desc {box {0.3 0.15 0.15}}",
        "shape_set wrecker desc {sphere 0.25}",
        "shape_set floor desc {box {10 0.2 4}}",
        "body ground shape floor init_pos {0 -0.1 0} fixed 1 restitution 0.3 friction 0.6",
    ]
    x0 = -columns * 0.301 / 2
    for c in range(courses):
        shift = (c % 2) * 0.15 if bond else 0
        for k in range(columns):
            x, y = k * 0.301 + shift + x0, c * 0.151 + 0.0755
            lines.append(
                f"body b_{c}_{k} shape brick mass 0.8 restitution 0.1 friction 0.6"
                f" init_pos {{{x:.4f} {y:.4f} 0}}"
            )
            lines.append(f"force body b_{c}_{k} gravity {{0 -9.81 0}}")
    if ball:
        height = min(courses * 0.151 / 2, 0.8)
        lines.append(
            f"body ball shape wrecker mass {mass} restitution 0.2"
            f" init_pos {{0 {height:.3f} 3}} init_dpos {{0 0 -{speed}}}"
        )
        lines.append("force body ball gravity {0 -9.81 0}")
    return lines


def the_box():
    """The shapes and the open box of pile200.asg, read from it."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "pile200.asg")) as f:
        lines = [line.rstrip("\n") for line in f]
    return [line for line in lines if line.startswith(("shape_set ", "body "))]


def pile(count, dx, dz, restitution, seed):
    rnd = random.Random(seed)
    lines = ["simulator finish 1 step 0.05"] + the_box()
    n = 0
    layer = 0
    while n < count:
        for i in range(5):
            for j in range(5):
                if n == count:
                    break
                x = -0.6 + i * 0.3 + dx * layer + rnd.uniform(-0.02, 0.02)
                z = -0.6 + j * 0.3 - dz * layer + rnd.uniform(-0.02, 0.02)
                y = 0.3 + layer * 0.25
                lines.append(
                    f"body b{n} shape ball init_pos {{{x:.4f} {y:.4f} {z:.4f}}}"
                    f" restitution {restitution}"
                )
                lines.append(f"force body b{n} gravity {{0 -9.81 0}}")
                n += 1
        layer += 1
    return lines


SCENES = {
    "w10x6": lambda: wall(10, 6, 30, 9),
    "w6x10": lambda: wall(6, 10, 30, 9),
    "w12x5": lambda: wall(12, 5, 40, 10),
    "w7x7": lambda: wall(7, 7, 20, 8),
    "stand8": lambda: wall(8, 8, 0, 0, ball=False, finish=3, bond=False),
    "p150": lambda: pile(150, 0.013, 0.01, 0.3, 3),
    "p200a": lambda: pile(200, 0.01, 0.013, 0.3, 1),
    "p200b": lambda: pile(200, 0.02, 0.007, 0.3, 2),
    "p250": lambda: pile(250, 0.008, 0.015, 0.4, 4),
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in SCENES.items():
        with open(os.path.join(out, name + ".asg"), "w") as f:
            f.write("\n".join(make()) + "\n")


if __name__ == "__main__":
    main()
