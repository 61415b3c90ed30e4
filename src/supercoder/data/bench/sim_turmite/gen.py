import random

CASES = [
    (1, 1),
    (2, 5),
    (3, 50),
    (4, 500),
    (5, 5000),
    (6, 50000),
    (7, 500000),
    (8, 6000000),
    (9, 6000000),
]
EDGE = ["1 10 RL 1\n0 0 0\n", "3 0 LR 1\n1 1 2\n", "5 7 NNNN 2\n0 0 1\n4 4 3\n"]
HIDDEN = [(1201, 2000), (1202, 6000000)]


def generate(seed: int, size: int) -> str:
    """size ant moves in total over a torus; a random turn rule over 2..12 colours."""
    rng = random.Random(seed)
    n = rng.choice([16, 64, 128, 256, 500]) if size > 100 else rng.randint(1, 20)
    m = rng.randint(2, 12)
    rule = "".join(rng.choice("RLRLNU") for _ in range(m))
    if "R" not in rule and "L" not in rule:
        rule = "R" + rule[1:]
    ants = rng.randint(1, 4)
    steps = max(0, size // ants)
    lines = [f"{n} {steps} {rule} {ants}"]
    for _ in range(ants):
        lines.append(f"{rng.randrange(n)} {rng.randrange(n)} {rng.randrange(4)}")
    return "\n".join(lines) + "\n"
