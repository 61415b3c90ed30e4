import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 17),
    (5, 100),
    (6, 2000),
    (8, 30000),
    (7, 250000),
    (10, 300000),
]
EDGE = ["0\n", "1\n-2147483648\n", "5\n2147483647 -5 0 -5 2147483647\n", "8\n1 1 1 1 1 1 1 1\n"]
HIDDEN = [(48, 50), (52, 280000)]


def generate(seed: int, size: int) -> str:
    """size values: full-range random, few distinct values (slow for Lomuto) or sorted runs."""
    rng = random.Random(seed)
    kind = seed % 3
    if kind == 0:
        vals = [rng.randint(-(2**31), 2**31 - 1) for _ in range(size)]
    elif kind == 1:
        hi = max(1, size // 700)
        vals = [rng.randint(0, hi) for _ in range(size)]
    else:
        vals = sorted(rng.randint(-1000, 10**6) for _ in range(size))
        for _ in range(size // 20):
            i, j = rng.randrange(size), rng.randrange(size)
            vals[i], vals[j] = vals[j], vals[i]
    return f"{size}\n" + " ".join(map(str, vals)) + "\n"
