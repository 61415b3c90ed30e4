"""CPU per check over the bundled benchmark: the baseline checked against itself.

Per problem, ``--checks`` checks of the -O3 baseline against itself (``evaluate``, the
default ``CheckConfig``: correctness pass, drawn inputs, the reference's runs on them,
timing) and their CPU seconds (``Verdict.cpu_seconds_spent``), whether it was timed, and
how many tests; then the median and mean over every check. Run it under two checkouts to
compare (the API it uses is old): ``PYTHONPATH=/path/to/old/src python
benchmarks/check_cpu.py`` against ``python benchmarks/check_cpu.py``, side by side in
one shell, taking turns; ``--every K`` takes every K-th bundled problem by name.

usage: python benchmarks/check_cpu.py [--checks 1] [--every 3] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

import supercoder
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import cpu_model
from supercoder.verify.evaluate import CheckConfig, evaluate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*")
    ap.add_argument("--checks", type=int, default=1)
    ap.add_argument("--every", type=int, default=3)
    args = ap.parse_args()
    names = (
        args.problems
        or sorted(p.name for p in BUNDLED_ROOT.iterdir() if (p / "problem.json").is_file())[
            :: args.every
        ]
    )
    print(f"{cpu_model()} | {supercoder.__file__} | {len(names)} problems x {args.checks}")
    cpus, timed, start = [], 0, time.time()
    for name in names:
        problem = load_problem(BUNDLED_ROOT / name)
        evaluate(problem, baseline_asm(problem), CheckConfig())  # warm: caches, probes
        for _ in range(args.checks):
            v = evaluate(problem, baseline_asm(problem), CheckConfig())
            cpus.append(v.cpu_seconds_spent)
            timed += v.speedup is not None
            n = v.speedup.tests_timed if v.speedup else 0
            print(f"{name:<24} cpu {v.cpu_seconds_spent:6.2f}s  timed tests {n}", flush=True)
    print(
        f"CPU per check: median {statistics.median(cpus):.3f}s mean {statistics.mean(cpus):.3f}s"
        f" over {len(cpus)} checks; timed {timed}/{len(cpus)}; {time.time() - start:.0f}s wall"
    )


if __name__ == "__main__":
    main()
