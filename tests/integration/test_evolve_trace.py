"""`dataset export-trace`: an evolve run's parent -> improved-child steps, as SFT rows
that `train sft --examples` trains the tiny model on and as GRPO prompts with parents."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.prompting.prompts import extract_assembly
from supercoder.training.grpo import GrpoConfig, train_rows
from tests.conftest import sandbox_or_skip
from tests.fakes.chain import chain_problem, chain_responder, shown_version
from tests.fakes.servers import openai_server

runner = CliRunner()


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    sandbox_or_skip()
    root = tmp_path_factory.mktemp("trace")
    chain = chain_problem(root / "bench", "ct", last=3, mod=5)
    db, out = root / "runs.sqlite", root / "trace"
    with openai_server(chain_responder({"ct": chain})) as url:
        args = ["eval", "-m", "openai:chain", "--base-url", url, "--db", str(db)]
        args += ["--benchmark", str(root / "bench"), "--strategy", "evolve", "--samples", "8"]
        result = runner.invoke(app, [*args, "--run", "evo"])
        assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["dataset", "export-trace", "evo", "--db", str(db), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return chain, root, out


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_export_trace_writes_each_improving_step(traced):
    chain, _, out = traced
    sft = _rows(out / "sft.jsonl")
    assert len(sft) >= 2
    steps = set()
    for row in sft:
        shown = shown_version(chain, row["prompt"][-1]["content"])
        child = chain.version_of(extract_assembly(row["completion"][0]["content"]))
        assert child == shown + 1 and row["speedup"] > row["parent_speedup"]
        steps.add(shown)
    assert {0, 1} <= steps  # the compounding steps, not just the first
    grpo = _rows(out / "grpo.jsonl")
    assert {r["problem"] for r in grpo} == {"ct"}
    assert sorted(r["parent"] for r in grpo) == sorted({r["parent"] for r in sft})
    # train grpo reads them (rows for a problem it trains on)
    config = GrpoConfig(model="m", benchmark=str(traced[1] / "bench"), prompts=out / "grpo.jsonl")
    from supercoder.dataset.benchmarks import load_benchmark

    rows = train_rows(config, load_benchmark(config.benchmark))
    assert len(rows) == len(grpo) and set(rows[0]) == {"prompt", "problem"}


@pytest.mark.train
def test_train_sft_on_an_exported_trace(traced, tmp_path):
    pytest.importorskip("trl")
    pytest.importorskip("peft")
    from tests.fakes.tiny_model import build_tiny_model

    _, _, out = traced
    model = build_tiny_model(tmp_path / "model")
    args = ["train", "sft", "--model", str(model), "--examples", str(out / "sft.jsonl")]
    result = runner.invoke(
        app, [*args, "--steps", "2", "--max-length", "8192", "--output", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.rindex('{\n  "final"') :])
    assert summary["steps"] == 2 and summary["examples"] == len(_rows(out / "sft.jsonl"))
    assert (tmp_path / "o" / "final" / "model.safetensors").is_file()


@pytest.mark.train
def test_train_grpo_on_exported_prompts(traced, tmp_path):
    pytest.importorskip("trl")
    from tests.fakes.tiny_model import build_tiny_model

    _, root, out = traced
    model = build_tiny_model(tmp_path / "model")
    args = ["train", "grpo", "--model", str(model), "--benchmark", str(root / "bench")]
    args += ["--prompts", str(out / "grpo.jsonl"), "--steps", "1", "--num-generations", "2"]
    args += ["--max-completion-length", "8", "--eval-split", "none", "--workers", "1"]
    result = runner.invoke(app, [*args, "--output", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.rindex('{\n  "final"') :])
    assert summary["steps"] == 1 and (tmp_path / "o" / "final" / "config.json").is_file()
    rows = [json.loads(line) for line in (tmp_path / "o" / "metrics.jsonl").open()]
    assert any("reward" in r for r in rows)  # the reward verified the prompts' answers
