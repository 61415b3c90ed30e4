import random

CASES = [(1, 0), (2, 1), (3, 3), (4, 6), (5, 9), (6, 12), (7, 14), (8, 18), (9, 18)]
EDGE = ["1 1 0\nS\n", "1 1 3\nS\n", "3 3 4\n###\n#S.\n#..\n", "2 5 8\nS....\n.....\n"]
HIDDEN = [(3001, 8), (3002, 18)]


def generate(seed: int, size: int) -> str:
    """walk length size on a grid with a few walls; start near the middle."""
    rng = random.Random(seed)
    h = rng.randint(max(1, size // 2 + 2), min(30, size + 3))
    w = rng.randint(max(1, size // 2 + 2), min(30, size + 3))
    g = [["#" if rng.random() < 0.08 else "." for _ in range(w)] for _ in range(h)]
    g[rng.randint(h // 3, h - 1 - h // 3)][rng.randint(w // 3, w - 1 - w // 3)] = "S"
    return f"{h} {w} {size}\n" + "\n".join("".join(r) for r in g) + "\n"
