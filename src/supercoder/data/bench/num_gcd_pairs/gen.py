import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 10), (5, 50), (6, 200), (7, 600), (8, 1500), (9, 1700)]
EDGE = ["1\n7\n", "3\n0 0 5\n", "4\n1000000000000 999999999999 500000000000 1\n"]
HIDDEN = [(25, 12), (26, 1600)]


def generate(seed: int, size: int) -> str:
    """size values; some seeds share small prime factors so gcds are large."""
    rng = random.Random(seed)
    hi = rng.choice([100, 10**6, 10**12])
    if seed % 3 == 0:
        base = [2, 3, 5, 7, 11, 13]
        vals = []
        for _ in range(size):
            v = 1
            for p in base:
                v *= p ** rng.randint(0, 3)
            vals.append(v * rng.randint(1, 1000))
    else:
        vals = [rng.randint(1, hi) for _ in range(size)]
    return f"{size}\n" + " ".join(map(str, vals)) + "\n"
