"""The visible inputs a contestant has for the contest programs in ``real_corpus.toml``.

``python benchmarks/contest_inputs.py PROBLEM DIR`` writes into DIR the inputs a user
would hold before making a problem of a contest solution: the statement's small sample
(``sample``) and one or two large inputs at the problem's published limits (``large``,
``mid``), as a contestant writes them to test the time limit (the judges' secret data is
not public for these problems). Deterministic (seeded), standard library only; the shapes
are the ones real contest inputs have: a graph of 1e5 nodes, 1e5 queries after the data,
a grid then a permutation, many test cases, ``m:ss`` times, names with particles.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

Gen = Callable[[random.Random, str], str]


def kruidnoten(r: random.Random, size: str) -> str:
    """n m k; m weighted edges (connected); k stores ``v p``, one with p = 1."""
    n, m, k = {"sample": (4, 4, 2), "mid": (5000, 10000, 200), "large": (50000, 100000, 2000)}[size]
    edges = [(i, r.randint(1, i - 1)) for i in range(2, n + 1)]  # a spanning tree
    edges += [(r.randint(1, n), r.randint(1, n)) for _ in range(m - len(edges))]
    lines = [f"{n} {m} {k}"]
    lines += [f"{u} {v} {r.randint(1, 10**6)}" for u, v in edges]
    stores = r.sample(range(1, n + 1), k)
    probs = [f"{r.randint(1, 99) / 100:.2f}" for _ in range(k - 1)] + ["1.00"]
    lines += [f"{v} {p}" for v, p in zip(stores, probs, strict=True)]
    return "\n".join(lines) + "\n"


def dutchdemocracy(r: random.Random, size: str) -> str:
    """n parties (n <= 60) and their seats (<= 10000): a subset-sum DP."""
    n, hi = {"sample": (4, 10), "mid": (20, 2000), "large": (40, 5000)}[size]
    return f"{n}\n" + " ".join(str(r.randint(1, hi)) for _ in range(n)) + "\n"


def alphabeticalaristocrats(r: random.Random, size: str) -> str:
    """n <= 1000 names of up to 50 characters: particles, then a capitalised name."""
    n = {"sample": 5, "mid": 200, "large": 1000}[size]
    particles = ["van", "der", "de", "von", "den", "ter", "la"]
    names = set()
    while len(names) < n:
        words = r.sample(particles, r.randint(0, 2))
        last = r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + "".join(
            r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 12))
        )
        names.add(" ".join([*words, last]))
    return f"{n}\n" + "\n".join(sorted(names, key=lambda _: r.random())) + "\n"


def evolvingetymology(r: random.Random, size: str) -> str:
    """N K then a word of N letters (N <= 1e5, K <= 1e18)."""
    n = {"sample": 6, "mid": 10000, "large": 100000}[size]
    k = r.randint(1, 10**18) if size != "sample" else 2
    return f"{n} {k}\n" + "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n)) + "\n"


def jazzenthusiast(r: random.Random, size: str) -> str:
    """n songs and a pause c, then n durations ``m:ss``."""
    n = {"sample": 3, "mid": 5000, "large": 100000}[size]
    lines = [f"{n} {r.randint(1, 20)}"]
    lines += [f"{r.randint(0, 9)}:{r.randint(0, 59):02d}" for _ in range(n)]
    return "\n".join(lines) + "\n"


def alienattack2(r: random.Random, size: str) -> str:
    """n people and m friendships ``a b``: the largest connected group."""
    n, m = {"sample": (5, 3), "mid": (10000, 10000), "large": (100000, 150000)}[size]
    lines = [f"{n} {m}"] + [f"{r.randint(1, n)} {r.randint(1, n)}" for _ in range(m)]
    return "\n".join(lines) + "\n"


def candydistribution(r: random.Random, size: str) -> str:
    """T test cases ``K C`` (<= 1e9): a modular inverse each."""
    t = {"sample": 3, "mid": 10000, "large": 100000}[size]
    lines = [str(t)] + [f"{r.randint(1, 10**9)} {r.randint(1, 10**9)}" for _ in range(t)]
    return "\n".join(lines) + "\n"


def gluedgrid(r: random.Random, size: str) -> str:
    """h w, h rows of ``.#`` (the corner free), then a permutation of 1..h*w as h rows."""
    h, w = {"sample": (2, 3), "mid": (100, 100), "large": (500, 500)}[size]
    rows = ["".join("#" if r.random() < 0.1 else "." for _ in range(w)) for _ in range(h)]
    rows[0] = "." + rows[0][1:]
    rows[-1] = rows[-1][:-1] + "."
    perm = list(range(1, h * w + 1))
    r.shuffle(perm)
    lines = [f"{h} {w}", *rows]
    lines += [" ".join(map(str, perm[i * w : (i + 1) * w])) for i in range(h)]
    return "\n".join(lines) + "\n"


def mousetrap(r: random.Random, size: str) -> str:
    """n vertices of a convex polygon (counter-clockwise, |x|, |y| <= 1e9)."""
    n = {"sample": 4, "mid": 10000, "large": 100000}[size]
    if size == "sample":
        return "4\n0 0\n4 0\n4 4\n0 4\n"
    xs = sorted(r.sample(range(-(10**9), 10**9), n // 2))  # lower chain of a parabola
    pts = [(x, (x // 50000) ** 2 // 2000 - 10**9) for x in xs]
    pts += [(x, 10**9 - (x // 50000) ** 2 // 2000) for x in reversed(xs)]
    return f"{len(pts)}\n" + "\n".join(f"{x} {y}" for x, y in pts) + "\n"


def battleship(r: random.Random, size: str) -> str:
    """T games: w h shots, two w x h boards of ``_#``, then the shots ``x y``."""
    t = {"sample": 2, "mid": 30, "large": 150}[size]
    out = [str(t)]
    for _ in range(t):
        w, h = (r.randint(2, 5), r.randint(2, 5)) if size == "sample" else (30, 30)
        shots = [(r.randrange(w), r.randrange(h)) for _ in range(w * h * 2)]
        out.append(f"{w} {h} {len(shots)}")
        for _ in range(2):
            out += ["".join("#" if r.random() < 0.05 else "_" for _ in range(w)) for _ in range(h)]
        out += [f"{x} {y}" for x, y in shots]
    return "\n".join(out) + "\n"


GENERATORS: dict[str, Gen] = {
    f.__name__: f
    for f in (
        kruidnoten,
        dutchdemocracy,
        alphabeticalaristocrats,
        evolvingetymology,
        jazzenthusiast,
        alienattack2,
        candydistribution,
        gluedgrid,
        mousetrap,
        battleship,
    )
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in GENERATORS:
        print(f"usage: contest_inputs.py {{{','.join(GENERATORS)}}} DIR", file=sys.stderr)
        return 2
    name, folder = argv[0], Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for size in ("sample", "mid", "large"):
        text = GENERATORS[name](random.Random(f"{name}/{size}"), size)
        (folder / size).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
