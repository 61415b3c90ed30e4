"""What one check costs, in runs of its own tests, and how wide its interval is.

For each problem the baseline is checked against itself (the truth is 1.00) with two
meters side by side, taking turns to go first:

- ``default``: the meter as shipped (adaptive: 4 to 15 rounds, stops once its sampling
  half-width is under 2% or the noise floor's);
- ``4 rounds``: the same meter held to exactly 4 rounds (``min_pairs=max_pairs=4``),
  about what a check may spend for 4x one run of its tests.

Per check: its cost (``Verdict.cpu_seconds_spent``: the CPU seconds of every sandboxed
run of the check, the correctness pass included) divided by one run of the problem's
tests (the baseline's CPU seconds over every test, visible and hidden: median of 3
passes), and its 95% CI half-width (log space). It prints per problem and in total the
median cost ratio, the median half-width, the rounds, the spread of one pair's
log-ratio (robust sd: what the machine's noise does to a pair), and how many checks met
both "at most 4x" and "at most +-2%". With one pair a round, 4 rounds give +-2% (the
0.5% floor included) only when that spread is under about 0.9%: 1.74% of sampling
half-width is t(3) / sqrt(3) = 1.84 of its standard deviations.

The machine's own noise is read first and last, so the figures can be read against it:
a compute-bound and a memory-bound loop (each ~30 ms) run 20 times in a pinned sandbox,
the spread (sd of log CPU time, and the slowest run over the median) of each. A shared
host's memory traffic shows in the second and not the first; the meter cannot pair it
away when it changes from one run to the next.

usage: python benchmarks/check_cost.py [--checks 3] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.sandbox.box import Sandbox
from supercoder.timing.calibration import load_calibration
from supercoder.timing.meter import MeterConfig
from supercoder.timing.slots import slot_cpus
from supercoder.toolchain.baseline import baseline_asm, baseline_binary
from supercoder.toolchain.gcc import assemble, compile_to_asm, cpu_model, gcc_version
from supercoder.types import Problem, Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate

DEFAULT = [
    "dp_lcs",
    "num_sieve_primes",
    "mat_multiply_mod",
    "graph_dijkstra",
    "bit_sos_naive",
    "str_zfunc",
    "graph_toposort",
    "num_modpow",
]
METERS = {"default": MeterConfig(), "4 rounds": MeterConfig(min_pairs=4, max_pairs=4)}
LOOPS = {
    "compute": """#include <stdio.h>
