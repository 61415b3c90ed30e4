import random

CASES = [(1, 1), (2, 2), (3, 4), (4, 9), (5, 20), (6, 50), (7, 120), (8, 300), (9, 400)]
EDGE = [
    "1 1 1\n.\n0 0 0 0\n",
    "2 2 2\n.#\n#.\n0 0 1 1\n0 1 0 1\n",
    "3 5 1\n.....\n####.\n.....\n2 0 0 0\n",
]
HIDDEN = [(41, 10), (42, 350)]


def generate(seed: int, size: int) -> str:
    """size x ~size grid with random walls; queries mostly between open cells far apart."""
    rng = random.Random(seed)
    h = size
    w = max(1, size - rng.randint(0, size // 4))
    density = rng.choice([0.0, 0.15, 0.28, 0.35]) if size > 2 else 0.2
    rows = ["".join("#" if rng.random() < density else "." for _ in range(w)) for _ in range(h)]
    q = 80 if size >= 200 else rng.randint(1, 10)
    qs = []

    def pick(r0, r1, c0, c1):
        for _ in range(20):  # prefer open cells, but walls are allowed too
            r, c = rng.randint(r0, r1), rng.randint(c0, c1)
            if rows[r][c] == ".":
                break
        return r, c

    for _ in range(q):
        a, b = pick(0, max(0, h // 8), 0, max(0, w // 8))
        if rng.random() < 0.8:
            c, d = pick(h - 1 - h // 8, h - 1, w - 1 - w // 8, w - 1)
        else:
            c, d = pick(0, h - 1, 0, w - 1)
        qs.append(f"{a} {b} {c} {d}")
    return f"{h} {w} {q}\n" + "\n".join(rows) + "\n" + "\n".join(qs) + "\n"
