#!/usr/bin/env python3
"""Steps and processor time per bundled example under two asgard binaries, interleaved in one
run: `python3 benches/example_steps.py BASELINE/asgard CANDIDATE/asgard` (from the repository
root). Each example runs `asgard simulate examples/NAME.asg --stats` three times per binary;
the steps come from the `--stats` line, the time is the best of the three runs' user + system
time, and the last columns are the candidate's ratios to the baseline."""
import glob
import os
import re
import resource
import subprocess
import sys

RUNS = 3


def run(binary, path):
    """The steps (and implicit steps, if reported: "trapezoidal" in older builds) and the best
    processor time."""
    best, stats = None, ""
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [binary, "simulate", path, "--stats", "-o", "/dev/null", "--force"],
            capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best = cpu if best is None else min(best, cpu)
        stats = done.stderr
    found = re.search(r"(\d+) steps(?: \((\d+) (?:implicit|trapezoidal)\))?", stats)
    steps = int(found.group(1)) if found else 0
    implicit = found.group(2) if found and found.group(2) else "-"
    return steps, implicit, best


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    baseline, candidate = sys.argv[1:]
    print("| example | baseline steps | s | candidate steps (implicit) | s | steps × | time × |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob("examples/*.asg")):
        name = os.path.basename(path)[:-4]
        b_steps, _, b_time = run(baseline, path)
        c_steps, c_implicit, c_time = run(candidate, path)
        steps = f"{c_steps / b_steps:.2f}" if b_steps else "-"
        time = f"{c_time / b_time:.2f}" if b_time else "-"
        print(f"| {name} | {b_steps} | {b_time:.2f} | {c_steps} ({c_implicit}) | {c_time:.2f}"
              f" | {steps} | {time} |")


if __name__ == "__main__":
    main()
