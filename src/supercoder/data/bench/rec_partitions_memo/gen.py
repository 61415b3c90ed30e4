import random

CASES = [(1, 1), (2, 3), (3, 10), (4, 30), (5, 100), (6, 300), (7, 800), (8, 2400), (9, 2400)]
EDGE = ["1\n0 0\n", "3\n1 1\n5 5\n5 2\n", "2\n2400 2400\n2400 1\n"]
HIDDEN = [(2801, 50), (2802, 2400)]


def generate(seed: int, size: int) -> str:
    """queries (n, k) with n up to size (the largest always asked first)."""
    rng = random.Random(seed)
    q = rng.randint(1, 20)
    lines = [str(q)]
    for i in range(q):
        n = size if i == 0 else rng.randint(0, size)
        k = n if i == 0 else rng.randint(0, size)
        lines.append(f"{n} {k}")
    return "\n".join(lines) + "\n"
