import random

CASES = [
    (1, 1),
    (2, 3),
    (3, 10),
    (4, 50),
    (5, 400),
    (6, 5000),
    (7, 60000),
    (8, 900000),
    (9, 1000000),
]
EDGE = ["1 0 1\n1\n0\n", "2 10 3\n3 7\n1\n10\n9\n", "3 1000000 2\n1 2 5\n1000000\n999999\n"]
HIDDEN = [(12, 77), (13, 950000)]


def generate(seed: int, size: int) -> str:
    rng = random.Random(seed)
    T = size
    n = min(60, 1 + size // 3) if size < 10**5 else rng.randint(55, 60)
    coins = sorted(set(rng.randint(2 if seed % 2 else 1, max(2, min(T, 5000))) for _ in range(n)))
    q = min(200, T + 1)
    qs = [rng.randint(0, T) for _ in range(q - 1)] + [T]
    return (
        f"{len(coins)} {T} {q}\n"
        + " ".join(map(str, coins))
        + "\n"
        + "\n".join(map(str, qs))
        + "\n"
    )
