import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 10), (5, 40), (6, 100), (7, 200), (8, 400), (9, 400)]
EDGE = ["1 1\n-7\n", "2 3\n1 0 0\n0 1 0\n", "3 2\n100 -100\n100 100\n0 0\n"]
HIDDEN = [(2001, 15), (2002, 400)]


def generate(seed: int, size: int) -> str:
    """an n x m matrix (n, m around size) of small signed entries, sparse or dense."""
    rng = random.Random(seed)
    n = max(1, size + rng.randint(-size // 5, size // 5))
    m = max(1, size + rng.randint(-size // 5, size // 5))
    n, m = min(n, 500), min(m, 500)
    dens = rng.choice([0.05, 0.5, 1.0])
    rows = []
    for _ in range(n):
        rows.append(
            " ".join(str(rng.randint(-100, 100) if rng.random() < dens else 0) for _ in range(m))
        )
    return f"{n} {m}\n" + "\n".join(rows) + "\n"
