import random

CASES = [(1, 2), (2, 3), (3, 8), (4, 50), (5, 300), (6, 1000), (7, 4000), (8, 11000), (9, 11000)]
EDGE = ["1\n5\n", "2\n1073741823 0\n", "5\n7 7 7 7 7\n"]
HIDDEN = [(401, 20), (402, 11000)]


def generate(seed: int, size: int) -> str:
    """size non-negative 30-bit integers, sometimes clustered in a narrow band."""
    rng = random.Random(seed)
    bits = rng.choice([10, 20, 30, 30])
    base = rng.getrandbits(30) & ~((1 << bits) - 1) if bits < 30 else 0
    vals = [base | rng.getrandbits(bits) for _ in range(size)]
    return f"{size}\n" + " ".join(map(str, vals)) + "\n"
