import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 10), (5, 100), (6, 1000), (7, 3000), (8, 8000), (9, 9000)]
EDGE = [
    "1\n-7\n",
    "5\n1 2 3 4 5\n",
    "5\n5 4 3 2 1\n",
    "6\n2147483647 -2147483648 0 0 -2147483648 2147483647\n",
]
HIDDEN = [(39, 25), (42, 8500)]


def generate(seed: int, size: int) -> str:
    """random, nearly-sorted or few-distinct arrays of length size."""
    rng = random.Random(seed)
    kind = seed % 3
    if kind == 0:
        vals = [rng.randint(-(2**31), 2**31 - 1) for _ in range(size)]
    elif kind == 1:
        vals = list(range(size))
        for _ in range(max(1, size // 10)):
            i = rng.randrange(size)
            j = min(size - 1, i + rng.randint(0, 50))
            vals[i], vals[j] = vals[j], vals[i]
    else:
        vals = [rng.randint(0, 5) for _ in range(size)]
    return f"{size}\n" + " ".join(map(str, vals)) + "\n"
