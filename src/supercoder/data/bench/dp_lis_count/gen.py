import random

CASES = [(1, 1), (2, 2), (3, 6), (4, 15), (5, 50), (6, 300), (7, 2000), (8, 9000), (9, 10000)]
EDGE = ["1\n42\n", "5\n7 7 7 7 7\n", "6\n1 2 3 4 5 6\n", "6\n6 5 4 3 2 1\n"]
HIDDEN = [(55, 30), (56, 9500)]


def generate(seed: int, size: int) -> str:
    rng = random.Random(seed)
    n = size
    mode = seed % 3
    if mode == 0:
        vals = [rng.randint(-(10**9), 10**9) for _ in range(n)]
    elif mode == 1:  # few distinct values: many ties, many equal-length subsequences
        vals = [rng.randint(1, 30) for _ in range(n)]
    else:  # noisy increasing trend: long subsequences, huge counts
        vals = [i // 3 + rng.randint(0, 50) for i in range(n)]
    return f"{n}\n" + " ".join(map(str, vals)) + "\n"
