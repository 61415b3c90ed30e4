import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 10), (5, 30), (6, 100), (7, 150), (8, 500), (9, 700)]
EDGE = [
    "1 0\n5 10\n",
    "1 5\n5 7\n",
    "3 10\n20 1\n30 2\n40 3\n",
    "4 6\n0 3\n2 1000000000\n2 1000000000\n3 1\n",
]
HIDDEN = [(77, 12), (78, 600)]


def generate(seed: int, size: int) -> str:
    """size items; capacity grows with size so large cases do n*W ~ 10^8 cell updates."""
    rng = random.Random(seed)
    n = size
    cap = min(300000, 40 + size * 1000)
    lines = [f"{n} {cap}"]
    for _ in range(n):
        w = rng.randint(1, max(1, cap // 4))
        v = rng.randint(1, 10**9)
        lines.append(f"{w} {v}")
    return "\n".join(lines) + "\n"
