import random

CASES = [(1, 2), (2, 3), (3, 5), (4, 30), (5, 200), (6, 1000), (7, 3000), (8, 11000), (9, 11000)]
EDGE = [
    "1\n0 0\n",
    "2\n-1000000000 -1000000000\n1000000000 1000000000\n",
    "4\n1 1\n1 1\n2 2\n1 1\n",
]
HIDDEN = [(1601, 10), (1602, 11000)]


def generate(seed: int, size: int) -> str:
    """size points; coordinate range chosen so the closest pair is sometimes a tie or a duplicate."""
    rng = random.Random(seed)
    span = rng.choice([10, 1000, 10**6, 10**9])
    pts = [(rng.randint(-span, span), rng.randint(-span, span)) for _ in range(size)]
    return f"{size}\n" + "\n".join(f"{x} {y}" for x, y in pts) + "\n"
