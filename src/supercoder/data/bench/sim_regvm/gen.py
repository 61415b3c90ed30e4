import random

CASES = [
    (1, 1),
    (2, 2),
    (3, 5),
    (4, 20),
    (5, 100),
    (6, 1000),
    (7, 20000),
    (8, 2000000),
    (9, 2000000),
]
EDGE = [
    "1\nhalt\n",
    "3\nset r2 4294967295\naddi r2 1\nprint r2\n",
    "6\nset r0 5\nset r1 0\naddi r1 3\ndec r0\njnz r0 2\nprint r1\n",
]
HIDDEN = [(1001, 50), (1002, 2000000)]

BODY_OPS = ["add", "addi", "mul", "xor", "shr", "mod"]


def body(rng, count):
    lines = []
    for _ in range(count):
        o = rng.choice(BODY_OPS)
        r = rng.randint(2, 7)
        if o in ("add", "mul", "xor"):
            lines.append(f"{o} r{r} r{rng.randint(2, 7)}")
        elif o == "addi":
            lines.append(f"addi r{r} {rng.getrandbits(32)}")
        elif o == "shr":
            lines.append(f"shr r{r} {rng.randint(0, 31)}")
        else:
            lines.append(f"mod r{r} {rng.randint(0, 100000)}")
    return lines


def generate(seed: int, size: int) -> str:
    """two nested counted loops (outer*inner about size) around random arithmetic."""
    rng = random.Random(seed)
    prog = [f"set r{r} {rng.getrandbits(32)}" for r in range(2, 8)]
    outer = max(1, int(size**0.5) + rng.randint(-2, 2))
    inner = max(1, size // outer)
    prog.append(f"set r0 {outer}")
    top = len(prog)
    prog.append(f"set r1 {inner}")
    prog += body(rng, rng.randint(1, 4))
    loop = len(prog)
    prog += body(rng, rng.randint(3, 9))
    prog.append("dec r1")
    prog.append(f"jnz r1 {loop}")
    prog += body(rng, rng.randint(0, 2))
    prog.append(f"print r{rng.randint(2, 7)}")
    prog.append("dec r0")
    prog.append(f"jnz r0 {top}")
    prog += [f"print r{r}" for r in range(2, 8)]
    prog.append("halt")
    prog += body(rng, 2)
    return f"{len(prog)}\n" + "\n".join(prog) + "\n"
