import random

CASES = [(1, 1), (2, 2), (3, 8), (4, 30), (5, 200), (6, 2000), (7, 3000), (8, 18000), (9, 22000)]
EDGE = ["(\n", "()\n)(\n(())()\n\n", "((((((((((\n))))))))))\n()()()()()()()()\n"]
HIDDEN = [(44, 16), (45, 20000)]


def generate(seed: int, size: int) -> str:
    """lines of brackets of length ~size; the bias towards '(' varies (long scans when balanced)."""
    rng = random.Random(seed)
    lines = 4 if size >= 5000 else rng.randint(1, 6)
    out = []
    for i in range(lines):
        p = [0.5, 0.52, 0.48, 0.6][(seed + i) % 4]
        if (seed + i) % 5 == 4:  # built from nested well-formed blocks
            parts, total = [], 0
            while total < size:
                d = rng.randint(1, 40)
                block = "(" * d + "()" * rng.randint(0, 5) + ")" * d
                parts.append(block)
                total += len(block)
            out.append("".join(parts)[:size])
        else:
            out.append("".join("(" if rng.random() < p else ")" for _ in range(size)))
    return "\n".join(out) + "\n"
