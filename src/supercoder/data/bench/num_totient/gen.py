import random

CASES = [
    (1, 1),
    (2, 3),
    (3, 10),
    (4, 30),
    (5, 100),
    (6, 10**4),
    (7, 10**6),
    (8, 10**11),
    (9, 10**12),
]
EDGE = ["1\n1\n", "5\n2\n4\n12\n97\n1000000007\n", "3\n999999999989\n1099511627776\n963761198400\n"]
HIDDEN = [(29, 500), (30, 5 * 10**11)]


def is_prime(n: int) -> bool:
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prime_below(rng, hi: int) -> int:
    if hi < 2:
        return 1
    while True:
        v = rng.randint(max(2, hi // 2), hi)
        if is_prime(v):
            return v


def generate(seed: int, size: int) -> str:
    """values up to size: random numbers, large primes, semiprimes of two ~sqrt primes, smooth numbers."""
    rng = random.Random(seed)
    q = 150 if size >= 10**11 else rng.randint(1, 25)
    vals = []
    for _ in range(q):
        kind = rng.randrange(4)
        if kind == 0:
            v = rng.randint(1, size)
        elif kind == 1:
            v = prime_below(rng, size)
        elif kind == 2:
            r = max(2, int(size**0.5))
            v = max(1, min(size, prime_below(rng, r) * prime_below(rng, r)))
        else:
            v = 1
            while True:
                f = rng.choice([2, 3, 5, 7, 11, 13])
                if v * f > size:
                    break
                v *= f
        vals.append(v)
    return f"{q}\n" + "\n".join(map(str, vals)) + "\n"
