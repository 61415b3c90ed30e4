"""A problem's input domain: declared, extrapolated, judged against the visible inputs.

Before: the inferred model drew within the span the visible inputs show and nothing
else; a program with undefined behaviour the sanitizer reports on every input (the
visible ones too) had its model dropped without a word ("no test the model never
saw"); a jump in cost (graph_dijkstra: 60 sources from 5000 nodes) left it untimed.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_domain.py."""

from __future__ import annotations

import random

import pytest

from supercoder.errors import UserError
from supercoder.problems.constraints import constraint_lines
from supercoder.problems.inputmodel import InputModel, infer
from supercoder.verify.unseen import _timed_range

LINE = [b"3\n1 2 3\n", b"5\n10 20 30 40 50\n", b"4\n7 7 7 9\n"]


def test_declared_constraints_bound_the_draws_by_name_or_position() -> None:
    model = infer(LINE).with_constraints(["1<=N<=50", "A_i<=10^9"])
    lines = constraint_lines(model.spec)
    assert lines[0].startswith("N -> v0 (line 1, value 1) [1, 50]")
    assert lines[1].startswith("A_i -> the values (line 2, each value)")
    grown = model.with_domain({"version": 1, "grow": 1000.0})
    drawn = grown.draw(random.Random(1), 20)
    sizes = [int(x.split()[0]) for x in drawn]
    values = [int(v) for x in drawn for v in x.split()[1:]]
    assert max(sizes) <= 50 and max(sizes) > 5  # grown, never past the declaration
    assert max(values) <= 10**9 and max(values) > 10**6  # the declared range, not 1-50
    bounded = infer(LINE).with_constraints(["N<=20", "1<=A_i<=N"])
    for text in bounded.with_domain({"version": 1, "grow": 100.0}).draw(random.Random(2), 10):
        n, *xs = (int(v) for v in text.split())
        assert all(1 <= x <= n for x in xs)
    # a model's own names bind too; nonsense is refused with the form to use
    assert "v0" in constraint_lines(infer(LINE).with_constraints(["v0<=9"]).spec)[0]
    with pytest.raises(UserError, match="LO<=NAME<=HI"):
        infer(LINE).with_constraints(["N is small"])
    with pytest.raises(UserError, match="no number outside repeats left"):
        infer(LINE).with_constraints(["N<=5", "M<=5"])


def test_refinements_and_letters_change_what_is_drawn() -> None:
    spec = {
        "format": "supercoder-input-model/1",
        "body": [
            {"line": [{"int": [0, 40], "name": "v0", "size": True}]},
            {"line": [{"run": {"count": {"var": "v0"}, "of": {"int": [0, 9], "within": "v0"}}}]},
            {"line": [{"word": {"chars": "ab", "len": {"range": [12, 12]}}}]},
        ],
    }
    plain = InputModel(spec).draw(random.Random(3), 30)
    refined = InputModel({**spec, "domain": {"refine": ["bounded", "nonempty"], "letters": True}})
    drawn = refined.draw(random.Random(3), 30)
    assert any(int(x.split()[0]) < 9 for x in plain)  # an index past a small n, before
    for text in drawn:
        lines = text.split("\n")
        n = int(lines[0])
        assert n >= 1 and all(int(v) <= n for v in lines[1].split())
    letters = set("".join(x.split("\n")[2] for x in drawn))
    assert len(letters) > 10 and letters <= set("abcdefghijklmnopqrstuvwxyz")


def test_a_jump_in_cost_keeps_the_long_sizes() -> None:
    """graph_dijkstra: 4.9 ms at 4900 nodes, 52 ms at 5000 (60 sources from there): no
    size in between, so the timed range spans the jump and short draws are drawn again
    larger; a smooth cost gives the sizes from 1.5x the floor up to the budget."""
    jump = [(1000, 0.001), (2000, 0.002), (4000, 0.004), (8000, 0.060)]
    assert _timed_range(jump, 1, 8000)[:2] == (4000, 8000)
    smooth = [(1000, 0.003), (2000, 0.006), (4000, 0.012), (8000, 0.024)]
    bottom, top, t_low, t_top = _timed_range(smooth, 1, 8000)
    assert top == 8000 and 1000 < bottom < 4000 and t_low >= 0.0075
    fast = [(100, 0.0001), (400, 0.0004)]
    assert _timed_range(fast, 1, 400)[:2] == (200, 400)  # all under the floor: the top half


def test_a_counted_sequence_is_tiled_with_its_codes_kept() -> None:
    """Operations valid only in order (a pop needs a non-empty stack): the model's random
    lines are refused, so the visible sequence is repeated, its codes kept and its
    values drawn anew: valid from an empty stack, repeated is valid too."""
    from supercoder.verify.unseen import _tile

    body = [["1", "5"], ["1", "900"], ["2"], ["1", "42"], ["2"], ["2"]]
    text = _tile((["6"], body), 3, random.Random(1))
    lines = [ln.split() for ln in text.strip().split("\n")]
    assert lines[0] == ["18"] and len(lines) == 19
    assert [ln[0] for ln in lines[1:]] == [ln[0] for ln in body] * 3  # the codes, in order
    values = [int(ln[1]) for ln in lines[1:] if len(ln) == 2]
    assert all(5 <= v <= 900 for v in values) and len(set(values)) > 3  # drawn anew
