"""Reward attacks: a policy must not be paid for what it did not earn.

No-op padding. Before: ``identical_to_baseline`` is textual, so the -O3 program plus one
unreachable ``nop`` is "not a copy"; it reads ~1.0x and the default reward (then the
paper's) paid ~1.0 for it against 0 for a failed attempt: a policy learns to copy and
pad. Now the default reward (``gated``) pays a correct program that is not
significantly faster exactly what a copy of the baseline earns; the paper's reward is
still there by name (and ``check --json`` shows both).
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from supercoder.toolchain.baseline import baseline_asm
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import RewardConfig, default_reward, paper_reward, score_verdict
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import tiny_problem


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return tiny_problem(tmp_path_factory.mktemp("pad") / "tiny_sum", big=2_000_000)


def padded(asm: str) -> str:
    """The baseline with one unreachable ``nop`` after ``ret`` at the end of ``main``."""
    return re.sub(r"(\n\s*ret\n)", r"\1\tnop\n", asm, count=1)


def test_a_padded_copy_of_the_baseline_earns_what_a_copy_earns(problem):
    base = baseline_asm(problem)
    pad = padded(base)
    assert pad != base
    config = CheckConfig(meter=replace(CheckConfig().meter, max_pairs=6))
    copy_verdict = evaluate(problem, base, config)
    pad_verdict = evaluate(problem, pad, config)
    assert copy_verdict.correct and copy_verdict.identical_to_baseline
    assert pad_verdict.correct and not pad_verdict.identical_to_baseline
    copy_reward = default_reward(copy_verdict)
    assert copy_reward == 0.0
    if pad_verdict.significantly_faster:  # alignment can be a real gain: then it is paid
        assert default_reward(pad_verdict) == pad_verdict.speedup.value
    else:
        assert default_reward(pad_verdict) == copy_reward
    # the paper's reward, kept by name, pays the padding ~1.0 (what it did before)
    assert paper_reward(pad_verdict) > 0.5
    assert score_verdict(pad_verdict, RewardConfig("paper")) == paper_reward(pad_verdict)
    penalised = RewardConfig(baseline_copy=-0.5)
    if not pad_verdict.significantly_faster:
        assert score_verdict(pad_verdict, penalised) == score_verdict(copy_verdict, penalised)


def test_check_json_reports_the_default_reward_and_the_papers(problem, tmp_path):
    import json

    from typer.testing import CliRunner

    from supercoder.cli import app

    cand = tmp_path / "padded.s"
    cand.write_text(padded(baseline_asm(problem)))
    folder = problem.path
    result = CliRunner().invoke(app, ["check", folder, str(cand), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["correct"] and not data["identical_to_baseline"]
    if not data["significantly_faster"]:
        assert data["reward"] == 0.0  # what a copy earns
    assert data["paper_reward"] > 0.5  # the paper's pays the padding
    assert "drawn for this check" in data["context"]["timing"]  # inputs nobody saw
