import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 5),
    (4, 30),
    (5, 300),
    (6, 5000),
    (7, 80000),
    (8, 2000000),
    (9, 2500000),
]
EDGE = ["1 1 7 100\n", "1 5 1 0\n", "2 10 0 50\n", "1000000 3 4294967295 100\n"]
HIDDEN = [(88, 100), (89, 2200000)]


def generate(seed: int, size: int) -> str:
    """n nodes, q = size operations drawn inside the program from a xorshift seed."""
    rng = random.Random(seed)
    q = size
    n = max(1, min(1000000, rng.randint(max(1, q // 8), max(1, q // 2))))
    return f"{n} {q} {rng.randint(0, 2**32 - 1)} {rng.randint(10, 70)}\n"
