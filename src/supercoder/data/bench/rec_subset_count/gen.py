import random

CASES = [(1, 0), (2, 1), (3, 3), (4, 8), (5, 12), (6, 16), (7, 20), (8, 25), (9, 25)]
EDGE = ["0 0\n\n", "1 5\n5\n", "3 0\n0 0 0\n", "4 -3\n-1 -2 3 -3\n"]
HIDDEN = [(2701, 10), (2702, 25)]


def generate(seed: int, size: int) -> str:
    """size weights (small or large, some negative) and a target near half the total."""
    rng = random.Random(seed)
    hi = rng.choice([10, 1000, 10**12])
    w = [rng.randint(-hi // 5, hi) for _ in range(size)]
    target = sum(w) // 2 + rng.randint(-hi, hi) // 10
    return f"{size} {target}\n" + " ".join(map(str, w)) + "\n"
