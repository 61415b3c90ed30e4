"""Do eval and a later check draw the same sizes when the machine's load differs?

A check draws its timed inputs afresh (``verify/unseen.py``). Before, each check then
resized a generator's draws by what its own reference runs took (``_to_target``: a draw
over 24 ms drawn again smaller, one under 6 ms larger), so a busy eval (every run
reading longer) timed smaller inputs than a quiet check of the same answer. Now the
resize is fitted once per problem (``unseen.size_fit``, cached by content) and every
check draws at those sizes.

This script draws, with one seed, each problem's check inputs twice: on the machine as
it is ("quiet") and with every reference run reading ``--slow`` times its CPU (a busy
machine, simulated so the comparison is exact), through the code before (the module at
``--before``, read from git) and now, side by side in one run, and prints per problem
how many of the draws changed size and the busy/quiet ratio of the drawn sizes.

With ``--answer PROBLEM=FILE.s`` it also checks that answer ``--checks`` times on a busy
machine (simulated as above) through each code: what a busy eval (or optimize's
confirming check) reported before and now, beside the answer's checks on the machine
as it is (``optimize`` reported 1.233x for an answer its search measured at 1.435x and
four fresh checks at 1.415-1.433x: its confirming check had drawn smaller inputs).

usage: python benchmarks/draw_load.py [--problems dp_lcs graph_dijkstra ...]
       [--slow 4] [--before 90e6437] [--seed 11] [--answer dp_lcs=lcs.s --checks 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["dp_lcs", "dp_edit_distance", "graph_floyd", "mat_multiply_mod", "num_sieve_primes"]


def _old_module(commit: str):
    """``verify/unseen.py`` as it was at ``commit``, imported under another name."""
    text = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{commit}:src/supercoder/verify/unseen.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="sc-bench-")) / "unseen_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("unseen_before", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["unseen_before"] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def _sizes(module, problem, seed: int, slow: float) -> list[int]:
    """The generator sizes one check draws with ``seed`` (every reference run reading
    ``slow`` times its CPU)."""
    real = module.reference_runs

    def runs(problem, inputs, *rest):
        outputs, cpu = real(problem, inputs, *rest)
        return outputs, [slow * t for t in cpu]

    module.reference_runs = runs
    try:
        found = module.draw_from_sources(problem, module.DRAWS, seed)
    finally:
        module.reference_runs = real
    return [len(data) for _, data, _ in found.tests]


def _checks(module, problem, asm: str, slow: float, n: int) -> list[tuple[float, float, float]]:
    """``n`` checks of ``asm`` whose timed inputs ``module`` draws, every reference run
    reading ``slow`` times its CPU (the timing itself as the machine is)."""
    from supercoder.types import Candidate
    from supercoder.verify import evaluate as ev

    real_runs, real_unseen = module.reference_runs, ev.unseen_tests

    def runs(problem, inputs, *rest):
        outputs, cpu = real_runs(problem, inputs, *rest)
        return outputs, [slow * t for t in cpu]

    module.reference_runs = runs
    ev.unseen_tests = module.unseen_tests
    try:
        out = []
        for _ in range(n):
            sp = ev.evaluate(problem, Candidate(asm)).speedup
            if sp is not None:
                out.append((sp.value, sp.low, sp.high))
        return out
    finally:
        module.reference_runs, ev.unseen_tests = real_runs, real_unseen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", nargs="+", default=DEFAULT)
    ap.add_argument("--slow", type=float, default=4.0, help="the busy machine's CPU factor")
    ap.add_argument("--before", default="90e6437", help="the commit of the code before")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--answer", help="PROBLEM=FILE.s: also check this answer busy, each way")
    ap.add_argument("--checks", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("SUPERCODER_CACHE", tempfile.mkdtemp(prefix="sc-bench-cache-"))
    sys.path.insert(0, str(ROOT / "src"))
    from supercoder.problems.loading import load_problem
    from supercoder.verify import unseen as now

    before = _old_module(args.before)
    bench = ROOT / "src" / "supercoder" / "data" / "bench"
    print(f"each check's 5 draws, one seed, quiet vs every reference run x{args.slow:g} CPU")
    print(
        f"{'problem':20} {'code':7} {'quiet input bytes':>26} {'busy input bytes':>26} "
        f"{'changed':>8} {'busy/quiet':>10}"
    )
    for name in args.problems:
        problem = load_problem(bench / name)
        for label, module in (("before", before), ("now", now)):
            quiet = _sizes(module, problem, args.seed, 1.0)
            busy = _sizes(module, problem, args.seed, args.slow)
            changed = sum(a != b for a, b in zip(quiet, busy, strict=False))
            changed += abs(len(quiet) - len(busy))
            ratio = statistics.median(b / a for a, b in zip(quiet, busy, strict=False) if a)
            q = f"{min(quiet)}-{max(quiet)}" if quiet else "-"
            b = f"{min(busy)}-{max(busy)}" if busy else "-"
            print(
                f"{name:20} {label:7} {q:>26} {b:>26} {changed:>5}/{len(quiet):<2} {ratio:>10.2f}"
            )
    if args.answer:
        name, _, path = args.answer.partition("=")
        problem, asm = load_problem(bench / name), Path(path).read_text()
        print(f"\n{name}: {path} checked {args.checks}x each")
        rows = [
            ("now, the machine as it is", now, 1.0),
            (f"before, busy (x{args.slow:g})", before, args.slow),
            (f"now, busy (x{args.slow:g})", now, args.slow),
        ]
        for label, module, slow in rows:
            found = _checks(module, problem, asm, slow, args.checks)
            shown = ", ".join(f"{v:.3f}x [{lo:.3f}, {hi:.3f}]" for v, lo, hi in found)
            print(f"  {label:28} {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
