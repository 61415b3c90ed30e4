"""A problem generator's sizes (``gen.py``'s size argument, or the sizes it lists): the
range they span (``generator_size_range``: as long as the problem's inputs, probed once,
cached), the part a check draws and times (``generator_timed_range``: up to the largest
size whose input the reference runs within ``TOP_GEN_SECONDS``; ``listed_between`` for a
generator that lists its sizes), and the domain in one line (``generator_domain``). The
reference's runs are ``problems/domain.py``'s (``reference_runs``), judged by its floor."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import atomic_write_text, cache_dir
from supercoder.problems.domain import FLOOR_SECONDS, VERSION, reference_runs, tests_digest
from supercoder.problems.generator import generator_sizes, run_generator
from supercoder.types import Problem

# the top stratum of a generator's draws: the largest size whose input the reference runs
# within this (probed once per problem; a check's five draws stratified below it)
TOP_GEN_SECONDS = 0.024


def _write_json(path: Path, value: object) -> None:
    atomic_write_text(path, json.dumps(value))


def generator_domain(problem: Problem, source: str, file: str = "gen.py") -> str:
    """The generator's domain in one line: its sizes, the ones a check draws and the
    reference's CPU on them, and where every size runs under the meter's floor, that."""
    try:
        low, high = generator_size_range(problem, source)
        bottom, top, t_low, t_top = generator_timed_range(problem, source)
    except (UserError, InfraError) as e:
        return f"the problem's generator ({file}; its sizes could not be probed: {e})"
    small = "; too small to time: every size runs under 5 ms" if t_top < FLOOR_SECONDS else ""
    listed = listed_between(problem, source)
    if listed is not None:
        shown = ", ".join(map(str, listed[:8])) + (", ..." if len(listed) > 8 else "")
        ms = f"{1000 * TOP_GEN_SECONDS:.0f} ms budget"
        if t_top <= TOP_GEN_SECONDS:
            budget = f"the largest within the {ms}"
        elif top > low:  # the next listed size past the budget: the ones below are short
            budget = (
                f"the listed sizes below {top} run under {1.5 * FLOOR_SECONDS * 1000:.1f} ms: "
                f"the next one, past the {ms}"
            )
        else:
            budget = f"the smallest listed runs over the {ms}"
        return (
            f"the problem's generator ({file}), its listed sizes {low}-{high}; drawn at the "
            f"listed sizes {shown} (the reference's CPU about {1000 * t_low:.1f}-"
            f"{1000 * t_top:.1f} ms: {budget}){small}"
        )
    budget = f"{1000 * TOP_GEN_SECONDS:.0f} ms budget"
    if t_top > 1.05 * TOP_GEN_SECONDS and bottom == top:
        why = f"already past the {budget} at the smallest size probed"
    elif t_top > 1.05 * TOP_GEN_SECONDS:
        why = f"no size probed runs between the floor and the {budget}: the nearest on each side"
    elif top >= high:
        why = f"the generator's largest size, within the {budget}"
    else:
        why = f"the largest within the {budget}"
    return (
        f"the problem's generator ({file}), sizes {low}-{high}; drawn at {bottom}-{top} "
        f"(the reference's CPU about {1000 * t_low:.1f}-{1000 * t_top:.1f} ms: {why}){small}"
    )


def generator_size_range(problem: Problem, source: str) -> tuple[int, int]:
    """(low, high): the sizes the generator lists, else the sizes whose inputs are about
    as long as the problem's (probed once, cached)."""
    key = hashlib.sha256(source.encode() + tests_digest(problem).encode()).hexdigest()[:24]
    path = cache_dir() / "unseen" / "sizes" / f"{key}.json"
    try:
        low, high = json.loads(path.read_text())
        return int(low), int(high)
    except (OSError, ValueError, TypeError):
        pass
    listed = generator_sizes(source)
    if listed:
        found = (min(listed), max(listed))
    else:  # grow the size until the input is as long as the longest of the problem's
        longest = max(len(t.run_input()) for t in problem.tests)
        size, seed = 1, 12345
        while size < 1 << 30:
            (data,) = run_generator(source, [(seed, size)], label=f"{problem.name}: gen.py")
            if len(data) >= longest:
                break
            size *= 2
        found = (1, size)
    _write_json(path, list(found))
    return found


PROBES = 7  # sizes the timed range is probed at (the top, then halving)


