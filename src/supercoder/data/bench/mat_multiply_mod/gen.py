import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 7), (5, 20), (6, 60), (7, 120), (8, 280), (9, 280)]
EDGE = [
    "1\n1000000006\n1000000006\n",
    "2\n0 0\n0 0\n1 2\n3 4\n",
    "3\n1 0 0\n0 1 0\n0 0 1\n5 6 7\n8 9 10\n11 12 13\n",
]
HIDDEN = [(1901, 9), (1902, 280)]


def generate(seed: int, size: int) -> str:
    """two size x size matrices, entries either small or up to 10^9+6."""
    rng = random.Random(seed)
    hi = rng.choice([9, 1000, 1000000006])
    rows = []
    for _ in range(2 * size):
        rows.append(" ".join(str(rng.randint(0, hi)) for _ in range(size)))
    return f"{size}\n" + "\n".join(rows) + "\n"
