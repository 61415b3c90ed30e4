import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 200), (6, 2000), (7, 10000), (8, 40000), (9, 50000)]
EDGE = [
    "1 1\n42\n0 0 1\n",
    "5 3\n5 1 4 2 3\n0 4 1\n0 4 5\n1 3 2\n",
    "4 2\n-2147483648 2147483647 0 0\n0 3 1\n0 3 4\n",
]
HIDDEN = [(57, 30), (58, 45000)]


def generate(seed: int, size: int) -> str:
    """n = size values and q queries 'l r k' (0-based inclusive range, 1-based k)."""
    rng = random.Random(seed)
    hi = rng.choice([3, 1000, 2**31 - 1])
    vals = [rng.randint(-hi - 1 if hi > 1000 else 0, hi) for _ in range(size)]
    q = 1000 if size >= 20000 else rng.randint(1, 30)
    qs = []
    for _ in range(q):
        lo = rng.randrange(size)
        hi_idx = rng.randrange(size)
        if lo > hi_idx:
            lo, hi_idx = hi_idx, lo
        qs.append(f"{lo} {hi_idx} {rng.randint(1, hi_idx - lo + 1)}")
    return f"{size} {q}\n" + " ".join(map(str, vals)) + "\n" + "\n".join(qs) + "\n"
