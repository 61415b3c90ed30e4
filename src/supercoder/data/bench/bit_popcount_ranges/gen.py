import random

CASES = [(1, 1), (2, 3), (3, 10), (4, 30), (5, 100), (6, 300), (7, 1000), (8, 100000), (9, 100000)]
EDGE = [
    "1\n0 0\n",
    "2\n4294967295 4294967295\n4294967200 4294967295\n",
    "3\n1 1\n0 1023\n1048575 1048576\n",
]
HIDDEN = [(201, 50), (202, 100000)]


def generate(seed: int, size: int) -> str:
    """size caps the range length; the number of queries grows slowly with it."""
    rng = random.Random(seed)
    q = min(60, 3 + size // 20)
    lines = [str(q)]
    for _ in range(q):
        length = rng.randint(0, size)
        lo = rng.randint(0, 4294967295 - length)
        lines.append(f"{lo} {lo + length}")
    return "\n".join(lines) + "\n"