def generator_timed_range(problem: Problem, source: str) -> tuple[int, int, float, float]:
    """(bottom, top, the reference's CPU at each): the generator's sizes a check draws
    from. ``top``: the largest size whose input the reference runs within
    ``TOP_GEN_SECONDS`` (the top stratum); ``bottom``: the smallest that still runs
    1.5x the meter's floor, so every stratum is timed (where no size does: the upper
    half below ``top``). Probed once per problem at the top size and halvings of it
    (one generator run, one reference sandbox), then, where no probed size runs between
    the floor and the budget, bisected up to ``BISECT`` times; interpolated on a log-log
    scale; cached."""
    key = hashlib.sha256(
        f"timed{VERSION}c\n{TOP_GEN_SECONDS}\n".encode()
        + source.encode()
        + tests_digest(problem).encode()
    ).hexdigest()[:24]
    path = cache_dir() / "unseen" / "sizes" / f"t{key}.json"
    try:
        b, t, tb, tt = json.loads(path.read_text())
        return int(b), int(t), float(tb), float(tt)
    except (OSError, ValueError, TypeError):
        pass
    sizes_listed = listed_timed_sizes(problem, source)
    if sizes_listed is not None:
        found = _listed_range(sizes_listed)
        _write_json(path, list(found))
        return found
    low, high = generator_size_range(problem, source)
    sizes = []
    n = high
    while n >= max(1, low) and len(sizes) < PROBES:
        sizes.append(n)
        n //= 2
    rng = random.Random(int(key[:12], 16))
    data = run_generator(
        source, [(rng.getrandbits(62), n) for n in sizes], label=f"{problem.name}: gen.py"
    )
    outputs, cpu = reference_runs(problem, data)
    points = sorted((n, t) for n, o, t in zip(sizes, outputs, cpu, strict=True) if o is not None)
    # a failed probe is a failure: no size from the smallest one failing above a clean one
    first = points[0][0] if points else math.inf
    failed = [n for n, o in zip(sizes, outputs, strict=True) if o is None and n > first]
    points = [(n, t) for n, t in points if not failed or n < min(failed)]
    for _ in range(BISECT):  # no size between the floor and the budget yet: bisect the
        # bracket (a cost exponential in the size jumps 16x between halvings)
        mid = _bisect(points)
        if mid is None:
            break
        (one,) = run_generator(
            source, [(rng.getrandbits(62), mid)], label=f"{problem.name}: gen.py"
        )
        (out,), (took,) = reference_runs(problem, [one])
        if out is None:
            failed.append(mid)
            break
        points = sorted([*points, (mid, took)])
    found = _timed_range(points, low, high)
    if failed and points and found[1] >= min(failed):  # past a failing size: below it
        n, t = max(p for p in points if p[0] < min(failed))
        found = (min(found[0], n), n, min(found[2], t), t)
    _write_json(path, list(found))
    return found


LISTED_OVER = 8.0  # a listed size this far over the budget may top an untimeable range
LISTED_PROBES = 16  # the listed sizes probed at most (the largest, then every other)


