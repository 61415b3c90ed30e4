import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 500), (7, 2000), (8, 5000), (9, 5000)]
EDGE = ["1\n1 1\n", "3\n2 1\n2 2\n7 3\n", "2\n10 1000000\n1 5\n"]
HIDDEN = [(1101, 40), (1102, 5000)]


def generate(seed: int, size: int) -> str:
    """a few circles of up to size people; step k from 1 to a few thousand."""
    rng = random.Random(seed)
    q = rng.randint(1, 3)
    lines = [str(q)]
    for _ in range(q):
        n = rng.randint(max(1, size // 2), size)
        k = rng.randint(1, max(1, size // 6))
        lines.append(f"{n} {k}")
    return "\n".join(lines) + "\n"
