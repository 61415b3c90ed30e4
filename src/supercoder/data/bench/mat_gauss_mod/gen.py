import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 5), (5, 12), (6, 40), (7, 100), (8, 450), (9, 450)]
EDGE = [
    "1\n0\n",
    "2\n1 2\n2 4\n",
    "3\n-1 0 0\n0 998244353 5\n0 0 7\n",
    "2\n0 1\n1 0\n",
]
HIDDEN = [(2101, 8), (2102, 450)]


def generate(seed: int, size: int) -> str:
    """an n x n matrix; sometimes rows are combinations of others so the rank drops."""
    rng = random.Random(seed)
    n = size
    hi = rng.choice([3, 1000, 10**6])
    rows = [[rng.randint(-hi, hi) for _ in range(n)] for _ in range(n)]
    if n > 2 and rng.random() < 0.5:
        for _ in range(rng.randint(1, max(1, n // 10))):
            a, b, c = rng.randrange(n), rng.randrange(n), rng.randrange(n)
            if c not in (a, b):
                x, y = rng.randint(-3, 3), rng.randint(-3, 3)
                rows[c] = [x * u + y * v for u, v in zip(rows[a], rows[b], strict=True)]
    return f"{n}\n" + "\n".join(" ".join(map(str, r)) for r in rows) + "\n"
