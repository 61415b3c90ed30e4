import random

CASES = [(1, 1), (2, 2), (3, 5), (4, 12), (5, 40), (6, 200), (7, 800), (8, 2600), (9, 3000)]
EDGE = ["1\na a\n", "3\nkitten sitting\nabc abc\nx yyyyyyyyyy\n", "2\nzzzzzzzz z\nabcdef fedcba\n"]
HIDDEN = [(31, 25), (32, 2800)]


def mutate(rng, s, alpha, k):
    s = list(s)
    for _ in range(k):
        op = rng.randrange(3)
        pos = rng.randrange(len(s) + 1)
        if op == 0 or len(s) < 2:
            s.insert(pos, rng.choice(alpha))
        elif op == 1:
            del s[min(pos, len(s) - 1)]
        else:
            s[min(pos, len(s) - 1)] = rng.choice(alpha)
    return "".join(s)


def generate(seed: int, size: int) -> str:
    """pairs of strings of length ~size; some random, some near-copies."""
    rng = random.Random(seed)
    alpha = "abcdefghijklmnopqrstuvwxyz"[: rng.randint(2, 26)]
    q = 8 if size >= 1000 else rng.randint(1, 8)
    out = [str(q)]
    for _ in range(q):
        n = rng.randint(max(1, size * 3 // 4), size)
        a = "".join(rng.choice(alpha) for _ in range(n))
        if rng.random() < 0.5:
            b = mutate(rng, a, alpha, rng.randint(0, max(1, n // 5)))
        else:
            b = "".join(rng.choice(alpha) for _ in range(rng.randint(max(1, n // 2), n)))
        out.append(f"{a} {b}")
    return "\n".join(out) + "\n"
