import random

CASES = [(1, 1), (2, 2), (3, 6), (4, 25), (5, 300), (6, 3000), (7, 30000), (8, 100000), (9, 120000)]
EDGE = ["a 2\n1\n2\n", "aaaa 4\n1\n2\n4\n5\n", "abcabcabc 3\n3\n0\n9\n"]
HIDDEN = [(95, 50), (96, 110000)]


def generate(seed: int, size: int) -> str:
    """a random string over 2-26 letters (sometimes with copied blocks) and window lengths k."""
    rng = random.Random(seed)
    alpha = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([2, 4, 26])]
    s = [rng.choice(alpha) for _ in range(size)]
    for _ in range(rng.randint(0, 5)):  # repeated blocks create duplicate windows
        k = rng.randint(1, max(1, size // 10))
        a, b = rng.randrange(size), rng.randrange(size)
        for i in range(k):
            if a + i < size and b + i < size:
                s[b + i] = s[a + i]
    q = 8 if size >= 50000 else rng.randint(1, 6)
    ks = [rng.randint(1, min(size, rng.choice([4, 12, 60, size]))) for _ in range(q)]
    return "".join(s) + f" {q}\n" + "\n".join(map(str, ks)) + "\n"
