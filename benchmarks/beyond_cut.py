"""Draws past the time budget's cut: what they cost a check, and that honest answers stay paid.

For each problem (default: the bundled ``val`` split) the build search
(``compiler:budget=B``, ``runs/buildsearch/``, as ``eval`` runs it) picks its answer
once; that answer is then checked ``--checks`` times **with** the draws past the cut
(as shipped: ``unseen.BEYOND`` draws, ``evaluate.BEYOND_PAIRS`` pairs each, their own
stratum) and as many times **without** them (``BEYOND = 0``: the check before), taking
turns to go first, side by side in one run. Per side: the geometric mean over problems
of the answer's speedup (``effective_speedup``: 0 if wrong, 1.00 for a baseline copy)
and of what the default reward pays (``gated``; with the draws past the cut it also
asks ``holds_past_cut``), and the CPU seconds of a check (``Verdict.cpu_seconds_spent``:
correctness, the reference's runs on the draws, the timing). The last lines: the
geometric means side by side and the CPU ratio with/without (the target: at most about
1.2), and on how many problems a cut was found.

usage: python benchmarks/beyond_cut.py [--budget S] [--checks 2] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.runs.strategies import effective_speedup
from supercoder.toolchain.gcc import cpu_model, gcc_version
from supercoder.types import Candidate, Verdict
from supercoder.verify import unseen
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import default_reward

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compiler_search import run_model  # noqa: E402  (the build search, as eval runs it)


def check(problem, asm: str, beyond: bool) -> Verdict:
    saved = unseen.BEYOND
    unseen.BEYOND = saved if beyond else 0
    try:
        return evaluate(problem, Candidate(asm), CheckConfig())
    finally:
        unseen.BEYOND = saved


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values)) if values else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", help="bundled problem names (default: the val split)")
    ap.add_argument("--budget", type=float, default=20.0, help="search CPU seconds per problem")
    ap.add_argument("--checks", type=int, default=2, help="checks per side per problem")
    args = ap.parse_args()
    problems = load_benchmark("val")
    if args.problems:
        problems = [p for p in load_benchmark("all") if p.name in set(args.problems)]
    print(
        f"machine: {cpu_model()}, {gcc_version()}; build search budget {args.budget:g} CPU s; "
        f"{args.checks} check(s) per side; past the cut: {unseen.BEYOND} draw(s)"
    )
    print(
        f"{'problem':24} {'build':28} {'without: x':>10} {'paid':>6} {'cpu':>6} | "
        f"{'with: x':>8} {'paid':>6} {'cpu':>6} {'past cut':>9}  cut"
    )
    rows = []
    for problem in problems:
        asm, build, _, _ = run_model(problem, f"budget={args.budget:g}")
        if not asm:
            print(f"{problem.name:24} {build[:28]:28} (no correct answer: skipped)", flush=True)
            continue
        sides: dict[bool, list[Verdict]] = {False: [], True: []}
        for k in range(args.checks):
            for beyond in (k % 2 == 0, k % 2 != 0):  # taking turns to go first
                sides[beyond].append(check(problem, asm, beyond))

        def stats(verdicts: list[Verdict]) -> tuple[float, float, float]:
            x = geomean([effective_speedup(v) for v in verdicts])
            paid = geomean([max(default_reward(v) or 0.0, 0.0) or 1.0 for v in verdicts])
            cpu = sum(v.cpu_seconds_spent for v in verdicts) / len(verdicts)
            return x, paid, cpu

        (x0, p0, c0), (x1, p1, c1) = stats(sides[False]), stats(sides[True])
        past = [v.context.measurement.beyond_cut for v in sides[True]]
        past_x = geomean([p.value for p in past if p is not None]) if any(past) else None
        cut = next(
            (v.context.measurement.cut for v in sides[True] if v.context.measurement.cut), ""
        )
        rows.append((x0, p0, c0, x1, p1, c1, bool(cut)))
        past_text = f"{past_x:8.3f}x" if past_x is not None else "        -"
        print(
            f"{problem.name:24} {build[:28]:28} {x0:10.3f} {p0:6.3f} {c0:6.2f} | "
            f"{x1:8.3f} {p1:6.3f} {c1:6.2f} {past_text}  {cut[:60]}",
            flush=True,
        )
    if not rows:
        print("no problem had a correct answer")
        return
    g = [geomean([r[i] for r in rows]) for i in (0, 1, 3, 4)]
    c0 = sum(r[2] for r in rows) / len(rows)
    c1 = sum(r[5] for r in rows) / len(rows)
    cut_rows = [r for r in rows if r[6]]
    print(
        f"geomean speedup: without {g[0]:.3f}x, with {g[2]:.3f}x (ratio {g[2] / g[0]:.3f}); "
        f"paid (gated; a check not paid counts 1.00): without {g[1]:.3f}, with {g[3]:.3f}"
    )
    print(
        f"CPU per check: without {c0:.2f}s, with {c1:.2f}s (ratio {c1 / c0:.3f}); "
        f"a cut was found on {len(cut_rows)} of {len(rows)} problems"
    )
    if cut_rows:
        r0 = sum(r[2] for r in cut_rows) / len(cut_rows)
        r1 = sum(r[5] for r in cut_rows) / len(cut_rows)
        print(f"CPU per check where a cut was found: ratio {r1 / r0:.3f}")


if __name__ == "__main__":
    main()
