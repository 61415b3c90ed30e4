import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 10), (5, 30), (6, 80), (7, 150), (8, 400), (9, 400)]
EDGE = [
    "1 1 2\n5\n1 1 5\n1 1 4\n",
    "2 3 2\n-1 -2 -3\n-4 -5 -6\n2 3 -21\n3 1 0\n",
    "3 3 1\n0 0 0\n0 0 0\n0 0 0\n2 2 0\n",
]
HIDDEN = [(2301, 12), (2302, 400)]


def generate(seed: int, size: int) -> str:
    """an R x C grid (about size x size) of values in [-50, 99] and q window queries."""
    rng = random.Random(seed)
    r = max(1, size + rng.randint(-size // 10, size // 10))
    c = max(1, size + rng.randint(-size // 10, size // 10))
    r, c = min(r, 500), min(c, 500)
    q = max(1, min(400, size))
    rows = [" ".join(str(rng.randint(-50, 99)) for _ in range(c)) for _ in range(r)]
    qs = []
    for _ in range(q):
        if rng.random() < 0.8:
            h, w = rng.randint(1, max(1, r // 8)), rng.randint(1, max(1, c // 8))
        else:
            h, w = rng.randint(1, r + 1), rng.randint(1, c + 1)
        t = rng.randint(-100, 50 * h * w)
        qs.append(f"{h} {w} {t}")
    return f"{r} {c} {q}\n" + "\n".join(rows) + "\n" + "\n".join(qs) + "\n"
