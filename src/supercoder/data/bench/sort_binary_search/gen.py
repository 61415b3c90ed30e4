import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 30), (5, 300), (6, 3000), (7, 20000), (8, 60000), (9, 70000)]
EDGE = [
    "1\n5\n3 7 1\n",
    "4\n-1000000000000 0 0 1000000000000\n5 1 2000000000000\n",
    "3\n2 2 2\n1 0 1\n",
]
HIDDEN = [(27, 40), (28, 65000)]


def generate(seed: int, size: int) -> str:
    """n = size sorted-later values and q range-count queries drawn in-program (LCG seed, span)."""
    rng = random.Random(seed)
    hi = rng.choice([10, 10**6, 10**12])
    vals = [rng.randint(-hi, hi) for _ in range(size)]
    q = 600000 if size >= 50000 else rng.randint(1, 200)
    span = rng.randint(1, 2 * hi + 1)
    return f"{size}\n" + " ".join(map(str, vals)) + f"\n{q} {rng.randint(0, 2**32 - 1)} {span}\n"
