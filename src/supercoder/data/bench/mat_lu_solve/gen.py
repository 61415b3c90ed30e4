import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 60), (6, 150), (7, 300), (8, 750), (9, 750)]
EDGE = ["1\n1 0\n", "2\n2 1\n3 4294967295\n", "3\n7 5\n7 5\n8 5\n"]
HIDDEN = [(2401, 30), (2402, 750)]


def generate(seed: int, size: int) -> str:
    """one to three systems of order up to size, each drawn by the program from a seed."""
    rng = random.Random(seed)
    t = rng.randint(1, 3)
    lines = [str(t)]
    for i in range(t):
        n = size if i == 0 else rng.randint(1, size)
        lines.append(f"{n} {rng.getrandbits(32)}")
    return "\n".join(lines) + "\n"
