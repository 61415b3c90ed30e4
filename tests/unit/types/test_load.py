"""The load a figure was timed under: kept in the verdict's measurement, round-tripped
by the codec, and a re-check on a busier or quieter machine is marked, never silently
compared (``types.load_change``, ``optimize.confirmation_lines``, ``display``)."""

from __future__ import annotations

import io

from rich.console import Console

from supercoder.commands.display import print_verdict
from supercoder.commands.optimize import confirmation_lines
from supercoder.types import (
    Machine,
    Measurement,
    Provenance,
    Speedup,
    Status,
    Verdict,
    VerdictContext,
    load_change,
    machine_load,
)


def _verdict(load=None, first_load=None, checks=1) -> Verdict:
    first = Speedup(1.435, 1.41, 1.46, 24, 5) if checks > 1 else None
    measurement = Measurement(
        checks=checks, first_check=first, load=load, first_check_load=first_load
    )
    provenance = Provenance(machine=Machine(gcc="gcc 12", cpu="EPYC"), sandbox="bubblewrap")
    return Verdict(
        "p",
        Status.OK,
        speedup=Speedup(1.233, 1.214, 1.254, 24, 5),
        context=VerdictContext(provenance=provenance, measurement=measurement),
    )


def test_a_change_of_load_between_checks_is_named_with_its_direction():
    assert load_change(0.4, 1.9).startswith("the machine was busier at this check")
    assert "load 0.40 -> 1.90 per CPU" in load_change(0.4, 1.9)
    assert load_change(2.0, 0.5).startswith("the machine was quieter")
    assert load_change(0.4, 0.6) == "" and load_change(None, 3.0) == ""
    now = machine_load()
    assert now is None or now >= 0


def test_the_load_travels_in_the_verdict_json():
    v = _verdict(load=1.9, first_load=0.4, checks=2)
    back = Verdict.from_json(v.to_json())
    assert back.context.measurement.load == 1.9
    assert back.context.measurement.first_check_load == 0.4
    assert v.to_json()["context"]["load"] == 1.9  # flat, beside the other measurement keys


def test_optimize_says_its_figure_is_the_confirming_check_and_marks_a_load_change():
    lines = confirmation_lines(_verdict(load=1.9, first_load=0.4, checks=2))
    assert "the answer's own confirming check at load 1.90 per CPU" in lines[0]
    assert "the check that picked it (1.435x [1.410, 1.460] at load 0.40)" in lines[0]
    assert lines[1].startswith("  note: the machine was busier at this check")
    same = confirmation_lines(_verdict(load=0.5, first_load=0.4, checks=2))
    assert not any("busier" in x or "quieter" in x for x in same)  # as loaded: no load note
    assert confirmation_lines(_verdict(load=0.3)) == [
        "  this figure is the answer's own check at load 0.30 per CPU"
    ]


def test_a_check_prints_the_load_it_was_timed_at():
    out = io.StringIO()
    print_verdict(_verdict(load=1.25), Console(file=out, width=200))
    assert "timed at load 1.25 per CPU" in out.getvalue()


def test_a_check_under_the_floor_says_not_timed_as_eval_counts_it():
    from dataclasses import replace

    from supercoder.types import TestResult

    short = TestResult("a", Status.OK, baseline_seconds=0.001, candidate_seconds=0.001, timed=True)
    v = replace(_verdict(load=0.2), tests=(short,))
    out = io.StringIO()
    print_verdict(v, Console(file=out, width=200))
    text = out.getvalue()
    assert "not timed: every timed input's baseline ran under 5 ms" in text
    assert "eval counts this problem untimed too" in text and "significantly" not in text
    # one word for one fact: no figure beside "not timed", not even per test
    assert "1.23x" not in text and "[1.21, 1.25]" not in text and "1.00x" not in text
    from supercoder.commands.optimize import _speedup_text

    assert _speedup_text(v) == "not timed (every timed input's baseline ran under 5 ms)"
    long = replace(short, baseline_seconds=0.02, candidate_seconds=0.016)
    out = io.StringIO()
    print_verdict(replace(v, tests=(long,)), Console(file=out, width=200))
    assert "not timed:" not in out.getvalue() and "speedup 1.23x [1.21, 1.25]" in out.getvalue()


def test_a_check_busier_than_its_floor_says_the_floor_was_widened():
    from dataclasses import replace

    v = _verdict(load=6.5)
    where = replace(v.context.provenance, noise_floor=0.0166, floor_load=2.5)
    busy = replace(v, context=replace(v.context, provenance=where))
    out = io.StringIO()
    print_verdict(busy, Console(file=out, width=240))
    text = out.getvalue()
    assert "timed at load 6.50 per CPU, busier than its noise floor was measured at" in text
    assert "(2.50): the floor widened to 1.66% for it" in text
    back = Verdict.from_json(busy.to_json())
    assert back.context.provenance.floor_load == 2.5
    out = io.StringIO()
    print_verdict(_verdict(load=1.25), Console(file=out, width=240))
    assert "floor widened" not in out.getvalue()


def test_optimize_says_when_its_two_checks_disagree_beyond_their_intervals():
    lines = confirmation_lines(_verdict(load=0.5, first_load=0.4, checks=2))
    assert lines[-1].startswith("  note: the two checks disagree beyond both intervals")
    assert "(1.435x then, 1.233x now)" in lines[-1]
    from dataclasses import replace

    v = _verdict(load=0.5, first_load=0.4, checks=2)
    near = replace(v, speedup=Speedup(1.43, 1.40, 1.45, 24, 5))
    assert not any("disagree" in line for line in confirmation_lines(near))
