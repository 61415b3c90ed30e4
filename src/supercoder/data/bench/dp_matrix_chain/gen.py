import random

CASES = [(1, 1), (2, 2), (3, 3), (4, 7), (5, 20), (6, 60), (7, 200), (8, 600), (9, 700)]
EDGE = ["1\n10 20\n", "3\n10 30 5 60\n", "4\n1 1 1 1 1\n"]
HIDDEN = [(21, 15), (22, 650)]


def generate(seed: int, size: int) -> str:
    rng = random.Random(seed)
    hi = [100, 1000, 5][seed % 3]
    dims = [rng.randint(1, hi) for _ in range(size + 1)]
    return f"{size}\n" + " ".join(map(str, dims)) + "\n"
