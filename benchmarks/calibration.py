"""Does a 95% CI hold from one check to the next? Earlier meter vs the calibrated one.

On bundled problems, the *baseline itself* is checked as the candidate (the true
speedup is exactly 1.00) ``--checks`` times with each meter, rotating which meter
goes first, so all see the same machine state:

- legacy: ``MeterConfig(legacy=True)`` — pairs resampled within each test, the timed
  tests chosen from the baseline times of each check, no noise floor;
- first: the calibrated meter as it first landed (one pair per timed test a round,
  ``max_repeats=1``; stopping allowed after 2 rounds, ``min_pairs=2``);
- calibrated: the default meter — rounds resampled together, copies of each binary
  picked at random per run, this machine's noise floor (``supercoder calibrate``, or
  the built-in default) added to the interval, the timed-test set decided once per
  problem and cached, short timed tests given ~sqrt(longest/own) pairs a round, at
  least 4 rounds.

Per problem and in total it prints: how many CIs exclude 1.0 (a 95% CI should miss
about 1 in 20), how many call the identical program significantly faster or slower
(outside the practical band ``[1 - m, 1 + m]``), the spread of the point estimates
(sd and largest |estimate - 1|), how many distinct timed-test sets the checks reported,
and the CPU seconds spent per check.

usage: python benchmarks/calibration.py [--checks 5] [--meters legacy,first,calibrated] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from dataclasses import dataclass

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.timing.calibration import load_calibration
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import cpu_model, gcc_version
from supercoder.types import Verdict
from supercoder.verify.evaluate import CheckConfig, evaluate

DEFAULT = [
    "bit_sos_naive",
    "str_zfunc",
    "bit_max_xor_pair",
    "mat_gauss_mod",
    "graph_toposort",
    "sim_bank_queue",
    "num_modpow",
    "rec_nqueens",
]
METERS = {
    "legacy": MeterConfig(legacy=True),
    "first": MeterConfig(max_repeats=1, min_pairs=2),
    "calibrated": MeterConfig(),
}


@dataclass
class Tally:
    checks: int = 0
    excl_one: int = 0
    sig_faster: int = 0
    sig_slower: int = 0
    cpu: float = 0.0

    def add(self, v: Verdict) -> None:
        sp = v.speedup
        assert sp is not None, f"{v.problem}: {v.status} {v.message}"
        self.checks += 1
        self.excl_one += sp.low > 1.0 or sp.high < 1.0
        self.sig_faster += sp.significantly_faster
        self.sig_slower += sp.significantly_slower
        self.cpu += v.cpu_seconds_spent


def _spread(estimates: list[float]) -> str:
    sd = statistics.stdev(estimates) if len(estimates) > 1 else 0.0
    worst = max(abs(e - 1.0) for e in estimates)
    return f"sd {sd * 100:4.2f}% max|e-1| {worst * 100:4.2f}%"


def _line(name: str, t: Tally, estimates: list[float], sets: int) -> str:
    return (
        f"{name:<10} excl1 {t.excl_one:2d}/{t.checks:<2d} sig+ {t.sig_faster} sig- {t.sig_slower}  "
        f"{_spread(estimates)}  timed-sets {sets}  cpu/check {t.cpu / max(1, t.checks):5.2f}s"
    )


def run_problem(name: str, checks: int, totals: dict[str, Tally], spreads: dict) -> None:
    problem = load_problem(BUNDLED_ROOT / name)
    asm = baseline_asm(problem)
    tally = {m: Tally() for m in METERS}
    est: dict[str, list[float]] = {m: [] for m in METERS}
    sets: dict[str, set] = {m: set() for m in METERS}
    for i in range(checks):
        order = list(METERS)[i % len(METERS) :] + list(METERS)[: i % len(METERS)]
        for meter in order:
            v = evaluate(problem, asm, CheckConfig(meter=METERS[meter]))
            tally[meter].add(v)
            totals[meter].add(v)
            est[meter].append(v.speedup.value)
            sets[meter].add(v.timed_tests)
    print(name, flush=True)
    for meter in METERS:
        print("  " + _line(meter, tally[meter], est[meter], len(sets[meter])), flush=True)
        spreads[meter].append(est[meter])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", default=DEFAULT)
    ap.add_argument("--checks", type=int, default=5)
    ap.add_argument("--meters", default=",".join(METERS), help="which meters, comma-separated")
    args = ap.parse_args()
    chosen = args.meters.split(",")
    for name in [m for m in METERS if m not in chosen]:
        del METERS[name]
    cal = load_calibration()
    source = f"calibrated on {cal.checks} checks" if cal.measured else "built-in default"
    print(
        f"{cpu_model()} | {gcc_version()} | {len(args.problems)} problems x {args.checks} "
        f"identical-program checks per meter | noise floor {cal.noise_floor:.4f} "
        f"margin {cal.margin:.3f} ({source})"
    )
    totals = {m: Tally() for m in METERS}
    spreads: dict[str, list[list[float]]] = {m: [] for m in METERS}
    start = time.time()
    for name in args.problems:
        run_problem(name, args.checks, totals, spreads)
    print(f"total ({time.time() - start:.0f}s wall)")
    for meter, t in totals.items():
        sds = [statistics.stdev(e) for e in spreads[meter] if len(e) > 1]
        logs = [math.log(x) for e in spreads[meter] for x in e]
        bias = math.exp(statistics.fmean(logs)) - 1.0
        print(
            f"  {meter:<10} CIs excluding 1.0: {t.excl_one}/{t.checks} ({100 * t.excl_one / t.checks:.0f}%)"
            f"  significantly faster: {t.sig_faster}  slower: {t.sig_slower}"
            f"  median sd of estimates {100 * statistics.median(sds or [0]):.2f}%"
            f"  bias {100 * bias:+.2f}%  cpu/check {t.cpu / t.checks:.2f}s"
        )
    for meter in [m for m in totals if m != "legacy" and "legacy" in totals]:
        ratio = totals[meter].cpu / max(totals["legacy"].cpu, 1e-9)
        print(f"the {meter} meter spends {ratio:.2f}x the legacy meter's CPU per check")


if __name__ == "__main__":
    main()
