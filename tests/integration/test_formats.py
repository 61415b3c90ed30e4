"""Stored results say what wrote them: a format version on verdict, summary and run-store
JSON (older JSON without one still reads, newer is refused), and a context that names
the supercoder version, the meter protocol, the noise floor in force and the date."""

from __future__ import annotations

from datetime import UTC, datetime

from supercoder.codec import plain
from supercoder.paths import package_version
from supercoder.timing.meter import LEGACY_PROTOCOL, PROTOCOL, MeterConfig
from supercoder.toolchain.gcc import machine_context
from supercoder.types import (
    Origin,
    Problem,
    Status,
    TestCase,
)
from supercoder.verify.evaluate import CheckConfig, evaluate

PROBLEM = Problem("echo", "int main(void) { return 0; }", (TestCase("t", b""),))


def test_a_provenance_no_installed_strategy_knows_is_kept_as_stored():
    """A run a plugin strategy wrote, read where the plugin is not installed: its
    provenance stays as it came (in ``extra``), and is written back unchanged."""
    stored = {"model": "m", "provenance": {"kind": "nobody-has-it", "depth": 3}}
    o = Origin.from_json(stored)
    assert o.provenance is None and plain(o.extra) == {"provenance": stored["provenance"]}
    assert o.to_json() == stored


def test_the_context_names_version_meter_floor_and_date():
    ctx = machine_context()
    assert ctx["supercoder"] == package_version()  # from the package metadata
    assert abs((datetime.now(UTC) - datetime.fromisoformat(ctx["date"])).total_seconds()) < 60
    config = CheckConfig(meter=MeterConfig(noise_floor=0.0123, margin=0.02))
    verdict = evaluate(PROBLEM, None, config)  # no answer: nothing runs
    assert verdict.status is Status.NO_ANSWER
    ctx = verdict.to_json()["context"]
    assert ctx["meter"] == PROTOCOL and ctx["noise_floor"] == 0.0123 and ctx["margin"] == 0.02
    assert ctx["supercoder"] == package_version() and ctx["date"]
    legacy = evaluate(PROBLEM, None, CheckConfig(meter=MeterConfig(legacy=True)))
    assert (
        legacy.context.provenance.meter == LEGACY_PROTOCOL
        and legacy.context.provenance.noise_floor == 0.0
    )
