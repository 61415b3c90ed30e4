import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 10),
    (4, 100),
    (5, 1000),
    (6, 20000),
    (7, 100000),
    (8, 1500000),
    (9, 1500000),
]
EDGE = [
    "1 1 1 1 1 0\n",
    "1 5 1 1 100 7\n",
    "64 10 100000 1 1 18446744073709551615\n",
    "3 0 5 10 10 42\n",
]
HIDDEN = [(901, 300), (902, 1500000)]


def generate(seed: int, size: int) -> str:
    """k tellers, size customers; arrival and service ranges put the system near saturation."""
    rng = random.Random(seed)
    k = rng.randint(1, 64) if size > 5 else rng.randint(1, 3)
    cap = rng.randint(1, 3000)
    amax = rng.randint(2, 40)
    smax = max(1, int(k * amax * rng.uniform(0.8, 1.25)))
    return f"{k} {size} {cap} {amax} {smax} {rng.getrandbits(64)}\n"
