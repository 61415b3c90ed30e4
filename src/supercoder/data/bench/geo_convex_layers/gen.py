import math
import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 10), (5, 50), (6, 300), (7, 2000), (8, 20000), (9, 20000)]
EDGE = [
    "1\n5 5\n",
    "4\n0 0\n0 0\n0 0\n0 0\n",
    "5\n0 0\n1 1\n2 2\n3 3\n4 4\n",
    "9\n0 0\n10 0\n10 10\n0 10\n5 5\n3 3\n7 3\n7 7\n3 7\n",
]
HIDDEN = [(1301, 40), (1302, 20000)]


def generate(seed: int, size: int) -> str:
    """size points in a square, a disc or a small lattice (many collinear/duplicate points)."""
    rng = random.Random(seed)
    kind = rng.randint(0, 2)
    pts = []
    for _ in range(size):
        if kind == 0:
            pts.append((rng.randint(-(10**6), 10**6), rng.randint(-(10**6), 10**6)))
        elif kind == 1:
            r = 10**6 * math.sqrt(rng.random())
            a = rng.random() * 2 * math.pi
            pts.append((int(r * math.cos(a)), int(r * math.sin(a))))
        else:
            s = max(2, int(math.sqrt(size)))
            pts.append((rng.randint(0, s), rng.randint(0, s)))
    return f"{size}\n" + "\n".join(f"{x} {y}" for x, y in pts) + "\n"
