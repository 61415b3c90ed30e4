import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 5),
    (4, 40),
    (5, 1000),
    (6, 30000),
    (7, 300000),
    (8, 800000),
    (9, 1000000),
]
EDGE = ["1 5 1 0\n", "6 0 1 0\n", "100 9 1000 2\n", "1000000 12345 2000000000 0\n"]
HIDDEN = [(33, 64), (34, 900000)]


def generate(seed: int, size: int) -> str:
    """n = size values produced in-program from a 64-bit LCG; value range and shape vary."""
    rng = random.Random(seed)
    rng_range = rng.choice([2, 100, 10**6, 2 * 10**9])
    mode = rng.choice([0, 0, 1, 2]) if size < 10**6 else 0
    return f"{size} {rng.randint(0, 2**64 - 1)} {rng_range} {mode}\n"
