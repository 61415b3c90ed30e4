"""Drawing at real sizes (issue 42): a contest input of 2 MB (``16 100000``, then 2^16
numbers, then 100,000 queries) is drawn in tens of milliseconds, not refused as "an
input that takes too long to draw"; a model too large for the budget is drawn smaller,
never dropped; ``2^n`` values and ``l <= r`` queries are inferred; a handful of integer
sizes (a depth, ``fannkuch N``) is recognised as such.

Before: drawing the 2 MB model spent the whole 1 s host budget on one or two inputs
(token by token), and init dropped the model; the count ``2^k`` was a fixed range
unrelated to ``k``, so a drawn ``k`` misread its own input."""

from __future__ import annotations

import random
import time

from supercoder.problems.domain import describe, small_top
from supercoder.problems.inputmodel import (
    DRAW_CHARS,
    DRAW_SECONDS,
    InputModel,
    infer,
)

FORMAT = "supercoder-input-model/1"


def _contest(k: int, q: int, rng: random.Random) -> bytes:
    """``k q``, then 2^k numbers on one line, then ``q`` queries ``l r`` (l <= r <= 2^k)."""
    n = 1 << k
    rows = []
    for _ in range(q):
        a, b = rng.randint(1, n), rng.randint(1, n)
        rows.append(f"{min(a, b)} {max(a, b)}")
    nums = " ".join(str(rng.randint(0, 10**9)) for _ in range(n))
    return f"{k} {q}\n{nums}\n" + "\n".join(rows) + "\n"


CONTEST = {  # what ``infer`` makes of the contest inputs (checked below)
    "format": FORMAT,
    "body": [
        {
            "line": [
                {"int": [3, 16], "name": "v0", "size": True, "exp": True},
                {"int": [4, 100000], "name": "v1", "size": True},
            ]
        },
        {"line": [{"run": {"count": {"var": "2^v0"}, "of": {"int": [0, 10**9]}}}]},
        {
            "repeat": {"var": "v1"},
            "body": [
                {
                    "line": [
                        {"int": [1, 65536], "max": "2^v0", "name": "v2"},
                        {"int": [1, 65536], "max": "2^v0", "name": "v3"},
                    ],
                    "ordered": [[0, 1]],
                }
            ],
        },
    ],
    "longest": 1830128,
}


def _valid(text: str) -> bool:
    lines = text.split("\n")
    k, q = (int(x) for x in lines[0].split())
    nums = lines[1].split()
    queries = [tuple(int(x) for x in ln.split()) for ln in lines[2:] if ln]
    return (
        len(nums) == 1 << k and len(queries) == q and all(1 <= a <= b <= 1 << k for a, b in queries)
    )


def test_a_2mb_contest_model_draws_five_inputs_well_within_the_budget() -> None:
    model = InputModel(CONTEST).with_domain({"version": 1, "grow": 1.0})
    start = time.process_time()
    drawn = model.draw(random.Random(7), 5, strata=(0.9, 0.95, 1.0, 1.0, 1.0))
    took = time.process_time() - start
    assert len(drawn) == 5  # before: one or two, the rest over the budget
    assert max(len(d) for d in drawn) > 1_000_000  # real sizes: 1-2 MB each
    assert took < DRAW_SECONDS / 2, took  # about 0.15 s here; before: the whole 1 s
    assert all(_valid(d) for d in drawn)


def test_a_model_too_large_for_the_budget_is_drawn_smaller_not_dropped() -> None:
    grown = InputModel(CONTEST).with_domain({"version": 1, "grow": 64.0})  # 2^22 numbers
    drawn = grown.draw(random.Random(3), 5, strata=(1.0,) * 5)
    assert len(drawn) == 5
    assert all(len(d) <= DRAW_CHARS and _valid(d) for d in drawn)
    huge = {  # a fixed run of ten million numbers: drawn with fewer, not refused
        "format": FORMAT,
        "body": [{"line": [{"run": {"count": {"range": [10**7, 10**7]}, "of": {"int": [0, 9]}}}]}],
    }
    drawn = InputModel(huge).with_domain({"version": 1}).draw(random.Random(1), 3)
    assert len(drawn) == 3 and all(0 < len(d) <= DRAW_CHARS for d in drawn)


