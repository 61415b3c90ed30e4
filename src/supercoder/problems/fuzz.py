"""Fuzzed differential tests: mutate a problem's inputs within their observed format.

A fuzzed input starts from one of the problem's inputs (those up to 64 KiB) and gets
one or two conservative mutations:

- ``perturb``: some numbers get a new value drawn from the range observed *in the
  same input* at the same position (lines with the same token count, same column;
  the first line is a group of its own; a column seen fewer than 3 times uses the
  range of the numbers on its own line, as for an array given on one line),
  keeping integer/float kind, decimal places and sign;
- ``scale``: the numbers of one such column are shrunk towards the column's minimum;
- ``shuffle``: lines are reordered, only where the problem says order is free.

Numbers that look structural are never changed: any integer equal to a count the
input itself shows (the number of lines after some line, the token count of a line,
the length of a word). So ``n`` followed by ``n`` values, or a grid's ``rows cols``,
stay consistent.

A fuzzed input is kept only if the reference program (built at -O3 and -O0, run in
the sandbox) exits cleanly, prints the same output on two -O3 runs, and prints the
same at -O0 (undefined behaviour on an off-spec input shows up as a disagreement),
within ``timeout`` CPU seconds per run (default 2 s, so fuzzed tests stay cheap).
Kept inputs are written as ``fuzz/fNN.in`` + ``fuzz/fNN.out`` and loaded as hidden
tests: the evaluator judges candidates on them, prompts never show them.

Format hint, optional, in ``problem.json``::

    "fuzz": {"shuffle_lines_after": 1,   # lines from index 1 on may be reordered
             "frozen_lines": 0,          # the first N lines are never changed
             "numbers": true}            # false: do not touch numbers
"""

from __future__ import annotations

import random
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from supercoder.settings import FuzzSettings as FuzzHint
from supercoder.toolchain.reference import ReferenceBuildError, run_reference
from supercoder.types import ARGS_MARK, FILES_MARK, Problem, split_run, with_args

SOURCE_LIMIT = 64 * 1024
_INT = re.compile(r"^[+-]?\d{1,18}$")  # longer digit strings are words (big numbers)
_FLOAT = re.compile(r"^[+-]?\d{1,15}\.(\d{1,15})$")
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class FuzzReport:
    problem: str
    tried: int
    kept: int
    dropped: dict[str, int] = field(default_factory=dict)


def hint_of(problem: Problem) -> FuzzHint:
    """How ``problem.json`` ``fuzz`` lets its inputs vary (every variation by default)."""
    return problem.settings.fuzz or FuzzHint()


def structural_values(lines: list[str]) -> set[int]:
    """Integers the input's own shape shows: counts of lines, tokens, characters."""
    tokens = [_TOKEN.findall(ln) for ln in lines]
    nonempty = [i for i, t in enumerate(tokens) if t]
    values = {len(nonempty) - k for k in range(len(nonempty) + 1)}
    values |= {len(t) for t in tokens}
    values |= {len(tok) for t in tokens for tok in t if not _INT.match(tok)}
    values |= {sum(len(t) for t in tokens[i + 1 :]) for i in range(len(tokens))}
    return values


def _number_slots(lines: list[str], hint: FuzzHint) -> list[tuple[int, re.Match, tuple]]:
    """(line index, token match, column key) of every mutable number."""
    frozen = structural_values(lines)
    slots = []
    for i, line in enumerate(lines):
        if i < hint.frozen_lines:
            continue
        toks = list(_TOKEN.finditer(line))
        for col, m in enumerate(toks):
            tok = m.group()
            if _INT.match(tok) and int(tok) in frozen:
                continue
            if _INT.match(tok) or _FLOAT.match(tok):
                slots.append((i, m, (len(toks), col, i == 0)))
    return _regroup(slots)


def _regroup(slots: list[tuple[int, re.Match, tuple]]) -> list[tuple[int, re.Match, tuple]]:
    """A column seen fewer than 3 times borrows the range of its own line (an array on
    one line), except on the first line (headers stay within their column)."""
    per_column = Counter(key for _, _, key in slots)
    per_line = Counter(i for i, _, _ in slots)
    return [
        (i, m, ("line", i) if per_column[key] < 3 and i > 0 and per_line[i] >= 3 else key)
        for i, m, key in slots
    ]


