import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 12), (5, 40), (6, 200), (7, 1000), (8, 5000), (9, 6000)]
EDGE = [
    "1 0 0\n",
    "2 1 1\n1 2\n1\n",
    "3 3 3\n1 2\n2 3\n1 2\n1\n2\n3\n",
    "4 4 2\n1 1\n2 3\n3 4\n4 2\n1\n4\n",
]
HIDDEN = [(51, 25), (52, 5500)]


def generate(seed: int, size: int) -> str:
    """a forest of 'blobs' (cycles and extra edges) joined by tree edges: plenty of bridges."""
    rng = random.Random(seed)
    n = size
    edges = []
    for v in range(2, n + 1):
        if rng.random() < 0.95:
            edges.append((rng.randint(max(1, v - 30), v - 1), v))
    extra = rng.randint(0, n)
    for _ in range(extra):
        u = rng.randint(1, n)
        edges.append((u, min(n, u + rng.randint(0, 6))))
    rng.shuffle(edges)
    m = len(edges)
    q = min(m, 2000) if n >= 1000 else min(m, rng.randint(0, 20))
    qs = [rng.randint(1, m) for _ in range(q)]
    return (
        f"{n} {m} {q}\n" + "".join(f"{u} {v}\n" for u, v in edges) + "".join(f"{e}\n" for e in qs)
    )