def test_a_draw_made_smaller_says_the_scale_it_was_drawn_at() -> None:
    """The domain search reads the scale each draw was made at, so a domain whose draws
    are cut down to the drawing budget says the sizes they reach, not the sizes it asked
    for (before: "sizes grown to 2.14e+05x the largest seen" over draws of 37 KB-1.5 MB)."""
    scales: list[float] = []
    grown = InputModel(CONTEST).with_domain({"version": 1, "grow": 64.0})
    grown.draw(random.Random(3), 3, strata=(1.0,) * 3, scales=scales)
    assert len(scales) == 3 and max(scales) < 1  # 2^22 numbers: over the budget
    scales.clear()
    InputModel(CONTEST).with_domain({"version": 1}).draw(random.Random(3), 2, scales=scales)
    assert scales == [1.0, 1.0]  # within the budget: as asked


def test_powers_of_two_and_ordered_queries_are_inferred() -> None:
    rng = random.Random(5)
    inputs = [_contest(k, q, rng).encode() for k, q in ((3, 9), (5, 12), (6, 40))]
    spec = infer(inputs).spec
    head, data, queries = spec["body"]
    assert head["line"][0].get("exp") and head["line"][0]["size"]
    assert data["line"][0]["run"]["count"] == {"var": "2^v0"}
    assert queries["repeat"] == {"var": "v1"}
    pair = queries["body"][0]
    assert pair["ordered"] == [[0, 1]]
    assert {f.get("max") for f in pair["line"]} == {"2^v0"}
    # grown, k grows by one per doubling and every draw stays consistent
    drawn = infer(inputs).with_domain({"version": 1, "grow": 4.0}).draw(random.Random(2), 8)
    assert all(_valid(d) for d in drawn)
    assert max(int(d.split()[0]) for d in drawn) == 8  # 6 + log2(4)


def test_a_handful_of_integer_sizes_is_told_apart_from_a_count() -> None:
    args = infer([b"\x00supercoder-args\x0010\n", b"\x00supercoder-args\x0014\n"])
    assert small_top(args) == 14
    counted = infer([b"3\n1 2 3\n", b"5\n1 2 3 4 5\n"])  # n then n numbers: not a handful
    assert small_top(counted) is None
    stepped = args.with_domain({"version": 1, "grow": 15 / 14, "top_seconds": 0.09, "steps": True})
    line = describe(stepped)
    assert "stepped by one up to 15 (the largest seen 14)" in line
    draws = {
        int(d.split(b"\x00")[-1]) for d in (x.encode() for x in stepped.draw(random.Random(1), 40))
    }
    assert draws <= set(range(7, 16)) and {11, 13, 15} <= draws  # between and beyond


def test_power_of_two_sizes_and_trailing_flags_in_argv_are_drawn_as_seen() -> None:
    """MiBench FFT: ``4 4096``, ``4 8192 -i``, ``8 32768`` was token soup whose every
    draw the program refused (a size not a power of two, a flag ``6i-``)."""
    mark = b"\x00supercoder-args\x00"
    model = infer([mark + b"4 4096\n", mark + b"4 8192 -i\n", mark + b"8 32768\n"])
    (line,) = model.spec["body"]
    assert line["line"][1]["pow2"] and line["line"][2]["run"]["of"] == {"word": {"one_of": ["-i"]}}
    for text in model.with_domain({"version": 1, "grow": 8.0}).draw(random.Random(4), 12):
        _, size, *flags = text.rsplit("\x00", 1)[-1].split()
        assert int(size) & (int(size) - 1) == 0 and int(size) >= 4096
        assert flags in ([], ["-i"])  # flags as seen, never more of them


def test_lines_whose_token_count_varies_are_drawn_at_once_at_the_sizes_seen() -> None:
    """Where infer finds no count for a multi-case input (``T`` games, each ``w h s``, two
    boards, then ``s`` shots), its tail is a repeat of lines of 1-3 tokens: those are
    drawn a column at a time too (per-line widths drawn at once), at the sizes seen.
    Before: line by line in Python, 5 draws spent the whole budget on 5 KB each."""
    tail = {"word": {"chars": "#_0123456789", "len": {"range": [1, 30]}}}
    spec = {
        "format": FORMAT,
        "body": [
            {"line": [{"int": [2, 300], "name": "v0", "size": True}]},
            {
                "repeat": {"range": [74, 60000]},
                "body": [{"line": [{"run": {"count": {"range": [1, 3]}, "of": tail}}]}],
            },
        ],
        "longest": 1_700_000,
    }
    start = time.process_time()
    drawn = InputModel(spec).draw(random.Random(4), 4, strata=(1.0,) * 4)
    took = time.process_time() - start
    assert len(drawn) == 4 and min(map(len, drawn)) > 200_000  # before: about 5 KB
    lines = [ln.split() for d in drawn for ln in d.splitlines()[1:]]
    assert {len(t) for t in lines} <= {1, 2, 3}
    assert all(1 <= len(tok) <= 30 for t in lines for tok in t)
    assert took < DRAW_SECONDS / 2, took


