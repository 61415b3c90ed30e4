import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 12), (5, 80), (6, 500), (7, 2500), (8, 6500), (9, 7000)]
EDGE = [
    "1 5\n5\n",
    "3 0\n0 0 0\n",
    "5 6\n1 2 3 3 3\n",
    "4 -3000000000000000000\n-1000000000000000000 -1000000000000000000 -1000000000000000000 7\n",
]
HIDDEN = [(23, 20), (24, 6800)]


def generate(seed: int, size: int) -> str:
    """size values in a small or large range; K near a typical triple sum so counts are non-trivial."""
    rng = random.Random(seed)
    hi = rng.choice([10, 1000, 10**9])
    vals = [rng.randint(-hi, hi) for _ in range(size)]
    if seed % 2:
        vals.sort(reverse=True)  # worst case for insertion sort
    K = rng.randint(-hi, hi)
    return f"{size} {K}\n" + " ".join(map(str, vals)) + "\n"
