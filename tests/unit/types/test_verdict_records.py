"""A verdict's context is typed (provenance, measurement) and stored flat, as before."""

from __future__ import annotations

import json

import pytest

from supercoder import codec
from supercoder.errors import UserError
from supercoder.types import (
    VERDICT_FORMAT_VERSION,
    DataSize,
    IsaUse,
    Machine,
    Measurement,
    PairedSamples,
    Provenance,
    Speedup,
    Status,
    TestResult,
    Verdict,
    VerdictContext,
)

# a verdict's context as supercoder wrote it before it was typed (format 5): flat keys
# from the machine, the meter, the check and the timing, and one key a plugin added
OLD_CONTEXT = {
    "supercoder": "0.1.0",
    "date": "2026-11-30T10:00:00+00:00",
    "gcc": "gcc (Debian 12.2.0-14) 12.2.0",
    "cpu": "AMD EPYC 7B13",
    "cores": 2,
    "kernel": "6.1.0",
    "python": "3.11.7",
    "meter": "interleaved-cpu-v4",
    "noise_floor": 0.004,
    "margin": 0.01,
    "interval": "over the input distribution (drawn inputs, rounds, floor)",
    "sandbox": "bubblewrap",
    "target": "native",
    "timing": "timed on 8 inputs drawn for this check",
    "timed_inputs": "model",
    "domain": "model: n in [1, 10^6]",
    "timed_sizes": "n=1000..1000000",
    "pairs": 24,
    "measure": "cpu time (user+sys), wait4",
    "checks": 2,
    "first_check": {"value": 1.6, "low": 1.5, "high": 1.7, "samples": 12, "tests_timed": 8},
    "vendor_note": {"id": 7},
}


def _old_verdict_json() -> dict:
    speedup = {"value": 1.4, "low": 1.3, "high": 1.5, "samples": 24, "tests_timed": 8}
    return {
        "format_version": 5,
        "problem": "p",
        "status": "ok",
        "correct": True,
        "speedup": 1.4,
        "speedup_ci": [1.3, 1.5],
        "speedup_detail": speedup,
        "tests": [{"name": "a", "status": "ok"}],
        "context": OLD_CONTEXT,
        "isa": {"extensions": ["AVX2"], "level": "x86-64-v3", "examples": {"AVX2": "vpaddd"}},
        "data": {"baseline_bytes": 100, "candidate_bytes": 900, "added_bytes": 800},
    }


def test_a_stored_flat_context_reads_as_typed_provenance_and_measurement():
    v = Verdict.from_json(_old_verdict_json())
    where, what = v.context.provenance, v.context.measurement
    assert where.machine.cpu == "AMD EPYC 7B13" and where.machine.cores == 2
    assert (where.meter, where.noise_floor, where.margin) == ("interleaved-cpu-v4", 0.004, 0.01)
    assert (where.sandbox, where.target) == ("bubblewrap", "native")
    assert what.checks == 2 and what.pairs == 24 and what.timed_inputs == "model"
    assert isinstance(what.first_check, Speedup) and what.first_check.value == 1.6
    assert dict(v.context.extra) == {"vendor_note": {"id": 7}}  # a plugin's key is kept
    assert v.isa == IsaUse(("AVX2",), "x86-64-v3", "native", (("AVX2", "vpaddd"),))
    assert v.data == DataSize(100, 900) and v.data.grew


def test_the_typed_context_is_written_flat_with_the_keys_older_readers_know():
    data = json.loads(json.dumps(Verdict.from_json(_old_verdict_json()).to_json()))
    context = data["context"]
    first = context.pop("first_check")  # a Speedup's every field: its method and margin too
    assert first.items() >= OLD_CONTEXT["first_check"].items()
    assert context == {k: v for k, v in OLD_CONTEXT.items() if k != "first_check"}
    assert data["data"]["added_bytes"] == 800 and data["data"]["grew"] is True
    assert data["isa"]["examples"] == {"AVX2": "vpaddd"}
    assert data["format_version"] == VERDICT_FORMAT_VERSION


def test_the_timed_draws_raw_pairs_are_kept_unnamed_and_read_back():
    samples = (PairedSamples((0.2, 0.21), (0.1, 0.12), (0, 1)), PairedSamples((0.3,), (0.2,), (0,)))
    context = VerdictContext(
        provenance=Provenance(machine=Machine(cpu="x"), meter="m", sandbox="none (unsafe)"),
        measurement=Measurement(pairs=3, samples=samples, timing="drawn"),
    )
    v = Verdict(
        "p",
        Status.OK,
        (TestResult("a", Status.OK, baseline_samples=(0.5,), candidate_samples=(0.4,)),),
        Speedup(1.5, 1.4, 1.6, 3, 2),
        context=context,
    )
    data = json.loads(json.dumps(v.to_json()))
    assert data["context"]["samples"] == [
        {"baseline": [0.2, 0.21], "candidate": [0.1, 0.12], "rounds": [0, 1]},
        {"baseline": [0.3], "candidate": [0.2], "rounds": [0]},
    ]
    assert "checks" not in data["context"]  # a default is left out: one check
    again = Verdict.from_json(data)
    assert again.context == context and again.context.measurement.samples == samples


def test_a_verdict_of_every_format_reads_and_a_newer_one_is_refused():
    for version in range(1, VERDICT_FORMAT_VERSION + 1):
        old = {**_old_verdict_json(), "format_version": version}
        assert Verdict.from_json(old).context.measurement.checks == 2
    del old["format_version"]  # before versioning: format 1
    assert Verdict.from_json(old).status is Status.OK
    with pytest.raises(UserError, match="verdict JSON of format version 6"):
        Verdict.from_json({**old, "format_version": VERDICT_FORMAT_VERSION + 1})


def test_the_record_types_hold_no_untyped_field():
    """Every field of the verdict's records has a concrete type: none is ``Any`` or a
    ``dict`` of anything (a plugin's own keys are ``Json`` values, kept read-only)."""
    import dataclasses
    import typing

    todo, seen = [Verdict], set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for name, hint in typing.get_type_hints(cls).items():
            text = str(hint)
            assert "Any" not in text, (cls.__name__, name, text)
            for arg in _walk(hint):
                if dataclasses.is_dataclass(arg):
                    todo.append(arg)
    assert {VerdictContext, Provenance, Measurement, Machine, PairedSamples} <= seen
    assert codec.format_version(Verdict) == VERDICT_FORMAT_VERSION


def _walk(hint):
    import typing

    yield hint
    for arg in typing.get_args(hint):
        yield from _walk(arg)


def test_a_context_value_of_another_shape_reads_as_its_default_not_an_error():
    """The context was an open object in every format: a stored run whose context holds
    a value of an unexpected shape still reads (that value as the field's default)."""
    odd = {**_old_verdict_json(), "context": {**OLD_CONTEXT, "pairs": "many", "cores": [2]}}
    v = Verdict.from_json(odd)
    assert v.context.measurement.pairs == 0 and v.context.provenance.machine.cores == 0
    assert v.context.measurement.checks == 2 and v.context.provenance.machine.cpu
    with pytest.raises(UserError):  # the verdict's own fields stay strict
        Verdict.from_json({**odd, "status": "exploded"})
