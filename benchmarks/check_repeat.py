"""Does one check's interval hold at the next check? Fresh checks of the same answer.

For each problem an answer with a real speedup or slowdown (gcc -O1 or -O2 of the
problem's source, against the -O3 baseline) is checked ``--checks`` times, each check
from scratch (a new sandbox, a new CPU slot, new drawn inputs, new binary copies). An
honest interval of the speedup over the problem's input distribution should cover the
next check's estimate about 95% of the time (two 95% intervals of the same quantity
are disjoint far less often). Printed per answer: every check's estimate and CI; in
total, how often a check's CI misses another check's estimate, and how often two
checks' intervals are disjoint.

usage: python benchmarks/check_repeat.py [--checks 5] [--flags -O1 -O2] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import itertools
import time

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import compile_baseline
from supercoder.toolchain.gcc import cpu_model
from supercoder.verify.evaluate import CheckConfig, evaluate

DEFAULT = ["dp_lcs", "num_sieve_primes", "graph_dijkstra", "str_zfunc", "sort_merge_inversions"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=DEFAULT)
    ap.add_argument("--checks", type=int, default=5)
    ap.add_argument("--flags", nargs="+", default=["-O1"])
    args = ap.parse_args()
    print(f"{cpu_model()} | {len(args.problems)} problems x {args.flags} x {args.checks} checks")
    start = time.time()
    misses = pairs = disjoint = 0
    for name in args.problems:
        problem = load_problem(BUNDLED_ROOT / name)
        for flag in args.flags:
            asm = compile_baseline(problem.source, (*problem.cflags, flag))
            cis = []
            for _ in range(args.checks):
                s = evaluate(problem, asm, CheckConfig()).speedup
                if s is not None:
                    cis.append((s.value, s.low, s.high))
            shown = "  ".join(f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in cis)
            print(f"{name} {flag}: {shown}", flush=True)
            for a, b in itertools.permutations(cis, 2):
                misses += not (a[1] <= b[0] <= a[2])
            for a, b in itertools.combinations(cis, 2):
                pairs += 1
                disjoint += a[2] < b[1] or b[2] < a[1]
    print(f"total ({time.time() - start:.0f}s wall)")
    print(f"  a check's CI misses another check's estimate: {misses}/{2 * pairs}")
    print(f"  disjoint pairs of intervals: {disjoint}/{pairs}")


if __name__ == "__main__":
    main()
