import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 400), (7, 2000), (8, 2600), (9, 2500)]
EDGE = [
    "1 0\n0\n",
    "3 64\n18446744073709551615 0 18446744073709551615\n",
    "4 0\n7 7 7 7\n",
]
HIDDEN = [(101, 50), (102, 2600)]


def generate(seed: int, size: int) -> str:
    """size numbers; some dense, some sparse, some near-duplicates of earlier ones."""
    rng = random.Random(seed)
    n = size
    k = rng.randint(0, 40)
    vals = []
    for _ in range(n):
        r = rng.random()
        if r < 0.5:
            v = rng.getrandbits(64)
        elif r < 0.7:
            v = rng.getrandbits(rng.randint(1, 64))
        elif r < 0.85 and vals:
            v = rng.choice(vals)
            for _ in range(rng.randint(0, 6)):
                v ^= 1 << rng.randint(0, 63)
        else:
            v = (1 << 64) - 1 - rng.getrandbits(rng.randint(1, 20))
        vals.append(v)
    return f"{n} {k}\n" + " ".join(map(str, vals)) + "\n"
