import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 12), (5, 40), (6, 150), (7, 1000), (8, 7000), (9, 8000)]
EDGE = ["1 0 1\n1\n", "2 1 2\n1 2 1000000000\n1\n2\n", "4 2 2\n1 2 5\n3 4 7\n1\n4\n"]
HIDDEN = [(61, 30), (62, 7500)]


def generate(seed: int, size: int) -> str:
    """size nodes, ~4*size undirected edges (parallel edges and self loops allowed)."""
    rng = random.Random(seed)
    n = size
    m = rng.randint(max(0, n - 1), 4 * n) if n > 1 else rng.randint(0, 2)
    wmax = rng.choice([10, 1000, 10**9])
    edges = []
    for i in range(2, n + 1):  # random spanning tree for most cases so most nodes are reachable
        if len(edges) < m and seed % 5:
            edges.append((rng.randint(1, i - 1), i, rng.randint(1, wmax)))
    while len(edges) < m:
        edges.append((rng.randint(1, n), rng.randint(1, n), rng.randint(1, wmax)))
    rng.shuffle(edges)
    k = 60 if n >= 5000 else rng.randint(1, 5)
    srcs = [rng.randint(1, n) for _ in range(k)]
    return (
        f"{n} {m} {k}\n"
        + "".join(f"{u} {v} {w}\n" for u, v, w in edges)
        + "\n".join(map(str, srcs))
        + "\n"
    )
