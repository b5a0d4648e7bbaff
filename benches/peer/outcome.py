"""What one engine's run of the scene produced."""

from dataclasses import dataclass

from conservation import Samples


@dataclass
class Outcome:
    """`label` names the engine (and its setting) in the table, `setting` describes that
    setting in full; `wall_s` is the wall time of the simulation proper and `cpu_s` the
    processor time spent on it (see each engine for what they include: processor time is
    less disturbed by other work on the machine); `collisions` counts the ball-ball contacts
    that began."""

    label: str
    setting: str
    wall_s: float
    cpu_s: float
    samples: Samples
    collisions: int