def test_numbers_joined_by_separators_are_drawn_as_numbers_not_letters() -> None:
    """``m:ss`` times (and dates) are numbers joined by a separator, drawn within the
    range seen at each place, zero-padded as seen. Before: a word over ``0123456789:``
    (``9:1:``, ``::47``) that ``scanf("%d:%d")`` stops at, so every drawn input ended
    after a line or two and ran under 5 ms while the visible large one did not."""
    rng = random.Random(6)
    inputs = []
    for n in (3, 400, 5000):
        rows = [f"{rng.randint(0, 9)}:{rng.randint(0, 59):02d}" for _ in range(n)]
        inputs.append((f"{n} {rng.randint(1, 20)}\n" + "\n".join(rows) + "\n").encode())
    inputs.append(b"2\n2024-01-31 3:05\n1999-12-01 12:00\n")  # another shape, alone
    model = infer(inputs[:3])
    song = model.spec["body"][1]["body"][0]["line"][0]
    assert song == {"parts": [{"int": [0, 9]}, {"int": [0, 59], "pad": 2}], "seps": [":"]}
    for text in model.draw(random.Random(1), 4):
        head, *rows = text.splitlines()
        assert len(rows) == int(head.split()[0]) > 0
        for row in rows:
            m, s = row.split(":")
            assert 0 <= int(m) <= 9 and len(s) == 2 and 0 <= int(s) <= 59
    dates = infer(inputs[3:]).draw(random.Random(2), 3)
    for text in dates:
        for row in text.splitlines()[1:]:
            day, clock = row.split()
            y, mo, d = day.split("-")
            assert 1999 <= int(y) <= 2024 and len(mo) == len(d) == 2 and ":" in clock
    assert "parts" not in str(infer([b"1\nab:cd\n"]).spec)  # letters: a word, as before


def test_a_grid_then_as_many_rows_of_numbers_are_two_parts_not_pairs_of_lines() -> None:
    """``h w``, ``h`` rows of ``.#``, then ``h`` rows of ``w`` numbers (and ``n`` values,
    then ``n`` queries of another shape) are two repeats one after another. Before: read
    as ``h`` blocks of two lines, every line a word over ``#.0123456789``."""
    rng = random.Random(8)
    inputs = []
    for h, w in ((2, 3), (6, 5), (30, 40)):
        grid = ["".join(rng.choice(".#") for _ in range(w)) for _ in range(h)]
        nums = [" ".join(str(rng.randint(1, h * w)) for _ in range(w)) for _ in range(h)]
        inputs.append(f"{h} {w}\n" + "\n".join(grid + nums) + "\n")
    body = infer([i.encode() for i in inputs]).spec["body"]
    assert [n.get("repeat") for n in body[1:]] == [{"var": "v0"}, {"var": "v0"}]
    assert body[1]["body"][0]["line"][0]["word"] == {"chars": "#.", "len": {"var": "v1"}}
    assert body[2]["body"][0]["line"][0]["run"]["count"] == {"var": "v1"}
    for text in infer([i.encode() for i in inputs]).draw(random.Random(2), 3):
        lines = text.splitlines()
        h, w = map(int, lines[0].split())
        assert all(len(ln) == w and set(ln) <= set(".#") for ln in lines[1 : h + 1])
        assert all(len(ln.split()) == w for ln in lines[h + 1 :]) and len(lines) == 2 * h + 1
    same = [f"{n}\n" + "\n".join(f"{i} {i + 1}" for i in range(2 * n)) + "\n" for n in (3, 5)]
    assert infer([s.encode() for s in same]).spec["body"][1]["repeat"] == {"var": "v0"}


def test_powers_of_two_can_be_declared_as_constraints() -> None:
    """``--constraint 'N=2^k'`` (a power of two) and ``'N=2^K'`` (two to the power of an
    earlier number) where one visible input cannot show the structure."""
    one = infer([b"8\n" + b" ".join(b"%d" % i for i in range(8)) + b"\n"])
    model = one.with_constraints(["1<=N<=4096", "N=2^k"])
    for text in model.draw(random.Random(2), 12):
        n, *values = map(int, text.split())
        assert n & (n - 1) == 0 and len(values) == n, text[:80]
    two = infer([b"3 8\n" + b" ".join(b"%d" % i for i in range(8)) + b"\n"])
    model = two.with_constraints(["1<=K<=10", "N=2^K"])
    drawn = model.draw(random.Random(3), 12)
    for text in drawn:
        k, n, *values = map(int, text.split())
        assert n == 1 << k and len(values) == n, text[:80]
    assert len({t.split()[0] for t in drawn}) > 1  # K itself varies