def _new_value(tok: str, lo: float, hi: float, rng: random.Random, scale: float | None) -> str:
    """A value in [lo, hi] with the sign, kind and decimal places of ``tok``."""
    value = float(tok)
    decimals = m.group(1) if (m := _FLOAT.match(tok)) else None
    if value >= 0:
        lo = max(lo, 0.0)
    else:
        hi = min(hi, -1.0 if decimals is None else -(10.0 ** -len(decimals)))
    new = lo + (value - lo) * scale if scale is not None else rng.uniform(lo, hi)
    new = min(max(new, lo), hi)
    return f"{new:.{len(decimals)}f}" if decimals is not None else str(int(round(new)))


def mutate(text: str, rng: random.Random, hint: FuzzHint) -> str:
    """One fuzzed variant of ``text`` (may equal ``text`` when nothing is mutable). A run
    input led by a test's arguments (``types.with_args``) keeps them as they are: only
    its stdin is mutated (the line numbers of ``hint`` count stdin's lines)."""
    mark = ARGS_MARK.decode()
    if text.startswith((mark, FILES_MARK.decode())):
        args, files, stdin = split_run(text.encode())
        if files and not stdin and len(files) == 1 and _is_text(files[0][1]):
            body = mutate(files[0][1].decode(), rng, hint)  # its one data file
            return with_args(args, b"", ((files[0][0], body.encode()),)).decode()
        if args or files:  # its stdin; the arguments and the files as they are
            return with_args(args, mutate(stdin.decode(), rng, hint).encode(), files).decode()
    lines = text.split("\n")
    ops = ["perturb", "scale"] if hint.numbers else []
    if hint.shuffle_lines_after is not None:
        ops.append("shuffle")
    if not ops:
        return _resample(lines, rng)
    for op in rng.sample(ops, k=min(len(ops), rng.choice((1, 2)))):
        lines = _shuffle(lines, hint, rng) if op == "shuffle" else _numbers(lines, hint, rng, op)
    out = "\n".join(lines)
    return out if out != text else _resample(lines, rng)


def mutable_size(data: bytes) -> int:
    """How much of a run's input ``mutate`` changes: its stdin, or its one data file's
    body where stdin is empty (never the arguments, nor files that ride along)."""
    _, files, stdin = split_run(data)
    return len(files[0][1]) if files and not stdin and len(files) == 1 else len(stdin)


def _resample(lines: list[str], rng: random.Random) -> str:
    """Where nothing else mutates and no line holds a number (a phrase per line, as
    anagram's input): its non-blank lines drawn again, with repeats, 1/2-3/2 as many
    (lines of the visible input's own shape)."""
    body = [ln for ln in lines if ln.strip()]
    if len(body) < 2 or any(re.fullmatch(r"[-+]?\d+", t) for ln in body for t in ln.split()):
        return "\n".join(lines)  # a count or a size may say how many lines follow: kept
    count = max(1, round(len(body) * rng.uniform(0.5, 1.5)))
    ending = "\n" if lines[-1] == "" else ""
    return "\n".join(rng.choice(body) for _ in range(count)) + ending


def _shuffle(lines: list[str], hint: FuzzHint, rng: random.Random) -> list[str]:
    start = max(hint.shuffle_lines_after or 0, hint.frozen_lines)
    body = [ln for ln in lines[start:] if ln.strip()]
    tail = len(lines) - start - len(body)  # blank lines (the final newline) stay at the end
    rng.shuffle(body)
    return lines[:start] + body + [""] * tail


