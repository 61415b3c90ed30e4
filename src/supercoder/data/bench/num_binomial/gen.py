import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 2000), (7, 30000), (8, 200000), (9, 250000)]
EDGE = ["0 1 0\n", "1 5 42\n", "2000000 3 18446744073709551615\n"]
HIDDEN = [(45, 50), (46, 230000)]


def generate(seed: int, size: int) -> str:
    """q = size binomial queries drawn in-program; nmax varies from tiny to 2e6."""
    rng = random.Random(seed)
    nmax = rng.choice([5, 100, 10**5, 2 * 10**6]) if size > 10 else rng.randint(0, 10)
    return f"{nmax} {size} {rng.randint(0, 2**64 - 1)}\n"