int main(void) { unsigned long x = 1;
  for (long i = 0; i < 30000000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  printf("%lu\\n", x); return 0; }
""",
    "memory": """#include <stdio.h>
static unsigned a[1 << 22];
int main(void) { unsigned long s = 0;
  for (long i = 0; i < 2500000; i++) s += a[(i * 2654435761u) & ((1 << 22) - 1)]++;
  printf("%lu\\n", s); return 0; }
""",
}


def machine_noise() -> str:
    """The spread of a compute-bound and a memory-bound loop, 20 runs each, pinned."""
    parts = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in LOOPS.items():
            build = assemble(compile_to_asm(source, ("-O2",)), Path(tmp) / name)
            assert build.ok and build.binary is not None, build.log
            with Sandbox({name: build.binary}, cpus=slot_cpus(0)) as box:
                box.run(name, b"")
                cpu = [box.run(name, b"").cpu_seconds for _ in range(20)]
            logs = [math.log(c) for c in cpu]
            worst = max(cpu) / statistics.median(cpu) - 1
            parts.append(
                f"{name} {statistics.median(cpu) * 1000:.0f} ms sd {statistics.stdev(logs) * 100:.1f}%"
                f" slowest +{worst * 100:.0f}%"
            )
    return "machine noise (20 runs each): " + "; ".join(parts)


def one_run(problem: Problem) -> float:
    """CPU seconds of one run of the baseline over every test (median of 3 passes)."""
    with tempfile.TemporaryDirectory() as tmp:
        binary = baseline_binary(baseline_asm(problem), Path(tmp), problem.link_flags, True)
        inputs = [t.read_input() for t in problem.tests]
        with Sandbox({"baseline": binary}, cpus=slot_cpus(0)) as box:
            box.run("baseline", inputs[0])
            passes = [sum(box.run("baseline", d).cpu_seconds for d in inputs) for _ in range(3)]
    return statistics.median(passes)


def pair_spread(v: Verdict) -> float:
    """How far one pair's log-ratio strays, robustly (1.4826 x the median absolute
    deviation over the timed tests' pairs, each test about its own median)."""
    devs = []
    for t in v.tests:
        if t.timed and len(t.baseline_samples) > 1:
            pairs = zip(t.baseline_samples, t.candidate_samples, strict=True)
            logs = [math.log(b / c) for b, c in pairs]
            mid = statistics.median(logs)
            devs.extend(abs(x - mid) for x in logs)
    return 1.4826 * statistics.median(devs) if devs else float("nan")


def rounds(v: Verdict) -> int:
    return max((max(t.sample_rounds) + 1 for t in v.tests if t.sample_rounds), default=0)


class Tally:
    def __init__(self) -> None:
        self.ratios: list[float] = []
        self.widths: list[float] = []
        self.rounds: list[int] = []
        self.spreads: list[float] = []
        self.both = 0

    def add(self, v: Verdict, base: float) -> None:
        s = v.speedup
        assert s is not None, f"{v.problem}: {v.status} {v.message}"
        ratio = v.cpu_seconds_spent / base
        half = (math.log(s.high) - math.log(s.low)) / 2
        self.ratios.append(ratio)
        self.widths.append(half)
        self.rounds.append(rounds(v))
        self.spreads.append(pair_spread(v))
        self.both += ratio <= 4.0 and half <= math.log(1.02)

    def line(self) -> str:
        n = len(self.ratios)
        return (
            f"cost {statistics.median(self.ratios):4.1f}x one run (range "
            f"{min(self.ratios):.1f}-{max(self.ratios):.1f})  CI +-{statistics.median(self.widths) * 100:4.2f}%"
            f" (range {min(self.widths) * 100:.2f}-{max(self.widths) * 100:.2f})  rounds "
            f"{statistics.median(self.rounds):4.1f}  pair spread {statistics.median(self.spreads) * 100:4.2f}%"
            f"  <=4x and <=+-2%: {self.both}/{n}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=DEFAULT)
    ap.add_argument("--checks", type=int, default=3)
    args = ap.parse_args()
    cal = load_calibration()
    source = f"calibrated on {cal.checks} checks" if cal.measured else "built-in default"
    print(
        f"{cpu_model()} | {gcc_version()} | {len(args.problems)} problems x {args.checks} "
        f"self-vs-self checks per meter | noise floor {cal.noise_floor:.4f} ({source})"
    )
    print(machine_noise(), flush=True)
    start = time.time()
    totals = {m: Tally() for m in METERS}
    for name in args.problems:
        problem = load_problem(BUNDLED_ROOT / name)
        asm = baseline_asm(problem)
        base = one_run(problem)
        mine = {m: Tally() for m in METERS}
        for i in range(args.checks):
            order = list(METERS)[i % len(METERS) :] + list(METERS)[: i % len(METERS)]
            for meter in order:
                v = evaluate(problem, asm, CheckConfig(meter=METERS[meter]))
                mine[meter].add(v, base)
                totals[meter].add(v, base)
        print(f"{name}: {len(problem.tests)} tests, one run {base:.3f} CPU-s", flush=True)
        for meter, t in mine.items():
            print(f"  {meter:<9} {t.line()}", flush=True)
    print(f"total ({time.time() - start:.0f}s wall)")
    for meter, t in totals.items():
        print(f"  {meter:<9} {t.line()}")
    print(machine_noise())


if __name__ == "__main__":
    main()