def _numbers(lines: list[str], hint: FuzzHint, rng: random.Random, op: str) -> list[str]:
    slots = _number_slots(lines, hint)
    if not slots:
        return lines
    ranges: dict[tuple, tuple[float, float]] = {}
    for _, m, key in slots:
        v = float(m.group())
        lo, hi = ranges.get(key, (v, v))
        ranges[key] = (min(lo, v), max(hi, v))
    if op == "scale":
        key = rng.choice(sorted(ranges, key=repr))
        chosen, factor = [s for s in slots if s[2] == key], rng.uniform(0.25, 0.9)
    else:
        chosen = rng.sample(slots, k=max(1, len(slots) // 5))
        factor = None
    edits: dict[int, list[tuple[re.Match, str]]] = {}
    for i, m, key in chosen:
        edits.setdefault(i, []).append((m, _new_value(m.group(), *ranges[key], rng, factor)))
    out = list(lines)
    for i, changes in edits.items():
        line = out[i]
        for m, new in sorted(changes, key=lambda c: -c[0].start()):
            line = line[: m.start()] + new + line[m.end() :]
        out[i] = line
    return out


def fuzz_inputs(problem: Problem, count: int, seed: int) -> list[bytes]:
    """Up to ``count`` distinct mutated inputs, none equal to an existing input."""
    hint = hint_of(problem)
    sources = [t.run_input() for t in problem.tests]
    small = [s for s in sources if mutable_size(s) <= SOURCE_LIMIT] or [
        min(sources, key=mutable_size)
    ]
    texts = [s.decode("utf-8", errors="strict") for s in small if _is_text(s)]
    if not texts:
        return []
    rng = random.Random(seed)
    seen = set(sources)
    out: list[bytes] = []
    for _ in range(count * 10):
        if len(out) >= count:
            break
        data = mutate(rng.choice(texts), rng, hint).encode()
        if data not in seen:
            seen.add(data)
            out.append(data)
    return out


def _is_text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def fuzz_problem(
    problem: Problem, count: int = 10, seed: int = 0, timeout: float = 2.0
) -> FuzzReport:
    """Derive fuzzed tests for a problem folder and write them to ``fuzz/``."""
    folder = problem.path
    if not folder or not Path(folder).is_dir():
        raise UserError(f"{problem.name}: fuzzing writes into a problem folder; this one has none")

    target = Path(folder) / "fuzz"
    shutil.rmtree(target, ignore_errors=True)  # fuzz from the problem's own tests only
    problem = load_problem(folder)
    candidates = fuzz_inputs(problem, count, seed)
    kept, dropped = _check(
        problem.source,
        candidates,
        timeout,
        problem.compile_flags,
        problem.ldflags,
        problem.exit_code,
        problem.units,
    )
    if kept:
        target.mkdir()
    for i, (data, out) in enumerate(kept, 1):
        (target / f"f{i:02d}.in").write_bytes(data)
        (target / f"f{i:02d}.out").write_bytes(out)
    if len(candidates) < count:
        dropped["no_new_variant"] = count - len(candidates)
    return FuzzReport(problem.name, count, len(kept), dict(dropped))


_DROPPED = {
    "timeout": "too_slow",
    "runtime_error": "reference_failed",
    "nondeterministic": "nondeterministic",
    "mismatch": "o0_o3_mismatch",
}


def _check(
    source: str,
    inputs: list[bytes],
    timeout: float,
    cflags: tuple[str, ...] = (),
    ldflags: tuple[str, ...] = (),
    exit_code: int = 0,
    units: tuple[str, ...] = (),
) -> tuple[list[tuple[bytes, bytes]], Counter]:
    """(input, output) of every input the reference handles the same twice at -O3 and
    once at -O0; the others counted by why they were dropped."""
    try:
        results = run_reference(
            source,
            inputs,
            runs={"O3": 2, "O0": 1},
            cflags=cflags,
            ldflags=ldflags,
            timeout=timeout,
            stop_at_failure=False,
            exit_code=exit_code,
            units=units,  # a multi-file program's other translation units
        )
    except ReferenceBuildError as e:
        raise UserError(f"the reference program does not compile at -{e.level}:\n{e.log}") from e
    kept = [(data, r.output) for data, r in zip(inputs, results, strict=True) if r.ok]
    return kept, Counter(_DROPPED[r.failure] for r in results if not r.ok)


# -- binary data files --------------------------------------------------------------

HEAD_BYTES = 64  # a drawn binary file keeps at most this much of a visible one's start
BYTES_SPAN = (0.5, 2.0)  # a drawn binary file's size, as a share of the largest seen
MAX_DRAWN_BYTES = 8 << 20
BYTES_DOMAIN = (
    "random bytes: files like the visible ones (their first bytes kept), at 1/2-2x "
    "the largest one's size"
)

ByteFile = tuple[tuple[str, ...], str, bytes]


def byte_files(inputs: list[bytes]) -> list[ByteFile]:
    """(arguments, name, body) of each of ``inputs`` where every one is one binary data
    file and empty stdin (MiBench crc32's ``small.pcm``, a compressor's input): no text
    to model, but a file like it is drawn as random bytes. Empty otherwise."""
    out = []
    for data in inputs:
        args, files, stdin = split_run(data)
        if len(files) != 1 or stdin or _is_text(files[0][1]) or not files[0][1]:
            return []
        out.append((args, files[0][0], files[0][1]))
    return out


def draw_byte_files(files: list[ByteFile], rng: random.Random, k: int) -> list[bytes]:
    """``k`` inputs like the largest of ``files``: its arguments and name, its first
    bytes (a header), then random bytes, at ``BYTES_SPAN`` of its size."""
    args, name, body = max(files, key=lambda f: len(f[2]))
    head = body[: min(HEAD_BYTES, len(body) // 8)]
    out = []
    for _ in range(k):
        size = min(MAX_DRAWN_BYTES, max(len(head) + 1, int(len(body) * rng.uniform(*BYTES_SPAN))))
        out.append(with_args(args, b"", ((name, head + rng.randbytes(size - len(head))),)))
    return out
