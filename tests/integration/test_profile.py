"""The profiler: cachegrind output parsing, a real profile in the sandbox (visible tests
only, cached, bounded), shares per loop and function, the hot view, the CLI, tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.problems.loading import load_problem
from supercoder.prompting.hotspots import find_hotspots, hot_view
from supercoder.prompting.profiling import profile_problem
from supercoder.toolchain.baseline import baseline_asm
from tests.conftest import sandbox_or_skip
from tests.integration.test_diff_answers import make_problem

runner = CliRunner()


@pytest.fixture(scope="module")
def harmonic(tmp_path_factory):
    sandbox_or_skip()
    return load_problem(make_problem(tmp_path_factory.mktemp("prof"), "harmonic"))


def test_a_real_profile_finds_the_hot_loop_on_visible_tests_only(harmonic):
    prof = profile_problem(harmonic)
    # smallest input first, hidden tests never
    assert prof.tests == ("t1", "t0", "t2") and not prof.skipped and prof.gave_up is None
    asm = baseline_asm(harmonic)
    hot = find_hotspots(prof, asm)
    assert hot.functions[0].name == "harmonic" and hot.functions[0].share > 0.99
    assert hot.hot_functions() == {"harmonic"}
    loop = hot.hottest_loop
    assert loop.function == "harmonic" and loop.share > 0.9
    div = [k for k, line in enumerate(asm.splitlines(), 1) if "idivq" in line or "divq" in line]
    assert div and hot.lines[div[0]] > 0.05  # the division runs in the loop
    view = hot_view(asm, hot)
    assert "supercoder: body of main elided" in view and "%\n" in view
    assert "call\t__isoc99_scanf" not in view and ".cfi" not in view
    again = profile_problem(harmonic)  # cached: same figures, no new run
    assert again == prof and again.seconds == prof.seconds


def test_the_budget_bounds_the_profile_and_says_so(harmonic):
    prof = profile_problem(harmonic, budget_seconds=1.0, use_cache=False)
    assert prof.gave_up and prof.skipped and len(prof.tests) + len(prof.skipped) == 3


def test_problem_profile_cli_json_and_table(harmonic):
    folder = harmonic.path
    result = runner.invoke(app, ["problem", "profile", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["problem"] == "harmonic" and data["functions"][0]["name"] == "harmonic"
    assert data["loops"][0]["share"] > 0.9 and data["lines"][0]["count"] > 1000
    assert "hidden" not in json.dumps(data["profile"]["tests"])
    table = runner.invoke(app, ["problem", "profile", str(folder)])
    assert table.exit_code == 0 and "hottest lines" in table.output


def test_bench_tokens_counts_prompts_and_answers(harmonic, tmp_path):
    pytest.importorskip("tokenizers")
    bench = Path(harmonic.path).parent
    out = {}
    for context, answer in (("full", "whole"), ("hot", "diff")):
        path = tmp_path / f"{context}.json"
        result = runner.invoke(
            app,
            [
                "bench",
                "tokens",
                "-b",
                str(bench),
                "--context",
                context,
                "--answer",
                answer,
                "--json",
                str(path),
            ],
        )
        assert result.exit_code == 0, result.output
        assert "total" in result.output
        (out[context],) = json.loads(path.read_text())
    full, hot = out["full"], out["hot"]
    assert full["whole"] == hot["whole"] > full["diff"] > 0 and hot["diff"] <= full["diff"]
    assert hot["prompt"] < full["prompt"]
    bad = runner.invoke(app, ["bench", "tokens", "-b", str(bench), "--context", "warm"])
    assert bad.exit_code != 0


def test_training_exports_take_the_prompt_modes(harmonic):
    from supercoder.dataset.records import problem_to_record
    from supercoder.training.grpo import prompt_rows

    record = problem_to_record(harmonic, "train", 0, baseline_asm(harmonic), "hot", "diff")
    question = record["prompt"][0]["content"]
    assert "<<<<<<< SEARCH" in question and "supercoder: body of main elided" in question
    assert record["extra_info"]["question"] == question
    (row,) = prompt_rows([harmonic], context="hot", answer="diff")
    assert row["prompt"][-1]["content"] == question
    plain = problem_to_record(harmonic, "train", 0, baseline_asm(harmonic))
    assert ".cfi_startproc" in plain["prompt"][0]["content"]
