"""The reward study's predicted sign agreement against the agreement of repeated real checks.

For each problem, a batch of known variants of its source (the build search's builders:
gcc -O0, -O1, -O2, -Os, an -O3 copy of the baseline, -O3 native, -O3 unrolled, -O3 PGO,
clang -O3) is checked ``--repeats`` times for real, each time as one group session
with ``--rounds`` rounds of pairs (``supercoder check P a.s b.s ...`` with the reward's
fixed timing budget). Then, per reward form and timing budget B:

- observed: for every two repeats, each variant's reward from its first B rounds (what
  a check with budget B measured: the meter's interval of those rounds, paid through
  ``verify.reward.score_verdict``), and the share of GRPO advantage signs (reward minus
  the group's mean) the two repeats agree on, over the variants whose advantage is
  non-zero in either;
- predicted: ``supercoder reward study``'s agreement (``training.reward_study.study``)
  from ONE repeat's stored samples, averaged over the repeats.

Side by side in one run, with the difference in points; a row is ``ok`` within +-10
points. The percentile form ranks against the variants themselves (the first repeat's
speedups), on both sides. Prints the study's own CPU cost beside the checks'.

usage: python benchmarks/reward_study_calibration.py [--problems P ...] [--repeats 4]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace
from itertools import combinations

import numpy as np

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.timing.intervals import Z95
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.flagspace import make
from supercoder.toolchain.gcc import cpu_model
from supercoder.training.reward_study import (
    UNCERTAIN_GATE,
    UNCERTAIN_SPREAD,
    Group,
    StudyCompletion,
    reported,
    study,
)
from supercoder.types import Verdict
from supercoder.verify.evaluate import check_config
from supercoder.verify.pools import POOL_BUILDS, source_builds
from supercoder.verify.reward import parse_reward, score_verdict
from supercoder.verify.service import verify_together

DEFAULT = ["bit_popcount_ranges", "dp_coin_ways", "num_divisors"]
FORMS = ["gated", "paper", "log", "binary", "percentile"]
KEYS = ("form", "budget", "predicted", "observed", "diff", "signs", "on_gate", "half_width")
VARIANTS = (make("gcc", "-O3"), *POOL_BUILDS)  # the copy first


def variants(problem) -> list[tuple[str, str]]:
    return [(label, asm) for label, asm in source_builds(problem, VARIANTS) if asm is not None]


def signs(rewards: np.ndarray) -> np.ndarray:
    dev = rewards - rewards.mean()
    return np.where(np.abs(dev) <= 1e-9 * max(1.0, float(np.abs(rewards).max())), 0, np.sign(dev))


def observed(repeats, form, budget, pool) -> tuple[int, int]:
    """(agreeing, live) advantage signs over every two repeats of one problem."""
    config = parse_reward(form)
    paid = []
    for verdicts in repeats:
        row = []
        for v in verdicts:
            sp = (
                reported(StudyCompletion.from_verdict(v), budget) if v.speedup is not None else None
            )
            cut = replace(v, speedup=sp) if sp is not None else v
            row.append(score_verdict(cut, config, pool) or 0.0)
        paid.append(np.asarray(row))
    agree = live = 0
    for a, b in combinations(paid, 2):
        sa, sb = signs(a), signs(b)
        alive = (sa != 0) | (sb != 0)
        agree += int(((sa == sb) & alive).sum())
        live += int(alive.sum())
    return agree, live


def save(path: str, data: dict) -> None:
    """The real checks, by problem: each variant's label and every repeat's verdicts."""
    out = {
        name: {
            "labels": [label for label, _ in progs],
            "repeats": [[v.to_json() for v in verdicts] for verdicts in repeats],
        }
        for name, (progs, repeats) in data.items()
    }
    with open(path, "w") as f:
        json.dump(out, f)


def load(path: str) -> dict:
    """``save``'s file read back (the programs' text is not kept: labels only)."""
    with open(path) as f:
        raw = json.load(f)
    return {
        name: (
            [(label, "") for label in d["labels"]],
            [[Verdict.from_json(v) for v in verdicts] for verdicts in d["repeats"]],
        )
        for name, d in raw.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", nargs="*", default=DEFAULT)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--budgets", default="4,6,8")
    ap.add_argument("--resamples", type=int, default=200)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--save", default=None, help="write the real checks' verdicts to this JSON file"
    )
    ap.add_argument(
        "--load", default=None, help="read the real checks from --save's file (no new checks)"
    )
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    meter = MeterConfig(min_pairs=args.rounds, max_pairs=args.rounds, max_cpu_seconds=900)
    config = check_config(meter=meter)
    if not args.load:
        print(
            f"cpu: {cpu_model()}; {args.repeats} repeats x {args.rounds} rounds; budgets {budgets}"
        )
    checks_cpu = time.process_time()
    wall = time.perf_counter()
    data = load(args.load) if args.load else {}
    for name in [] if args.load else args.problems:
        problem = load_problem(BUNDLED_ROOT / name)
        progs = variants(problem)
        repeats = []
        for r in range(args.repeats):
            start = time.perf_counter()
            verdicts = verify_together(problem, [a for _, a in progs], config)
            repeats.append(verdicts)
            shown = " ".join(
                f"{label}={v.speedup.value:.2f}" if v.speedup else f"{label}={v.status.value}"
                for (label, _), v in zip(progs, verdicts, strict=True)
            )
            print(f"{name} repeat {r + 1}: {time.perf_counter() - start:.0f}s  {shown}", flush=True)
        data[name] = (progs, repeats)
    wall = time.perf_counter() - wall
    if args.save:
        save(args.save, data)
    checks_cpu = time.process_time() - checks_cpu
    study_cpu = 0.0
    studies = {}  # (problem, repeat) -> its study: every form and budget at once
    for name, (progs, repeats) in data.items():
        pool = tuple(v.speedup for v in repeats[0] if v.speedup is not None)
        for r, verdicts in enumerate(repeats):
            comps = tuple(
                StudyCompletion.from_verdict(v, label)
                for (label, _), v in zip(progs, verdicts, strict=True)
            )
            # as many simulated checks as real ones, compared pair by pair as they are
            s = study(
                [Group(name, comps, pool)],
                FORMS,
                budgets,
                args.resamples,
                r,
                checks=len(repeats),
            )
            study_cpu += s.seconds
            studies[name, r] = {(row.form.split(":")[0], row.budget): row for row in s.rows}
    rows = []
    for form in FORMS:
        for budget in budgets:
            agree = live = 0
            predicted = []  # per problem: (agreement, informative signs, spread)
            gates: list[float] = []
            for name, (_, repeats) in data.items():
                pool = tuple(v.speedup for v in repeats[0] if v.speedup is not None)
                a, n = observed(repeats, form, budget, pool)
                agree, live = agree + a, live + n
                # each repeat's study predicts the SAME observation (this problem's
                # repeats compared pair by pair): their predictions are averaged, not
                # pooled as if independent
                rows_p = [studies[name, r][form, budget] for r in range(len(repeats))]
                gates += [row.on_gate for row in rows_p]
                known = [row for row in rows_p if row.agreement is not None]
                w = sum(row.live for row in known)
                if w:
                    predicted.append(
                        (
                            sum(row.agreement * row.live for row in known) / w,
                            w / len(known),
                            float(np.mean([row.spread for row in known])),
                        )
                    )
            obs = agree / live if live else None
            weight = sum(w for _, w, _ in predicted)
            pred = sum(p * w for p, w, _ in predicted) / weight if weight else None
            # the problems are independent: their spreads pool in quadrature, weighted
            # by informative signs as the observation pools them
            pooled = (
                math.sqrt(sum((w * sd) ** 2 for _, w, sd in predicted)) / weight if weight else 0
            )
            half = Z95 * pooled
            diff = None if obs is None or pred is None else 100 * (pred - obs)
            on_gate = float(np.mean(gates)) if gates else 0.0
            rows.append((form, budget, pred, obs, diff, live, on_gate, half))
    print()
    head = f"{'form':<22}{'rounds':>7}{'predicted':>11}{'observed':>10}{'diff':>8}{'signs':>7}"
    print(f"{head}{'on gate':>9}{'+-':>6}  ")
    held = 0
    for form, budget, pred, obs, diff, live, on_gate, half in rows:
        fmt = lambda x: "-" if x is None else f"{x:.1%}"  # noqa: E731
        flagged = on_gate > UNCERTAIN_GATE or half > UNCERTAIN_SPREAD
        if diff is None:
            verdict = "-"
        elif abs(diff) <= 10:
            verdict = "ok" + (" (flagged uncertain)" if flagged else "")
        else:
            verdict = "said uncertain" if flagged else "OFF"
        held += verdict.startswith(("ok", "said"))
        d = "-" if diff is None else f"{diff:+.1f}"
        line = f"{form:<22}{budget:>7}{fmt(pred):>11}{fmt(obs):>10}{d:>8}{live:>7}"
        print(f"{line}{on_gate:>9.0%}{100 * half:>6.1f}  {verdict}")
    within = [abs(r[4]) <= 10 for r in rows if r[4] is not None]
    checked = f"read from {args.load}" if args.load else f"{wall:.0f}s wall"
    print(
        f"\n{sum(within)}/{len(within)} rows within +-10 points; {held}/{len(rows)} within or "
        f"marked uncertain by the study (more than {UNCERTAIN_GATE:.0%} of its completions on "
        f"the gate, or its 95% range of the pooled agreement wider than "
        f"+-{100 * UNCERTAIN_SPREAD:.0f} points); checks: {checked}, study: {study_cpu:.2f} CPU-s for "
        f"{len(studies)} studies of {len(FORMS)} forms x {len(budgets)} budgets"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                [dict(zip(KEYS, r, strict=True)) for r in rows],
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