def listed_timed_sizes(problem: Problem, source: str) -> list[tuple[int, float]] | None:
    """The sizes the generator lists (``SIZES``) that a check may draw, each with the
    reference's CPU on it, ascending: used as listed, never interpolated (an FFT takes
    powers of two only), where the reference fails on a size between them. Every listed
    size is probed (up to ``LISTED_PROBES``: the largest ones and every other below); a
    size whose input the reference does not run cleanly is left out (a failed probe is a
    failure, never a clean size). None: the generator lists no sizes, or the reference
    runs the sizes between them too (the list is a range). Probed once, cached."""
    listed = sorted(set(generator_sizes(source)))
    if not listed:
        return None
    key = hashlib.sha256(
        f"listed{VERSION}\n".encode() + source.encode() + tests_digest(problem).encode()
    ).hexdigest()[:24]
    path = cache_dir() / "unseen" / "sizes" / f"l{key}.json"
    try:
        stored = json.loads(path.read_text())
        return None if stored is None else [(int(n), float(t)) for n, t in stored]
    except (OSError, ValueError, TypeError):
        pass
    probe = listed[::-1]
    if len(probe) > LISTED_PROBES:
        probe = probe[: LISTED_PROBES // 2] + probe[LISTED_PROBES // 2 :: 2][: LISTED_PROBES // 2]
    probe.sort()
    rng = random.Random(int(key[:12], 16))
    ran: dict[int, tuple[bool, float]] = {}

    def run(sizes: list[int]) -> None:
        requests = [(rng.getrandbits(62), n) for n in sizes]
        data = run_generator(source, requests, label=f"{problem.name}: gen.py")
        outputs, cpu = reference_runs(problem, data)
        ran.update((n, (o is not None, t)) for n, o, t in zip(sizes, outputs, cpu, strict=True))

    for start in range(0, len(probe), 4):  # the smallest first, four at a time, up to
        run(probe[start : start + 4])  # a size that fails or runs far past the budget
        if any(not ok or t > LISTED_OVER * TOP_GEN_SECONDS for ok, t in ran.values()):
            break
    # sizes between the listed ones (the middle of the top and the bottom gap probed):
    # where the reference fails on one, the listed sizes are the only ones (powers of
    # two); where it runs them, the list is a range (SIZES = [1, 100000]) and any size
    # between is drawn
    clean = sorted(n for n, (ok, _) in ran.items() if ok)
    gaps = [(a, b) for a, b in zip(clean, clean[1:], strict=False) if b - a > 1]
    between = sorted({(a + b) // 2 for a, b in (gaps[-1:] + gaps[:1])} - set(ran))
    if between:
        run(between)
    if between and all(ran[n][0] for n in between):
        _write_json(path, None)
        return None  # a range: drawn over it, as a generator that lists no sizes
    probe = [n for n in probe if n in ran]
    found = sorted((n, t) for n in probe if ran[n][0] for t in (ran[n][1],))
    _write_json(path, found)
    return found


def _listed_range(points: list[tuple[int, float]]) -> tuple[int, int, float, float]:
    """``generator_timed_range`` over listed sizes: from the smallest running 1.5x the
    floor (else the largest under it) up to the largest within ``TOP_GEN_SECONDS``
    (else the smallest over it); listed sizes only."""
    if not points:
        raise UserError("the reference fails on the input of every size the generator lists")
    within = [(n, t) for n, t in points if t <= TOP_GEN_SECONDS]
    top = within[-1] if within else points[0]
    over = [(n, t) for n, t in points if n > top[0] and t <= LISTED_OVER * TOP_GEN_SECONDS]
    if top[1] < 1.5 * FLOOR_SECONDS and over:  # 7 8 9 10 of a cost that explodes: the
        top = over[0]  # next listed size, though over the budget, rather than untimed
    long = [(n, t) for n, t in points if t >= 1.5 * FLOOR_SECONDS and n <= top[0]]
    bottom = long[0] if long else top
    return bottom[0], top[0], bottom[1], top[1]


def listed_between(problem: Problem, source: str) -> list[int] | None:
    """The listed sizes a check draws from (``listed_timed_sizes`` within the timed
    range); None where the generator lists none."""
    points = listed_timed_sizes(problem, source)
    if points is None:
        return None
    bottom, top = generator_timed_range(problem, source)[:2]
    return [n for n, _ in points if bottom <= n <= top] or [top]


BISECT = 4  # probes more at most, between the last size within budget and the first over


def _bisect(points: list[tuple[int, float]]) -> int | None:
    """The size to probe next: between the largest within ``TOP_GEN_SECONDS`` and the
    smallest over it, while no probed size runs between 1.5x the floor and the budget
    (geometric middle of a wide bracket, else the arithmetic one); None: done."""
    if any(1.5 * FLOOR_SECONDS <= t <= TOP_GEN_SECONDS for _, t in points):
        return None
    within = [n for n, t in points if t <= TOP_GEN_SECONDS]
    over = [n for n, t in points if t > TOP_GEN_SECONDS and (not within or n > within[-1])]
    if not within or not over:
        return None
    n1, n2 = within[-1], over[0]
    if n2 - n1 <= 1:
        return None
    mid = int(round(math.sqrt(n1 * n2))) if n1 > 0 and n2 > 4 * n1 else (n1 + n2) // 2
    return mid if n1 < mid < n2 else (n1 + n2) // 2


def _timed_range(
    points: list[tuple[int, float]], low: int, high: int
) -> tuple[int, int, float, float]:
    """``generator_timed_range`` from probed (size, CPU seconds), ascending."""
    if not points:
        return max(low, high // 2), high, 0.0, 0.0
    within = [(n, t) for n, t in points if t <= TOP_GEN_SECONDS]
    if not within:
        n, t = points[0]
        return n, n, t, t
    if not any(t >= 1.5 * FLOOR_SECONDS for _, t in within) and len(within) < len(points):
        # no size runs between the floor and the budget (a cost that jumps, as
        # graph_dijkstra's 60 sources at 5000 nodes): from the last short size to the
        # first long one; a check draws again larger what falls short
        (n1, t1), (n2, t2) = within[-1], points[len(within)]
        return n1, n2, t1, t2
    top, t_top = within[-1]
    above = [(n, t) for n, t in points if n > top]
    if above:  # between the last within budget and the first over it
        n2, t2 = above[0]
        top = _between(top, t_top, n2, t2, TOP_GEN_SECONDS)
        t_top = TOP_GEN_SECONDS
    long = [(n, t) for n, t in points if t >= 1.5 * FLOOR_SECONDS and n <= top]
    if not long:
        return max(low, top // 2), top, t_top / 2, t_top
    bottom, t_bottom = long[0]
    below = [(n, t) for n, t in points if n < bottom]
    if below:
        n1, t1 = below[-1]
        bottom = _between(n1, t1, bottom, t_bottom, 1.5 * FLOOR_SECONDS)
        t_bottom = 1.5 * FLOOR_SECONDS
    return min(bottom, top), top, min(t_bottom, t_top), t_top


def _between(n1: int, t1: float, n2: int, t2: float, target: float) -> int:
    """The size between n1 and n2 whose CPU is ``target`` (log-log interpolation)."""
    if t1 <= 0 or t2 <= t1 or n1 <= 0:
        return n1
    f = math.log(target / t1) / math.log(t2 / t1)
    return int(round(n1 * (n2 / n1) ** max(0.0, min(1.0, f))))
