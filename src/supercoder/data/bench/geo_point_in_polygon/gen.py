import math
import random

CASES = [(1, 3), (2, 4), (3, 6), (4, 12), (5, 40), (6, 200), (7, 800), (8, 4500), (9, 4500)]
EDGE = [
    "3\n0 0\n4 0\n0 4\n5\n1 1\n0 0\n2 2\n4 4\n2 0\n",
    "4\n0 0\n10 0\n10 10\n0 10\n4\n5 10\n10 5\n11 5\n5 5\n",
    "4\n0 0\n2 2\n4 0\n2 6\n3\n2 2\n2 3\n2 1\n",
]
HIDDEN = [(1401, 20), (1402, 4500)]


def generate(seed: int, size: int) -> str:
    """a star-shaped polygon with size vertices around the origin, and about 2*size queries."""
    rng = random.Random(seed)
    n = max(3, size)
    angles = sorted(rng.sample(range(n * 20), n))
    verts = []
    for a in angles:
        t = 2 * math.pi * a / (n * 20)
        r = rng.randint(2000, 100000)
        verts.append((int(r * math.cos(t)), int(r * math.sin(t))))
    q = 2 * n + 5
    qs = []
    for _ in range(q):
        if rng.random() < 0.1:
            i = rng.randrange(n)
            x1, y1 = verts[i]
            x2, y2 = verts[(i + 1) % n]
            qs.append((x1, y1) if rng.random() < 0.5 else ((x1 + x2) // 2, (y1 + y2) // 2))
        else:
            qs.append((rng.randint(-100000, 100000), rng.randint(-100000, 100000)))
    return (
        f"{n}\n"
        + "\n".join(f"{x} {y}" for x, y in verts)
        + f"\n{q}\n"
        + "\n".join(f"{x} {y}" for x, y in qs)
        + "\n"
    )
