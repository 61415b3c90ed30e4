"""`supercoder check P c1 ... c7` against seven single checks, side by side, in one run.

For each problem, seven programs (from ``reward_throughput.completions``: a fast build
and its duplicate, -O2, -Os, an exact copy of the baseline, the copy plus one nop, -O0)
are checked through the real command line twice: once in one call (one grouped timing
session) and once one call per program. It prints each program's status and speedup
[CI] both ways, whether the group's speedup lies inside the single check's CI, and the
wall time of the one call against the seven.

Two independent estimates of the same speedup, each with a 95% CI of the same width,
fall inside each other's interval about 83% of the time (|N(0, 2)| < 1.96), so a miss in
seven is what honest intervals give; a miss by much, or often, is not.

usage: python benchmarks/group_check.py [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.gcc import cpu_model

sys.path.insert(0, str(Path(__file__).parent))
from reward_throughput import completions  # noqa: E402

DEFAULT = ["graph_dijkstra", "str_zfunc", "num_sieve_primes"]
KINDS = ["fast", "O2", "Os", "copy", "copy_nop", "O0", "fast_dup"]
EXE = str(Path(sys.executable).with_name("supercoder"))


def check(folder: Path, files: list[str]) -> tuple[list[dict], float]:
    start = time.perf_counter()
    out = subprocess.run(
        [EXE, "check", str(folder), *files, "--json"], capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    got = json.loads(out.stdout)
    return (got if isinstance(got, list) else [got]), wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=DEFAULT)
    args = ap.parse_args()
    print(f"{cpu_model()} | {len(args.problems)} problems x {len(KINDS)} programs")
    totals = [0.0, 0.0, 0, 0, 0]  # group wall, singles wall, same status, inside, programs
    for name in args.problems:
        folder = BUNDLED_ROOT / name
        programs = completions(load_problem(folder))
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for kind in KINDS:
                path = Path(tmp) / f"{kind}.s"
                path.write_text(programs[kind])
                files.append(str(path))
            group, group_wall = check(folder, files)
            singles, singles_wall = [], 0.0
            for f in files:
                (one,), wall = check(folder, [f])
                singles.append(one)
                singles_wall += wall
        same = inside = 0
        print(f"{name}:")
        for kind, g, s in zip(KINDS, group, singles, strict=True):
            lo, hi = s["speedup_ci"]
            hit = lo <= g["speedup"] <= hi
            same += g["status"] == s["status"]
            inside += hit
            print(
                f"  {kind:<9} group {g['status']} {g['speedup']:.3f} "
                f"[{g['speedup_ci'][0]:.3f}, {g['speedup_ci'][1]:.3f}]  alone {s['status']} "
                f"{s['speedup']:.3f} [{lo:.3f}, {hi:.3f}]  {'inside' if hit else 'OUTSIDE'}"
            )
        print(
            f"  one call {group_wall:.1f}s, seven calls {singles_wall:.1f}s "
            f"({singles_wall / group_wall:.1f}x); same status {same}/7; inside {inside}/7"
        )
        for i, x in enumerate((group_wall, singles_wall, same, inside, len(KINDS))):
            totals[i] += x
    g, s, same, inside, n = totals
    print(
        f"total: one call per problem {g:.1f}s, one per program {s:.1f}s ({s / g:.1f}x); "
        f"same status {same}/{n}; group speedup inside the single check's CI {inside}/{n}"
    )


if __name__ == "__main__":
    main()
