import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 8), (5, 12), (6, 16), (7, 20), (8, 23), (9, 23)]
EDGE = ["1 1\n0\n0\n", "3 2\n5 5 5\n0 5\n", "4 3\n1 2 4 8\n15 16 0\n"]
HIDDEN = [(601, 10), (602, 23)]


def generate(seed: int, size: int) -> str:
    """size = number of elements (<= 24); values of few bits so many subsets collide."""
    rng = random.Random(seed)
    n = size
    bits = rng.randint(max(1, n // 3), max(2, n - 2))
    w = [rng.getrandbits(bits) for _ in range(n)]
    q = rng.randint(1, 8)
    t = []
    for _ in range(q):
        if rng.random() < 0.7 and n:
            x = 0
            for v in w:
                if rng.random() < 0.5:
                    x ^= v
            t.append(x)
        else:
            t.append(rng.getrandbits(bits + 1))
    return f"{n} {q}\n" + " ".join(map(str, w)) + "\n" + " ".join(map(str, t)) + "\n"
