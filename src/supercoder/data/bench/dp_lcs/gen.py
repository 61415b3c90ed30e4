import random

CASES = [(1, 1), (2, 3), (3, 8), (4, 20), (5, 60), (6, 300), (7, 1000), (8, 9000), (9, 12000)]
EDGE = ["1 1\na\na\n", "1 1\na\nb\n", "5 3\naaaaa\naaa\n"]
HIDDEN = [(101, 40), (102, 11000)]


def generate(seed: int, size: int) -> str:
    rng = random.Random(seed)
    alpha = "acgt" if seed % 2 else "abcdefghij"[: 2 + seed % 8]
    n = size
    m = max(1, size - rng.randint(0, size // 3))
    a = "".join(rng.choice(alpha) for _ in range(n))
    b = "".join(rng.choice(alpha) for _ in range(m))
    return f"{n} {m}\n{a}\n{b}\n"
