import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 20), (5, 100), (6, 1000), (7, 20000), (8, 150000), (9, 200000)]
EDGE = ["a\n1\na\n", "aaaaa\n3\naa\naaaaaa\nb\n", "abababab\n2\naba\nbab\n"]
HIDDEN = [(65, 60), (66, 180000)]


def generate(seed: int, size: int) -> str:
    """a text of length size over a small alphabet (sometimes periodic), and patterns mostly cut from it."""
    rng = random.Random(seed)
    alpha = "ab" if seed % 3 == 0 else "abc" if seed % 3 == 1 else "abcdefghijklmnopqrstuvwxyz"
    if seed % 2 == 0 and size > 10:
        unit = "".join(rng.choice(alpha) for _ in range(rng.randint(1, 6)))
        text = list((unit * (size // len(unit) + 1))[:size])
        for _ in range(size // 50):
            text[rng.randrange(size)] = rng.choice(alpha)
        text = "".join(text)
    else:
        text = "".join(rng.choice(alpha) for _ in range(size))
    q = 100 if size >= 10**5 else rng.randint(1, 8)
    pats = []
    for _ in range(q):
        m = rng.randint(1, min(size, rng.choice([3, 10, 40, 200])))
        if rng.random() < 0.8:
            i = rng.randint(0, size - m)
            pats.append(text[i : i + m])
        else:
            pats.append("".join(rng.choice(alpha) for _ in range(m)))
    return f"{text}\n{q}\n" + "\n".join(pats) + "\n"
