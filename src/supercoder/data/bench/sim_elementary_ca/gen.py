import random

CASES = [(1, 1), (2, 3), (3, 8), (4, 20), (5, 100), (6, 400), (7, 1000), (8, 4500), (9, 4500)]
EDGE = ["30 1 1\n1\n", "110 5 0\n00100\n", "255 8 3\n00000000\n", "0 6 2\n111111\n"]
HIDDEN = [(801, 60), (802, 4500)]

RULES = [30, 45, 54, 60, 73, 90, 105, 110, 150, 184, 22, 126]


def generate(seed: int, size: int) -> str:
    """width about size, steps about size; a single seed cell or random row."""
    rng = random.Random(seed)
    rule = rng.choice(RULES) if rng.random() < 0.8 else rng.randint(0, 255)
    w = size
    t = max(1, size + rng.randint(-size // 4, size // 4))
    if rng.random() < 0.3:
        row = ["0"] * w
        row[w // 2] = "1"
    else:
        row = [rng.choice("01") for _ in range(w)]
    return f"{rule} {w} {t}\n" + "".join(row) + "\n"
