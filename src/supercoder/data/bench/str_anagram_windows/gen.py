import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 1000), (7, 10000), (8, 150000), (9, 200000)]
EDGE = ["a\n2\na\nb\n", "abba\n3\nab\nabba\nabbaa\n", "zzzzzz\n2\nzz\nzzzzzz\n"]
HIDDEN = [(13, 30), (14, 180000)]


def generate(seed: int, size: int) -> str:
    """a text over a few letters and patterns: shuffled windows of the text or random words."""
    rng = random.Random(seed)
    alpha = "abcdefghijklmnopqrstuvwxyz"[: rng.choice([2, 3, 5, 26])]
    text = "".join(rng.choice(alpha) for _ in range(size))
    q = 60 if size >= 10**5 else rng.randint(1, 6)
    pats = []
    for _ in range(q):
        m = rng.randint(1, min(size + 1, rng.choice([2, 5, 20, 300])))
        if rng.random() < 0.7 and m <= size:
            i = rng.randint(0, size - m)
            w = list(text[i : i + m])
            rng.shuffle(w)
            pats.append("".join(w))
        else:
            pats.append("".join(rng.choice(alpha) for _ in range(m)))
    return f"{text}\n{q}\n" + "\n".join(pats) + "\n"
