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

``--draw`` measures drawing itself instead (issue 42): for inputs of real contest sizes
(``16 100000``, 2^16 numbers, 100,000 queries: 1.8 MB; a 700 x 700 grid; 200,000
words), the input model is inferred from the same inputs by the code of ``--before``
(a git revision; the token-by-token drawing) and by this checkout, and a check's five
top-stratum draws are made within the host's budget (``inputmodel.DRAW_SECONDS``). It
prints, side by side, the host CPU per draw, how many of the five were drawn (the rest
over the budget) and the largest drawn, then the ratio, and the host CPU inference took
(multi-case games whose tail is lines of 1-3 tokens; ``m:ss`` times: issue 42).

usage: python benchmarks/draw_size.py --draw [--before b72d302]
"""

from __future__ import annotations

import argparse
import math
import random
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


def _contest(rng: random.Random, k: int = 16, q: int = 100_000) -> bytes:
    n = 1 << k
    rows = []
    for _ in range(q):
        a, b = rng.randint(1, n), rng.randint(1, n)
        rows.append(f"{min(a, b)} {max(a, b)}")
    nums = " ".join(str(rng.randint(0, 10**9)) for _ in range(n))
    return (f"{k} {q}\n{nums}\n" + "\n".join(rows) + "\n").encode()


def _grid(rng: random.Random, n: int = 700) -> bytes:
    rows = [" ".join(str(rng.randint(0, 999)) for _ in range(n)) for _ in range(n)]
    return (f"{n} {n}\n" + "\n".join(rows) + "\n").encode()


def _words(rng: random.Random, n: int = 200_000) -> bytes:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ("".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(n))
    return (f"{n}\n" + "\n".join(words) + "\n").encode()


def _games(rng: random.Random, t: int = 150) -> bytes:
    """``T`` games (``w h s``, two boards of ``_#``, ``s`` shots): no count explains the
    lines after the first, so the model's tail is lines of 1-3 tokens."""
    out = [str(t)]
    for _ in range(t):
        w = h = 30
        out.append(f"{w} {h} {2 * w * h}")
        out += ["".join(rng.choice("_#") for _ in range(w)) for _ in range(2 * h)]
        out += [f"{rng.randrange(w)} {rng.randrange(h)}" for _ in range(2 * w * h)]
    return ("\n".join(out) + "\n").encode()


def _times(rng: random.Random, n: int = 100_000) -> bytes:
    """``n c`` then ``n`` durations ``m:ss``."""
    rows = [f"{rng.randint(0, 9)}:{rng.randint(0, 59):02d}" for _ in range(n)]
    return (f"{n} 7\n" + "\n".join(rows) + "\n").encode()


SHAPES = {
    "contest 16 100000": _contest,
    "grid 700x700": _grid,
    "200000 words": _words,
    "150 games (T cases)": _games,
    "100000 m:ss times": _times,
}


def _module_at(rev: str):
    """``problems/inputmodel.py`` as it was at git revision ``rev``, imported apart."""
    import importlib.util
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = subprocess.run(
        ["git", "-C", str(root), "show", f"{rev}:src/supercoder/problems/inputmodel.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "inputmodel_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("inputmodel_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["inputmodel_before"] = module
    spec.loader.exec_module(module)
    return module


def _draws(module, inputs: list[bytes]) -> tuple[float, int, int, float]:
    """(host CPU seconds per drawn input, inputs drawn of 5, the largest in bytes, host
    CPU seconds to infer the model)."""
    start = time.process_time()
    model = module.infer(inputs).with_domain({"version": 1, "grow": 1.0})
    inferred = time.process_time() - start
    start = time.process_time()
    try:
        drawn = model.draw(random.Random(1), 5, strata=(0.8, 0.9, 1.0, 1.0, 1.0))
    except module.DrawRefused:
        drawn = []
    took = time.process_time() - start
    big = max((len(d) for d in drawn), default=0)
    return took / max(1, len(drawn)), len(drawn), big, inferred


def draw_main(before: str) -> None:
    from supercoder.problems import inputmodel

    old = _module_at(before)
    print(f"{cpu_model()} | drawing five top-stratum inputs, before ({before}) and now")
    print(
        f"{'inputs':20}{'MB':>6}{'before ms/draw':>16}{'drawn':>7}{'largest':>9}"
        f"{'now ms/draw':>13}{'drawn':>7}{'largest':>9}{'ratio':>8}"
        f"{'infer s before':>16}{'now':>6}"
    )
    for name, make in SHAPES.items():
        rng = random.Random(name)
        inputs = [make(rng), make(rng)]
        t0, n0, big0, i0 = _draws(old, inputs)
        t1, n1, big, i1 = _draws(inputmodel, inputs)
        mb = max(len(d) for d in inputs) / 1e6
        print(
            f"{name:20}{mb:>6.2f}{1000 * t0:>16.1f}{n0:>5}/5{big0 / 1e6:>8.2f}M"
            f"{1000 * t1:>13.1f}{n1:>5}/5{big / 1e6:>8.2f}M{t0 / max(t1, 1e-9):>7.1f}x"
            f"{i0:>16.2f}{i1:>6.2f}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checks", type=int, default=3)
    ap.add_argument("--settings", nargs="+", default=["5:0.012", "5:0.02", "3:0.02"])
    ap.add_argument("--draw", action="store_true", help="time drawing itself (issue 42)")
    ap.add_argument("--before", default="b72d302", help="git revision of the earlier drawing")
    args = ap.parse_args()
    if args.draw:
        draw_main(args.before)
        return
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
