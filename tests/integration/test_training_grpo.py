"""GRPO with TRL on a tiny random Qwen2 model: real steps, our reward, a checkpoint."""

from __future__ import annotations

import json

import pytest

from supercoder.dataset.records import records_for
from supercoder.training.trl_reward import make_trl_reward
from supercoder.verify.reward import RewardConfig
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return tiny_problem(tmp_path_factory.mktemp("grpo") / "tiny_sum")


def test_trl_reward_signature_and_metrics(problem):
    metrics = {}
    reward = make_trl_reward([problem])
    completions = [
        [{"role": "assistant", "content": f"```assembly\n{faster_asm()}```"}],
        [{"role": "assistant", "content": f"```assembly\n{wrong_asm()}```"}],
    ]
    out = reward(
        prompts=[[{"role": "user", "content": "q"}]] * 2,
        completions=completions,
        completion_ids=[[1], [2]],
        problem=[problem.name] * 2,
        trainer_state=None,
        log_extra=lambda column, values: None,
        log_metric=lambda name, value: metrics.__setitem__(name, value),
    )
    assert reward.__name__ == "speedup"
    assert out[0] > 1.5 and out[1] == 0.0
    assert metrics["supercoder/correct_rate"] == 0.5
    assert metrics["supercoder/mean_speedup"] > 1.5


def test_trl_reward_from_supercoder_schema_column(problem):
    record = records_for([problem])[0]
    reward = make_trl_reward(config=RewardConfig(kind="gated"))
    out = reward(
        completions=[f"```assembly\n{faster_asm()}```", "no"],
        extra_info=[record["extra_info"]] * 2,
        reward_model=[record["reward_model"]] * 2,
    )
    assert out[0] > 1.5 and out[1] == 0.0


@pytest.mark.train
def test_grpo_two_steps_on_tiny_model(problem, tmp_path, monkeypatch):
    pytest.importorskip("trl")
    import supercoder.training.trl_reward as trl_reward
    from supercoder.training.grpo import train_grpo
    from tests.fakes.tiny_model import tiny_grpo_config

    seen = []
    real = trl_reward.verify_batch

    def spy(problems, completions, config, executor):
        seen.append(([p.name for p in problems], list(completions)))
        return real(problems, completions, config, executor)

    monkeypatch.setattr(trl_reward, "verify_batch", spy)
    opts = tiny_grpo_config(tmp_path)
    summary = train_grpo(opts, [problem], echo=None)
    assert summary["steps"] == 2
    assert len(seen) == 2  # the reward ran on every step's completions
    for names, completions in seen:
        assert names == [problem.name, problem.name]
        assert all(isinstance(c, list) and c[0]["role"] == "assistant" for c in completions)
    assert (tmp_path / "out" / "checkpoint-2" / "model.safetensors").is_file()
    assert (tmp_path / "out" / "final" / "config.json").is_file()
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").open()]
    steps = [r for r in rows if "reward" in r]
    assert [r["step"] for r in steps] == [1, 2]
    assert all(r["supercoder/correct_rate"] == 0.0 for r in steps)  # random model: garbage


@pytest.mark.train
def test_completion_limit_covers_or_names_the_answers(problem, tmp_path):
    pytest.importorskip("transformers")
    from supercoder.training.common import load_tokenizer
    from supercoder.training.grpo import completion_limit
    from tests.fakes.tiny_model import build_tiny_model

    tokenizer = load_tokenizer(str(build_tiny_model(tmp_path / "model")))
    lines = []
    covered = completion_limit([problem], tokenizer, None, lines.append)
    assert covered >= 2000 and "train: 1 of 1 problems fit" in lines
    lines.clear()
    assert completion_limit([problem], tokenizer, 8, lines.append) == 8
    assert "train: 0 of 1 problems fit" in lines
    assert any(line.startswith(f"  truncated {problem.name}: -O3 answer") for line in lines)
