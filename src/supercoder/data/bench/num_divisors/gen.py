import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 6),
    (4, 28),
    (5, 500),
    (6, 10000),
    (7, 200000),
    (8, 1500000),
    (9, 1800000),
]
EDGE = ["1 1\n1\n", "30 3\n6\n28\n30\n", "8128 2\n8128\n7560\n"]
HIDDEN = [(35, 100), (36, 1700000)]


def generate(seed: int, size: int) -> str:
    """N = size and a few queries k <= N."""
    rng = random.Random(seed)
    q = rng.randint(1, 20)
    ks = [rng.randint(1, size) for _ in range(q)]
    return f"{size} {q}\n" + "\n".join(map(str, ks)) + "\n"
