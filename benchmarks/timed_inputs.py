"""Timed inputs drawn afresh every check against the earlier inputs made once: cost and honesty.

For each problem the baseline is checked against itself (the truth is 1.00) under both
schemes, taking turns to go first: ``drawn`` (as shipped: 3 inputs drawn with a new
secret seed every check, the interval one of the speedup over the input distribution)
and ``cached`` (``SUPERCODER_UNSEEN=cached``: hidden tests topped up with mutations made
once and reused, the interval over those fixed tests). Per scheme: the CPU seconds of a
check (``Verdict.cpu_seconds_spent``: the correctness pass, the timing and, for drawn
inputs, the reference's runs on them), how often a check's 95% CI excludes 1.0 (an
identical program: at most 1 in 10 is the target), how often two checks of the same
program give intervals that do not overlap, and the median CI half-width. Real-style
programs from ``timed_share.py`` (``--real``) add problems that have no hidden tests.

usage: python benchmarks/timed_inputs.py [--checks 4] [--real] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import cpu_model
from supercoder.types import Problem, Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate

DEFAULT = ["dp_lcs", "num_sieve_primes", "graph_dijkstra", "str_zfunc", "num_modpow"]
REAL = ["pair_lcg", "graph_floyd", "array_inversions", "string_pal"]
SCHEMES = ("cached", "drawn")


def check(problem: Problem, scheme: str) -> Verdict:
    if scheme == "cached":
        os.environ["SUPERCODER_UNSEEN"] = "cached"
    try:
        return evaluate(problem, baseline_asm(problem), CheckConfig())
    finally:
        os.environ.pop("SUPERCODER_UNSEEN", None)


def real_problems(names: list[str]) -> list[Problem]:
    import sys

    from supercoder.problems.init import InitConfig, create_problem

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from timed_share import PROGRAMS  # the real-style programs, beside this script

    root = Path(tempfile.mkdtemp(prefix="sc-timed-"))
    os.chmod(root, 0o755)
    out = []
    for name in names:
        source, inputs = PROGRAMS[name]
        work = root / name
        (work / "in").mkdir(parents=True)
        (work / "prog.c").write_text(source)
        for i, text in enumerate(inputs):
            (work / "in" / f"{i}.in").write_text(text)
        report = create_problem(work / "prog.c", work / "in", root / "p" / name, InitConfig())
        out.append(load_problem(report.folder))
    return out


class Tally:
    def __init__(self) -> None:
        self.cpu: list[float] = []
        self.excl: int = 0
        self.cis: list[tuple[float, float]] = []
        self.widths: list[float] = []
        self.disjoint = 0
        self.pairs = 0

    def add_problem(self, verdicts: list[Verdict]) -> None:
        cis = []
        for v in verdicts:
            s = v.speedup
            if s is None:
                continue
            self.cpu.append(v.cpu_seconds_spent)
            self.excl += not (s.low <= 1.0 <= s.high)
            self.widths.append((math.log(s.high) - math.log(s.low)) / 2)
            cis.append((s.low, s.high))
        for a, b in itertools.combinations(cis, 2):
            self.pairs += 1
            self.disjoint += a[1] < b[0] or b[1] < a[0]
        self.cis += cis

    def line(self) -> str:
        n = len(self.cpu)
        if not n:
            return "no timed check"
        return (
            f"CPU/check {statistics.median(self.cpu):6.3f} s (mean {statistics.mean(self.cpu):6.3f})"
            f"  CI excludes 1.0: {self.excl}/{n}  disjoint pairs: {self.disjoint}/{self.pairs}"
            f"  CI +-{statistics.median(self.widths) * 100:4.2f}%"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=DEFAULT)
    ap.add_argument("--checks", type=int, default=4)
    ap.add_argument("--real", action="store_true", help="add real-style programs")
    args = ap.parse_args()
    problems = [load_problem(BUNDLED_ROOT / n) for n in args.problems]
    if args.real:
        problems += real_problems(REAL)
    print(f"{cpu_model()} | {len(problems)} problems x {args.checks} self-vs-self checks")
    start = time.time()
    totals = {s: Tally() for s in SCHEMES}
    for problem in problems:
        check(problem, "cached")  # caches (baseline, inputs made once, validation) warm
        check(problem, "drawn")
        runs: dict[str, list[Verdict]] = {s: [] for s in SCHEMES}
        for i in range(args.checks):
            for scheme in SCHEMES[i % 2 :] + SCHEMES[: i % 2]:
                runs[scheme].append(check(problem, scheme))
        print(problem.name, flush=True)
        for scheme in SCHEMES:
            mine = Tally()
            mine.add_problem(runs[scheme])
            totals[scheme].add_problem(runs[scheme])
            print(f"  {scheme:<7} {mine.line()}", flush=True)
    print(f"total ({time.time() - start:.0f}s wall)")
    for scheme in SCHEMES:
        print(f"  {scheme:<7} {totals[scheme].line()}")
    old, new = (statistics.mean(totals[s].cpu) for s in SCHEMES)
    print(f"  CPU per check, drawn / cached: {new / old:.2f}x (mean over checks)")


if __name__ == "__main__":
    main()
