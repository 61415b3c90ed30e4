import random

CASES = [(1, 1), (2, 2), (3, 6), (4, 30), (5, 300), (6, 3000), (7, 10000), (8, 30000), (9, 40000)]
EDGE = ["1\na\n", "3\naaaa\nabab\nabcd\n", "2\nabaababaab\naabaaab\n"]
HIDDEN = [(97, 60), (98, 35000)]


def generate(seed: int, size: int) -> str:
    """strings of length size: random ones and near-periodic ones (long prefix matches)."""
    rng = random.Random(seed)
    t = 7 if size >= 5000 else rng.randint(1, 4)
    out = [str(t)]
    for i in range(t):
        alpha = "ab" if (seed + i) % 2 else "abcdefghij"
        if (seed + i) % 3 == 0:
            s = "".join(rng.choice(alpha) for _ in range(size))
        else:
            unit = "".join(rng.choice(alpha) for _ in range(rng.randint(1, 50)))
            s = list((unit * (size // len(unit) + 1))[:size])
            for _ in range(rng.randint(0, 3)):  # a few defects cut the matches short
                s[rng.randrange(size)] = "z"
            s = "".join(s)
        out.append(s)
    return "\n".join(out) + "\n"
