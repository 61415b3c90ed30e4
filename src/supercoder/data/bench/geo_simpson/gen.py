import random

CASES = [
    (1, 2),
    (2, 4),
    (3, 10),
    (4, 50),
    (5, 200),
    (6, 1000),
    (7, 10000),
    (8, 6000000),
    (9, 6000000),
]
EDGE = [
    "1\n0 0 0 0 0 0 1 2\n",
    "2\n1 1 0 0 0 0 3.14159265358979 1\n0 0 1 1 0 -5 5 1000\n",
    "1\n0 0 0 0 3 2 2 10\n",
]
HIDDEN = [(1501, 100), (1502, 6000000)]


def num(rng, lo, hi):
    return f"{rng.uniform(lo, hi):.3f}"


def generate(seed: int, size: int) -> str:
    """a few integrals whose subdivision counts add up to about size."""
    rng = random.Random(seed)
    q = rng.randint(1, 8)
    lines = [str(q)]
    for _ in range(q):
        lo = rng.uniform(-10, 10)
        hi = lo + rng.uniform(0.01, 20)
        n = max(2, size // q + rng.randint(0, 7))
        lines.append(
            " ".join(
                [
                    num(rng, -5, 5),
                    num(rng, 0, 8),
                    num(rng, -5, 5),
                    num(rng, 0.01, 3),
                    num(rng, -2, 2),
                    f"{lo:.4f}",
                    f"{hi:.4f}",
                    str(n),
                ]
            )
        )
    return "\n".join(lines) + "\n"
