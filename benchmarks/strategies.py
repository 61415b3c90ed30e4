"""Strategies side by side at equal cost: best-of-N, refine and evolve on chain problems.

    python benchmarks/strategies.py [--problems 5] [--samples 12] [--last 3]
                                    [--tests 2] [--strategy evolve ...]

Each problem is a *chain* (tests/fakes/chain.py): versions 0..LAST of a program, each
doing 4x less redundant work than the one before; the scripted chain model, served by a
real loopback OpenAI-compatible server, answers version k + 1 when shown version k
(about one answer in four wrong on purpose, seeded). Every strategy gets the same
number of model answers per problem (--samples). One row per strategy x problem: the
version its answer reached, its speedup vs gcc -O3 with the CI, model calls, and the
CPU seconds spent verifying and timing (each distinct check once, evolve's
re-measurements included); then per strategy the problems that reached the
last version and the geometric-mean speedup. ``--tests 1`` gives each problem its one
visible test and no hidden one (as a user's problem made by ``problem init`` has): its
speedups come from the inputs drawn for each check.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]


def main() -> None:
    from supercoder.models.base import Sampling
    from supercoder.models.providers import load_model
    from supercoder.problems.loading import load_problem
    from supercoder.runs.dispatch import search
    from supercoder.runs.strategies import StrategyConfig
    from tests.fakes.chain import chain_problem, chain_responder
    from tests.fakes.servers import openai_server

    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", type=int, default=5)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--last", type=int, default=3)
    ap.add_argument("--tests", type=int, default=2, help="tests per problem (1: none hidden)")
    asking = ["best-of-n", "refine", "evolve"]  # the strategies that ask a model
    ap.add_argument("--strategy", nargs="+", choices=asking)
    args = ap.parse_args()
    strategies = [s for s in asking if not args.strategy or s in args.strategy]
    root = Path(tempfile.mkdtemp(prefix="sc-strategies-"))
    mods = [13, 11, 7, 5, 17, 19, 23, 29][: args.problems]
    chains = {
        f"chain{m}": chain_problem(root, f"chain{m}", last=args.last, mod=m, tests=args.tests)
        for m in mods
    }
    rows, totals = [], {}
    with openai_server(chain_responder(chains)) as url:
        model = load_model("openai:chain", base_url=url, cache=False)
        for strategy in strategies:
            settings = StrategyConfig(Sampling(n=args.samples, temperature=0.8), strategy=strategy)
            for name, chain in chains.items():
                problem = load_problem(chain.path)
                before = len(url.requests)
                start = time.perf_counter()
                outcome = search(problem, model, settings)
                wall = time.perf_counter() - start
                best = outcome.best
                v = best.verdict if best else None
                version = chain.version_of(best.candidate.asm) if v and v.correct else None
                sp = v.speedup if v and v.correct else None
                # each verification once (copies share their verdict), re-measurements too
                checked = {id(a.verdict): a.verdict for a in outcome.attempts}
                cpu = sum(v.cpu_seconds_spent for v in checked.values())
                cpu += outcome.meta.remeasure_cpu_seconds
                row = (strategy, name, version, sp, len(url.requests) - before, cpu, wall)
                rows.append(row)
                totals.setdefault(strategy, []).append(row)
    print(
        f"{'strategy':10} {'problem':9} {'version':>7} {'speedup [95% CI]':>24} "
        f"{'calls':>5} {'CPU s':>6} {'wall s':>6}"
    )
    for s, name, version, sp, calls, cpu, wall in rows:
        speed = f"{sp.value:.2f}x [{sp.low:.2f}, {sp.high:.2f}]" if sp else "1.00x (baseline)"
        shown = "-" if version is None else f"{version}/{args.last}"
        print(f"{s:10} {name:9} {shown:>7} {speed:>24} {calls:5d} {cpu:6.1f} {wall:6.1f}")
    print()
    for s, group in totals.items():
        reached = sum(1 for r in group if r[2] == args.last)
        speeds = [r[3].value if r[3] else 1.0 for r in group]
        geo = math.exp(sum(math.log(x) for x in speeds) / len(speeds))
        cpu = sum(r[5] for r in group)
        print(
            f"{s:10} last version on {reached}/{len(group)} problems, geomean {geo:.2f}x, "
            f"{sum(r[4] for r in group)} calls, {cpu:.1f} CPU s"
        )


if __name__ == "__main__":
    main()
