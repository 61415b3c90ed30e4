"""SFT with TRL + LoRA on the best verified answers of a stored eval run."""

from __future__ import annotations

import pytest

from supercoder.runs.identity import RunConfig
from supercoder.runs.store import Store
from supercoder.runs.strategies import Attempt, Outcome
from supercoder.training.sft import SftConfig, sft_examples, train_sft
from supercoder.types import Candidate
from supercoder.verify.evaluate import CheckConfig, evaluate
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("sft")
    problems = [tiny_problem(root / n, name=n) for n in ("sft_fast", "sft_wrong")]
    store = Store(root / "runs.sqlite")
    spec = RunConfig(model="scripted", benchmark=str(root), name="best8")
    store.open_run(spec, {})
    for problem, asm in zip(problems, (faster_asm(), wrong_asm()), strict=True):
        verdict = evaluate(problem, Candidate(asm), CheckConfig())
        attempt = Attempt(0, 0, Candidate(asm), verdict, completion=asm)
        store.record("best8", problem.name, attempt, "")
        store.finish_problem("best8", Outcome(problem.name, (attempt,)))
    store.close()
    return problems, root / "runs.sqlite"


def test_examples_keep_only_verified_faster_answers(stored_run):
    problems, db = stored_run
    rows = sft_examples("best8", problems, db)
    assert len(rows) == 1
    assert (
        rows[0]["prompt"][-1]["role"] == "user" and "volatile" in rows[0]["prompt"][-1]["content"]
    )
    answer = rows[0]["completion"][0]["content"]
    assert answer.startswith("```assembly\n") and answer.rstrip().endswith("```")


@pytest.mark.train
def test_sft_two_lora_steps(stored_run, tmp_path):
    pytest.importorskip("trl")
    pytest.importorskip("peft")
    from tests.fakes.tiny_model import build_tiny_model

    problems, db = stored_run
    model = build_tiny_model(tmp_path / "model")
    examples = sft_examples("best8", problems, db)
    opts = SftConfig(
        model=str(model),
        run="best8",
        db=db,
        output=tmp_path / "out",
        lora=True,
        steps=2,
        lr=1e-3,
        max_length=8192,
    )
    summary = train_sft(opts, examples, echo=None)
    assert summary == {"final": str(tmp_path / "out" / "final"), "steps": 2, "examples": 1}
    assert (tmp_path / "out" / "checkpoint-2" / "adapter_model.safetensors").is_file()
    assert (tmp_path / "out" / "final" / "model.safetensors").is_file()  # LoRA merged
