import random

CASES = [(1, 0), (2, 1), (3, 2), (4, 3), (5, 5), (6, 8), (7, 10), (8, 16), (9, 16)]
EDGE = [
    "0\n1000000006\n",
    "2\n0 0 0 0\n",
    "3\n1000000006 1000000006 1000000006 1000000006 1000000006 1000000006 1000000006 1000000006\n",
]
HIDDEN = [(301, 6), (302, 16)]


def generate(seed: int, size: int) -> str:
    """size = number of bits n; 2^n values below 10^9+7."""
    rng = random.Random(seed)
    n = size
    vals = []
    for _ in range(1 << n):
        if rng.random() < 0.2:
            vals.append(rng.randint(0, 10))
        else:
            vals.append(rng.randint(0, 1000000006))
    return f"{n}\n" + " ".join(map(str, vals)) + "\n"
