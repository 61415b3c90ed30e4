"""How the size and number of drawn inputs move a measured speedup, side by side.

Drawn inputs are aimed at ``unseen.TARGET_SECONDS`` of reference CPU each (a longer
draw is drawn again smaller) and ``unseen.DRAWS`` are drawn per check. Smaller inputs
cost less to time, but a fixed cost per run (process start, page faults) is a larger
part of them and pulls every speedup toward 1.00; fewer draws make the spread between
inputs, which the interval includes, a coarser estimate. For a few answers with a
known speedup (gcc builds with other flags than -O3) each setting checks every answer
``--checks`` times from scratch and prints the geometric mean of the estimates, the
median CI half-width and the CPU seconds per check.

usage: python benchmarks/draw_size.py [--checks 3] [--settings 5:0.012 5:0.02 3:0.02]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.toolchain.baseline import compile_baseline
from supercoder.toolchain.gcc import cpu_model
from supercoder.verify import unseen
from supercoder.verify.evaluate import CheckConfig, evaluate

ANSWERS = {
    "dp_edit_distance": ("-O2", "-fno-tree-vectorize"),
    "graph_floyd": ("-O3", "-funroll-loops"),
    "str_palindromes": ("-Os",),
    "graph_dijkstra": ("-Os", "-mtune=native", "-funroll-loops"),
    "sim_life": ("-O1",),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checks", type=int, default=3)
    ap.add_argument("--settings", nargs="+", default=["5:0.012", "5:0.02", "3:0.02"])
    args = ap.parse_args()
    settings = [(int(d), float(t)) for d, t in (s.split(":") for s in args.settings)]
    print(f"{cpu_model()} | {len(ANSWERS)} answers x {args.checks} checks per setting")
    problems = {n: load_problem(BUNDLED_ROOT / n) for n in ANSWERS}
    answers = {n: compile_baseline(p.source, (*p.cflags, *ANSWERS[n])) for n, p in problems.items()}
    table: dict[tuple[int, float], dict[str, list]] = {s: {} for s in settings}
    start = time.time()
    for _ in range(args.checks):
        for setting in settings:  # settings take turns, so a slow spell hits them all
            unseen.DRAWS, unseen.TARGET_SECONDS = setting
            for name, problem in problems.items():
                v = evaluate(problem, answers[name], CheckConfig())
                if v.speedup is not None:
                    table[setting].setdefault(name, []).append(v)
    header = "".join(f"{f'{d} x {t * 1000:.0f} ms':>22}" for d, t in settings)
    print(f"{'answer':18}{header}")
    for name in ANSWERS:
        cells = []
        for setting in settings:
            vs = table[setting].get(name, [])
            geo = math.exp(statistics.mean(math.log(v.speedup.value) for v in vs)) if vs else 0
            cells.append(f"{geo:>22.3f}")
        print(f"{name:18}{''.join(cells)}")
    for setting in settings:
        vs = [v for group in table[setting].values() for v in group]
        half = statistics.median((math.log(v.speedup.high / v.speedup.low)) / 2 for v in vs)
        cpu = statistics.mean(v.cpu_seconds_spent for v in vs)
        geo = math.exp(statistics.mean(math.log(v.speedup.value) for v in vs))
        d, t = setting
        print(
            f"{d} draws x {t * 1000:.0f} ms: geomean {geo:.3f}x  CI +-{half * 100:.2f}%"
            f"  CPU/check {cpu:.2f} s"
        )
    print(f"({time.time() - start:.0f}s wall)")


if __name__ == "__main__":
    main()
