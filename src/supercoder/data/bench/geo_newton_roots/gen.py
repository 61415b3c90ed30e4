import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 1000), (7, 10000), (8, 150000), (9, 150000)]
EDGE = ["0 5\n", "1 0\n", "3 1\n"]
HIDDEN = [(1701, 50), (1702, 150000)]


def generate(seed: int, size: int) -> str:
    """size equations drawn by the program's own generator from a 64-bit seed."""
    rng = random.Random(seed)
    return f"{size} {rng.getrandbits(64)}\n"
