import random

CASES = [(1, 1), (2, 2), (3, 6), (4, 20), (5, 100), (6, 700), (7, 3000), (8, 9000), (9, 11000)]
EDGE = ["1 0\n", "3 3\n1 2\n2 3\n3 1\n", "4 5\n1 2\n1 3\n2 4\n3 4\n1 4\n", "2 2\n1 2\n1 2\n"]
HIDDEN = [(71, 50), (72, 10000)]


def generate(seed: int, size: int) -> str:
    """DAG on a hidden random order (sometimes with one back edge making a cycle)."""
    rng = random.Random(seed)
    n = size
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    m = rng.randint(0, 4 * n) if n > 1 else 0
    span = max(1, n // rng.choice([1, 5, 40]))
    if n >= 5000:  # large: dense reachability
        m, span = 2 * n, n // rng.choice([1, 2])
    edges = []
    for _ in range(m):
        i = rng.randrange(n - 1)
        reach = span if rng.random() < 0.6 else min(span, 8)
        j = min(n - 1, i + 1 + rng.randrange(reach))
        edges.append((perm[i], perm[j]))
    if n >= 5000:  # large: a mostly unbroken chain, so reachability is dense
        edges += [(perm[i], perm[i + 1]) for i in range(n - 1) if rng.random() < 0.97]
    if n > 2 and seed % 4 == 3 and size < 1000:
        i = rng.randrange(1, n)
        edges.append((perm[i], perm[rng.randrange(i)]))
    rng.shuffle(edges)
    return f"{n} {len(edges)}\n" + "".join(f"{u} {v}\n" for u, v in edges)
