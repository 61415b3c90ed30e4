"""`supercoder eval / optimize / leaderboard` end to end: a real loopback OpenAI-compatible
server, the offline compiler model, a real SIGKILL in the middle of a run.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_eval_cli.py."""

from __future__ import annotations

from supercoder.cli import app
from tests.conftest import make_sum_problem
from tests.integration.test_eval_cli import runner  # noqa: F401


def test_evolve_with_the_compiler_model_refuses_in_one_line(tmp_path):
    make_sum_problem(tmp_path / "sum")
    for extra in ([], ["--start-from", "compiler"], ["-m", "compiler:budget=5"]):
        result = runner.invoke(
            app, ["optimize", str(tmp_path / "sum"), "--strategy", "evolve", *extra]
        )
        assert result.exit_code == 2, result.output
        line = result.output.strip()
        assert "--strategy evolve needs a model that reads feedback" in line
        assert "openai:M" in line and len(line.splitlines()) == 1


def test_eval_times_with_the_rewards_budget_on_a_server_too(monkeypatch):
    """``eval --reward SPEC,rounds=N --server URL``: the server times every answer with
    exactly N rounds (the budget the run's identity records); without it, adaptive."""
    from supercoder.commands.eval import _remote_verifier
    from supercoder.runs.identity import RunConfig
    from supercoder.verify.client import ServiceClient

    monkeypatch.setattr(ServiceClient, "health", lambda self: {"status": "ok"})
    url = "http://127.0.0.1:9"
    budget = _remote_verifier(url, RunConfig("m", "val", reward="binary:rounds=6"))
    assert budget.rounds == 6 and budget.staged(max_cpu_seconds=1.0).rounds == 6
    assert _remote_verifier(url, RunConfig("m", "val")).rounds is None
    untimed = RunConfig("m", "val", reward="gated:rounds=6", time=False)
    assert _remote_verifier(url, untimed).rounds is None
