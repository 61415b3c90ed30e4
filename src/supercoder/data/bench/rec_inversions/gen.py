import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 5),
    (4, 50),
    (5, 1000),
    (6, 50000),
    (7, 300000),
    (8, 1600000),
    (9, 1600000),
]
EDGE = ["0 1 0\n", "1 5 7\n", "10 1 3\n", "6 1000000 4294967295\n"]
HIDDEN = [(2901, 100), (2902, 1600000)]


def generate(seed: int, size: int) -> str:
    """n values in [0, m) from the program's LCG; m sometimes tiny so ties are common."""
    rng = random.Random(seed)
    m = rng.choice([2, 10, 1000, 1000000000])
    return f"{size} {m} {rng.getrandbits(32)}\n"