def _lines_of(rng: random.Random, n: int, width: int, top: int) -> list[str]:
    return [" ".join(str(rng.randint(1, top)) for _ in range(width)) for _ in range(n)]


def test_common_contest_shapes_are_inferred_as_written() -> None:
    """Three shapes real contest inputs have. ``n m q``, ``m`` edges, then ``q`` queries
    of the same shape: two repeats (before: the lines one by one, then a generic tail).
    ``r c``, ``r`` rows of ``.#``, then ``q`` and ``q`` queries: the rows are one repeat
    (before: ``q`` read as one more row, the queries as words over ``#.0123``). ``T``
    cases of ``n`` then ``n`` values: ``T`` a size, not an exponent (before: ``2^T``
    bounded the values where seen, and ``T`` grew by one per doubling)."""
    rng = random.Random(9)
    graphs = [
        "\n".join([f"{n} {m} {q}", *_lines_of(rng, m, 2, n), *_lines_of(rng, q, 2, n)]) + "\n"
        for n, m, q in ((5, 4, 3), (50, 70, 20), (300, 200, 500))
    ]
    body = infer([g.encode() for g in graphs]).spec["body"]
    assert [b.get("repeat") for b in body[1:]] == [{"var": "v1"}, {"var": "v2"}]
    for text in infer([g.encode() for g in graphs]).draw(random.Random(1), 3):
        head, *rows = text.splitlines()
        n, m, q = map(int, head.split())
        assert len(rows) == m + q and all(1 <= int(x) <= n for r in rows for x in r.split())
    grids = []
    for r, c, q in ((3, 4, 2), (20, 30, 10), (100, 80, 300)):
        rows = ["".join(rng.choice(".#") for _ in range(c)) for _ in range(r)]
        grids.append("\n".join([f"{r} {c}", *rows, str(q), *_lines_of(rng, q, 4, r)]) + "\n")
    body = infer([g.encode() for g in grids]).spec["body"]
    assert body[1]["repeat"] == {"var": "v0"} and body[3]["repeat"] == {"var": "v2"}
    assert body[1]["body"][0]["line"][0]["word"]["chars"] == "#."
    cases = []
    for t in (3, 10, 40):
        lines = [str(t)]
        for _ in range(t):
            n = rng.randint(1, 9)
            lines += [str(n), " ".join(str(rng.randint(1, 99)) for _ in range(n))]
        cases.append("\n".join(lines) + "\n")
    head = infer([c.encode() for c in cases]).spec["body"][0]["line"][0]
    assert head["size"] and not head.get("exp"), head


def test_test_cases_of_data_then_queries_are_blocks_led_by_their_header() -> None:
    """``t`` cases, each ``n q``, a line of ``n`` values, then ``q`` queries (a case is
    its header's ``q`` + 1 lines: the Codeforces multi-test shape). Before: no block
    split, so every line after the first case was a line of its own or a generic tail."""
    rng = random.Random(10)

    def cases(t: int, top: int) -> bytes:
        lines = [str(t)]
        for _ in range(t):
            n, q = rng.randint(1, top), rng.randint(1, top)
            lines += [f"{n} {q}", " ".join(str(rng.randint(1, 10**9)) for _ in range(n))]
            for _ in range(q):
                a, b = sorted((rng.randint(1, n), rng.randint(1, n)))
                lines.append(f"{a} {b}")
        return ("\n".join(lines) + "\n").encode()

    model = infer([cases(2, 4), cases(10, 30), cases(50, 2000)])
    case = model.spec["body"][1]
    assert case["repeat"] == {"var": "v0"} and case["body"][2]["repeat"] == {"var": "v2"}
    for text in model.draw(random.Random(0), 3):
        lines = text.splitlines()
        at = 1
        for _ in range(int(lines[0])):
            n, q = map(int, lines[at].split())
            assert len(lines[at + 1].split()) == n
            assert all(1 <= int(x) <= n for ln in lines[at + 2 : at + 2 + q] for x in ln.split())
            at += 2 + q
        assert at == len(lines)
