import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 6), (5, 8), (6, 9), (7, 10), (8, 12), (9, 12)]
EDGE = ["1\n1 0\n", "3\n2 0\n3 0\n4 0\n", "1\n4 1\n1 2\n", "1\n1 1\n1 1\n"]
HIDDEN = [(2501, 7), (2502, 12)]


def generate(seed: int, size: int) -> str:
    """a few boards of order up to size with a handful of blocked squares."""
    rng = random.Random(seed)
    t = rng.randint(1, 3)
    lines = [str(t)]
    for i in range(t):
        n = size if i == 0 else rng.randint(1, size)
        cells = set()
        for _ in range(rng.randint(0, n)):
            cells.add((rng.randint(1, n), rng.randint(1, n)))
        lines.append(f"{n} {len(cells)}")
        lines += [f"{r} {c}" for r, c in sorted(cells)]
    return "\n".join(lines) + "\n"
