"""Where ``eval --strategy builds`` spends its time on one problem, beside its ``--budget``.

The build search runs in this process (inline verification, as ``eval --workers 1``
does in its worker), each phase metered by wall seconds, exclusive of the phases it
calls (a sandbox's runs are reaped when it closes, so CPU is only told in all: this
process and every run it waited for):

    compile builds      toolchain builds (PGO builds run the visible tests to train)
    correctness         every test run by each candidate (visible and hidden)
    draw timed inputs   a check's fresh draws and the reference's runs on them
    validate a source   once per problem and source: a batch judged in full
    timing              the meter's pairs (baseline and candidates)
    other               everything else (planning, records, Python)

then the same grouped by the search's stages (build+screen, halving, re-measure, after
the search: the baseline's check and the answer's fresh re-check), and what the search
charged to its budget (``SearchResult.cpu_seconds``) against what it spent in all.

    PYTHONPATH=src .venv/bin/python benchmarks/eval_cost.py PROBLEM_DIR [--budget 30]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Meter:
    """Exclusive wall and CPU seconds per label (a wrapped call inside another counts
    for its own label only)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.stack: list[list] = []  # [label, wall0, cpu0, child_wall, child_cpu]

    def wrap(self, owner: object, name: str, label: str) -> None:
        fn = getattr(owner, name)

        @functools.wraps(fn)
        def metered(*a, **k):
            self.stack.append([label, time.monotonic(), _cpu(), 0.0, 0.0])
            try:
                return fn(*a, **k)
            finally:
                lab, w0, c0, cw, cc = self.stack.pop()
                w, c = time.monotonic() - w0, _cpu() - c0
                self.wall[lab] += w - cw
                self.cpu[lab] += c - cc
                self.calls[lab] += 1
                if self.stack:
                    self.stack[-1][3] += w
                    self.stack[-1][4] += c

        setattr(owner, name, metered)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problem", type=Path)
    ap.add_argument("--budget", type=float, default=30.0)
    ap.add_argument("--samples", type=int, default=4)
    args = ap.parse_args()

    from supercoder.problems.loading import load_problem
    from supercoder.runs.buildsearch import halving, strategy
    from supercoder.runs.buildsearch.strategy import BuildsConfig, builds_settings
    from supercoder.toolchain import pgo
    from supercoder.verify import evaluate, unseen

    activity, stage = Meter(), Meter()
    activity.wrap(pgo, "build_asm", "compile builds")
    activity.wrap(halving, "build_asm", "compile builds")
    activity.wrap(evaluate, "_check_all", "correctness")
    activity.wrap(evaluate, "unseen_tests", "draw timed inputs")
    activity.wrap(unseen, "_validate", "validate a source")
    activity.wrap(evaluate.Meter, "compare_group", "timing")
    stage.wrap(halving, "_build_all", "build")
    stage.wrap(halving, "_screen", "screen")
    stage.wrap(halving, "_halve", "halving")
    stage.wrap(halving, "_final", "re-measure")
    stage.wrap(strategy, "_answers", "after: baseline + answers")
    stage.wrap(strategy, "confirm_best", "after: fresh re-check")

    problem = load_problem(args.problem)
    settings = builds_settings(BuildsConfig(args.budget), samples=args.samples)
    captured: dict[str, object] = {}
    inner = halving.search_builds

    def search(*a, **k):
        captured["result"] = r = inner(*a, **k)
        return r

    strategy.search_builds = search
    w0, c0 = time.monotonic(), _cpu()
    outcome = strategy.build_search(problem, settings)
    wall, cpu = time.monotonic() - w0, _cpu() - c0
    result = captured.get("result")
    charged = getattr(result, "cpu_seconds", float("nan"))

    def table(meter: Meter, title: str) -> None:
        print(f"\n{title:<28} {'wall s':>8} {'share':>6} {'calls':>6}")
        for lab in sorted(meter.wall, key=lambda k: -meter.wall[k]):
            w = meter.wall[lab]
            print(f"{lab:<28} {w:8.1f} {w / wall:6.0%} {meter.calls[lab]:6d}")
        rest = wall - sum(meter.wall.values())
        print(f"{'other':<28} {rest:8.1f} {rest / wall:6.0%}")

    print(f"problem {problem.name}: --budget {args.budget:g} --samples {args.samples}")
    table(activity, "activity")
    table(stage, "stage")
    best = outcome.attempts[-1].verdict if outcome.attempts else None
    print(
        f"\nin all: {wall:.1f} s wall, {cpu:.1f} s CPU; the search charged {charged:.1f} s "
        f"to its budget of {args.budget:g} s: CPU/budget {cpu / args.budget:.2f}x, "
        f"wall/budget {wall / args.budget:.2f}x"
    )
    if best is not None:
        print(f"answer: {best.status.value} {best.speedup}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
