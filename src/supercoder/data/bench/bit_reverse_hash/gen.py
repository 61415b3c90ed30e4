import random

CASES = [(1, 1), (2, 2), (3, 10), (4, 100), (5, 1000), (6, 20000), (7, 2500000), (8, 2500000)]
EDGE = ["1\n0 1\n", "2\n4294967295 5\n1 0\n", "3\n12345 1\n12345 2\n12345 3\n"]
HIDDEN = [(501, 500), (502, 2500000)]


def generate(seed: int, size: int) -> str:
    """a few 'seed n' lines whose n add up to about size."""
    rng = random.Random(seed)
    t = rng.randint(1, 6)
    lines = [str(t)]
    for i in range(t):
        n = size // t + (1 if i < size % t else 0)
        lines.append(f"{rng.getrandbits(32)} {n}")
    return "\n".join(lines) + "\n"
