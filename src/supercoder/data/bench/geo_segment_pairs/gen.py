import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 20), (5, 100), (6, 400), (7, 1000), (8, 3200), (9, 3200)]
EDGE = [
    "1\n0 0 5 5\n",
    "2\n0 0 4 4\n0 4 4 0\n",
    "4\n0 0 2 0\n2 0 4 0\n1 0 3 0\n5 5 5 5\n",
]
HIDDEN = [(1801, 30), (1802, 3200)]


def generate(seed: int, size: int) -> str:
    """size segments: long and short ones on a grid coarse enough to produce touches."""
    rng = random.Random(seed)
    span = rng.choice([20, 1000, 10**6])
    lines = [str(size)]
    for _ in range(size):
        x1, y1 = rng.randint(0, span), rng.randint(0, span)
        if rng.random() < 0.5:
            x2, y2 = rng.randint(0, span), rng.randint(0, span)
        else:
            d = max(1, span // 20)
            x2, y2 = x1 + rng.randint(-d, d), y1 + rng.randint(-d, d)
        lines.append(f"{x1} {y1} {x2} {y2}")
    return "\n".join(lines) + "\n"
