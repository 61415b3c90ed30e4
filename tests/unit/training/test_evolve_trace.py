"""`dataset export-trace`: an evolve run's parent -> improved-child steps, as SFT rows
that `train sft --examples` trains the tiny model on and as GRPO prompts with parents.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_evolve_trace.py."""

from __future__ import annotations

from supercoder.cli import app
from tests.integration.test_evolve_trace import runner  # noqa: F401


def test_export_trace_refuses_a_run_without_programs(tmp_path):
    result = runner.invoke(
        app, ["dataset", "export-trace", "nope", "--db", str(tmp_path / "x.sqlite"), "--out", "o"]
    )
    assert result.exit_code == 2 and "no run store here" in result.output
