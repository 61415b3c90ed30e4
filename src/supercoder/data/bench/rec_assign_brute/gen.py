import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 5), (5, 7), (6, 8), (7, 9), (8, 10), (9, 10)]
EDGE = [
    "1\n1\n-5\n",
    "1\n3\n0 0 0\n0 0 0\n0 0 0\n",
    "2\n2\n1000000 -1000000\n-1000000 1000000\n2\n1 2\n3 4\n",
]
HIDDEN = [(2601, 6), (2602, 10)]


def generate(seed: int, size: int) -> str:
    """one matrix of order size (plus a small one), costs from a narrow or a wide range."""
    rng = random.Random(seed)
    t = 2 if size >= 10 else rng.randint(1, 2)
    lines = [str(t)]
    for i in range(t):
        n = size if (i == 0 or size >= 10) else rng.randint(1, min(size, 7))
        hi = rng.choice([3, 100, 10**6])
        lines.append(str(n))
        for _ in range(n):
            lines.append(" ".join(str(rng.randint(-hi, hi)) for _ in range(n)))
    return "\n".join(lines) + "\n"
