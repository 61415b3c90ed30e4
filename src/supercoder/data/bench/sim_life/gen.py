import random

CASES = [(1, 1), (2, 3), (3, 5), (4, 10), (5, 20), (6, 50), (7, 100), (8, 200), (9, 200)]
EDGE = [
    "1 1 5\n#\n",
    "3 3 1\n...\n...\n...\n",
    "6 6 4\n......\n..#...\n...#..\n.###..\n......\n......\n",
    "4 5 3\n#####\n#####\n#####\n#####\n",
]
HIDDEN = [(701, 30), (702, 200)]


def generate(seed: int, size: int) -> str:
    """size x (size + a bit) torus, generations grow with size; random density."""
    rng = random.Random(seed)
    r = size
    c = min(256, size + rng.randint(0, 10))
    t = max(1, min(450, size * 2 + rng.randint(0, 5)))
    dens = rng.uniform(0.15, 0.5)
    rows = ["".join("#" if rng.random() < dens else "." for _ in range(c)) for _ in range(r)]
    return f"{r} {c} {t}\n" + "\n".join(rows) + "\n"
