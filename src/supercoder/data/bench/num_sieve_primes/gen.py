import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 10),
    (4, 100),
    (5, 1000),
    (6, 50000),
    (7, 700000),
    (8, 8000000),
    (9, 10000000),
]
EDGE = ["1\n0 0\n", "3\n1 1\n2 2\n0 10\n", "2\n20000000 20000000\n1 20000000\n"]
HIDDEN = [(15, 500), (16, 9000000)]


def generate(seed: int, size: int) -> str:
    """q range queries [l, r] with r <= size."""
    rng = random.Random(seed)
    q = rng.randint(1, 30) if size < 10**5 else 2000
    out = [str(q)]
    for _ in range(q):
        a, b = rng.randint(0, size), rng.randint(0, size)
        if a > b:
            a, b = b, a
        out.append(f"{a} {b}")
    out[-1] = f"{rng.randint(0, size // 2)} {size}"
    return "\n".join(out) + "\n"
