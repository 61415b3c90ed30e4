import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 10), (5, 40), (6, 200), (7, 800), (8, 4000), (9, 5000)]
EDGE = [
    "1\n0 0 1\n",
    "4\n2 10 1000\n0 0 7\n5 0 1\n123456789 1 1000000007\n",
    "2\n999999999999999999 999999999999999999 1000000000000000000\n3 1000000000000000000 999999999999999989\n",
]
HIDDEN = [(19, 20), (20, 4500)]


def generate(seed: int, size: int) -> str:
    """size queries 'a e m' with m < 2^63; the bit length of the numbers varies."""
    rng = random.Random(seed)
    out = [str(size)]
    for _ in range(size):
        bits = rng.choice([8, 31, 50, 62, 62, 62]) if size >= 100 else rng.randint(1, 62)
        m = rng.randint(1, 2**bits)
        a = rng.randint(0, 10**18)
        e = rng.randint(0, 2 ** rng.choice([5, 40, 62, 62]))
        out.append(f"{a} {e} {m}")
    return "\n".join(out) + "\n"
