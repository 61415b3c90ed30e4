import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 10), (5, 20), (6, 40), (7, 80), (8, 200), (9, 200)]
EDGE = [
    "1 3\n1\n1\n0\n1\n1000000000000000000\n",
    "2 5\n1 1\n0 1\n0\n1\n2\n10\n90\n",
    "3 2\n0 0 0\n5 6 7\n3\n1000\n",
]
HIDDEN = [(2201, 7), (2202, 200)]


def generate(seed: int, size: int) -> str:
    """order k up to 16; size queries of indices up to 10^18."""
    rng = random.Random(seed)
    k = rng.randint(1, 16) if size < 100 else rng.randint(13, 16)
    q = size
    coef = [rng.randint(0, 10**9 + 6) for _ in range(k)]
    init = [rng.randint(0, 10**9 + 6) for _ in range(k)]
    ns = [rng.randint(0, 10**18) if rng.random() < 0.8 else rng.randint(0, 50) for _ in range(q)]
    return (
        f"{k} {q}\n"
        + " ".join(map(str, coef))
        + "\n"
        + " ".join(map(str, init))
        + "\n"
        + "\n".join(map(str, ns))
        + "\n"
    )
