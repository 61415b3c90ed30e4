import random

CASES = [(1, 1), (2, 2), (3, 7), (4, 30), (5, 200), (6, 2000), (7, 8000), (8, 20000), (9, 24000)]
EDGE = [
    "1\na\n",
    "3\nab\naaaa\nabcba\n",
    "2\nabacdfgdcaba\nzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n",
]
HIDDEN = [(81, 40), (82, 22000)]


def generate(seed: int, size: int) -> str:
    """several strings of length ~size: random, low-alphabet, blocky and mirrored ones."""
    rng = random.Random(seed)
    t = 4 if size >= 1000 else rng.randint(1, 5)
    out = [str(t)]
    for i in range(t):
        kind = (seed + i) % 4
        if kind == 0:
            w = "".join(rng.choice("ab") for _ in range(size))
        elif kind == 1:
            w = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))
        elif kind == 2:  # long runs of one letter
            parts, total = [], 0
            while total < size:
                k = rng.randint(1, max(1, size // 3))
                parts.append(rng.choice("xyz") * k)
                total += k
            w = "".join(parts)[:size]
        else:  # a noisy mirror image
            half = "".join(rng.choice("abc") for _ in range((size + 1) // 2))
            w = list((half + half[::-1])[:size])
            for _ in range(max(1, size // 500)):
                w[rng.randrange(size)] = "d"
            w = "".join(w)
        out.append(w)
    return "\n".join(out) + "\n"
