import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 10), (5, 30), (6, 80), (7, 150), (8, 420), (9, 500)]
EDGE = [
    "1 0 1\n1 1\n",
    "3 2 3\n1 2 5\n2 3 7\n1 3\n3 1\n2 2\n",
    "2 3 2\n1 2 9\n1 2 4\n2 1 100000\n1 2\n2 1\n",
]
HIDDEN = [(91, 25), (92, 470)]


def generate(seed: int, size: int) -> str:
    """directed graph, size nodes, density varies with the seed."""
    rng = random.Random(seed)
    n = size
    per_node = rng.choice([1, 3, 8])
    m = rng.randint(0, per_node * n)
    if n >= 60:
        m = rng.randint(3 * n, 6 * n)
    wmax = rng.choice([10, 100000])
    edges = [f"{rng.randint(1, n)} {rng.randint(1, n)} {rng.randint(0, wmax)}" for _ in range(m)]
    q = min(50, n * n)
    qs = [f"{rng.randint(1, n)} {rng.randint(1, n)}" for _ in range(q)]
    return f"{n} {m} {q}\n" + "\n".join(edges + qs) + "\n"
