"""The first `compiler` model (8 fixed builds) vs the budgeted search, side by side, in one run.

For each problem (default: the bundled ``val`` split), both models run the way ``eval``
runs them (``runs.dispatch.search``: every answer verified by the verification service):

- today: ``compiler:legacy``, the eight fixed builds, all verified and timed, the
  evaluator's best measurement wins;
- search: ``compiler:budget=B``, the build search (``runs/buildsearch/``): builds
  screened, halved and re-measured through the service, its answer re-checked afresh.

Each chosen program is then **re-measured fresh** (``evaluate`` again, new seeds,
``--fresh`` times; a wrong program counts as 0, a baseline copy as 1.00), so neither
side profits from having picked its luckiest measurement. CPU per problem is what the
model and its verification spent (compiles counted by wall time, every sandboxed run
by CPU time), not the fresh re-measure. ``left`` is what the search's budget left
undone (unscreened / unbuilt builds); the last line counts the problems where the
budget ran out, so the default budget can be judged.

usage: python benchmarks/compiler_search.py [--budget S] [--fresh 1] [--search-only] [PROBLEM ...]
"""

from __future__ import annotations

import argparse
import math
import time

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.runs.buildsearch import build_of, builds_settings, legacy_options
from supercoder.runs.buildsearch.records import DEFAULT_BUDGET
from supercoder.runs.dispatch import search as run_search
from supercoder.runs.strategies import effective_speedup, make_verifier
from supercoder.timing.meter import MeterConfig
from supercoder.toolchain.gcc import cpu_model, gcc_version
from supercoder.types import Candidate
from supercoder.verify.evaluate import CheckConfig, evaluate


def run_model(problem, spec: str) -> tuple[str, str, float, str]:
    """(chosen asm, its build, CPU seconds spent choosing it, what the budget left
    undone) as `eval` would."""
    config, target = legacy_options(spec)  # budget=S, legacy, ids: as eval's options
    settings = builds_settings(config, target=(target or "native"))
    start = time.process_time()
    outcome = run_search(problem, [], settings, verify=make_verifier(CheckConfig()))
    cpu = sum(a.verdict.cpu_seconds_spent for a in outcome.attempts)
    gen = sum(a.gen_seconds for a in outcome.attempts)
    builds = [build_of(a.origin) for a in outcome.attempts]
    search = next((b.search for b in builds if b.search), None)
    spent = cpu + (search.cpu_seconds if search else gen) + (time.process_time() - start)
    left = dict(search.unfinished) if search else {}
    left_text = f"{left.get('unscreened', 0)}/{left.get('unbuilt', 0)}" if left else "-"
    best = outcome.best
    if best is None or not best.verdict.correct:
        return "", "none correct", spent, left_text
    build = build_of(best.origin).build or best.origin.model or ""
    return best.candidate.asm or "", build, spent, left_text


def fresh(problem, asm: str, times: int) -> float:
    """Geometric mean of ``times`` fresh verdicts (0 if ever wrong, 1 for the baseline)."""
    if not asm:
        return 0.0
    logs = []
    for i in range(times):
        verdict = evaluate(problem, Candidate(asm), CheckConfig(meter=MeterConfig(seed=1000 + i)))
        value = effective_speedup(verdict)
        if value <= 0:
            return 0.0
        logs.append(math.log(value))
    return math.exp(sum(logs) / len(logs))


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values)) if values else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problems", nargs="*", help="bundled problem names (default: the val split)")
    ap.add_argument(
        "--budget", type=float, default=DEFAULT_BUDGET, help="search CPU seconds per problem"
    )
    ap.add_argument(
        "--search-only", action="store_true", help="skip the first model (its column reads -)"
    )
    ap.add_argument("--fresh", type=int, default=1, help="fresh re-measures of each choice")
    args = ap.parse_args()
    problems = load_benchmark("val")
    if args.problems:
        problems = [p for p in load_benchmark("all") if p.name in set(args.problems)]
    print(
        f"machine: {cpu_model()}, {gcc_version()}; budget {args.budget:g} CPU s; "
        f"{args.fresh} fresh re-measure(s) per choice"
    )
    print(
        f"{'problem':24} {'today: build':44} {'fresh':>6} {'cpu':>6} | "
        f"{'search: build':52} {'fresh':>6} {'cpu':>6} {'left':>6}"
    )
    rows = []
    for problem in problems:
        old_asm, old_build, old_cpu = "", "-", 0.0
        if not args.search_only:
            old_asm, old_build, old_cpu, _ = run_model(problem, "legacy")
        new_asm, new_build, new_cpu, left = run_model(problem, f"budget={args.budget:g}")
        old, new = fresh(problem, old_asm, args.fresh), fresh(problem, new_asm, args.fresh)
        rows.append((old, old_cpu, new, new_cpu, left))
        print(
            f"{problem.name:24} {old_build[:44]:44} {old:6.3f} {old_cpu:6.1f} | "
            f"{new_build[:52]:52} {new:6.3f} {new_cpu:6.1f} {left:>6}",
            flush=True,
        )
    old_g, new_g = geomean([r[0] for r in rows]), geomean([r[2] for r in rows])
    old_c, new_c = (sum(r[i] for r in rows) / len(rows) for i in (1, 3))
    if args.search_only:
        print(f"geomean fresh speedup: search {new_g:.3f}x; CPU per problem: {new_c:.1f}s")
    else:
        print(
            f"geomean fresh speedup: today {old_g:.3f}x, search {new_g:.3f}x "
            f"(ratio {new_g / old_g:.3f}); CPU per problem: today {old_c:.1f}s, "
            f"search {new_c:.1f}s ({new_c / old_c:.2f}x)"
        )
    wrong = sum(1 for r in rows if r[2] == 0)
    slower = sum(1 for r in rows if 0 < r[2] < 0.98)
    print(f"search: {wrong} wrong, {slower} measured >2% slower on the fresh re-measure")
    short = sum(1 for r in rows if r[4] != "-")
    print(
        f"budget {args.budget:g} CPU s ran out (builds left unscreened/unbuilt) on "
        f"{short} of {len(rows)} problems"
    )


if __name__ == "__main__":
    main()
