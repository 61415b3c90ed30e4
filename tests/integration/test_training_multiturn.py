"""train grpo --turns N: TRL's GRPOTrainer on refinement episodes, on the tiny local model."""

from __future__ import annotations

import json

import pytest

from supercoder.prompting.prompts import feedback_for
from supercoder.training import multiturn
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig
from tests.fakes.tiny_model import tiny_problem

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return tiny_problem(tmp_path_factory.mktemp("multiturn") / "tiny_sum", big=2000)


def test_grpo_two_turns_on_tiny_model(problem, tmp_path, monkeypatch):
    pytest.importorskip("trl")
    import supercoder.training.episode as episode
    from supercoder.training.grpo import train_grpo
    from tests.fakes.tiny_model import tiny_grpo_config

    rollouts, verdicts = [], []
    real_run, real_judge = multiturn.run_episodes, episode.judge

    def run_spy(prompts, trainer, episodes, turns):
        out = real_run(prompts, trainer, episodes, turns)
        rollouts.append((trainer.processing_class, out))
        return out

    def judge_spy(problems, answers, *args, **kwargs):
        turns = real_judge(problems, answers, *args, **kwargs)
        verdicts.append(turns)
        return turns

    monkeypatch.setattr(multiturn, "run_episodes", run_spy)
    monkeypatch.setattr(episode, "judge", judge_spy)
    opts = tiny_grpo_config(
        tmp_path, turns=2, reward=RewardConfig("paper", eval_config=CheckConfig(time=False))
    )
    summary = train_grpo(opts, [problem], echo=None)
    assert summary["steps"] == 2
    assert len(rollouts) == 2  # one batch of episodes per step
    assert len(verdicts) == 4  # two turns each: a random model never gets it right
    for tokenizer, out in rollouts:
        assert out["turn_rewards"] == [[0.0, 0.0], [0.0, 0.0]]
        for ids, mask in zip(out["completion_ids"], out["env_mask"], strict=True):
            between = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m == 0])
            assert "Reply with the complete corrected program" in between
    for turns in verdicts:  # the per-turn rewards are the verdicts' rewards
        assert all(t.reward == 0.0 and not t.verdict.correct for t in turns)
        assert all(t.feedback == feedback_for(t.verdict, problem) for t in turns)
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").open()]
    steps = [r for r in rows if "reward" in r]
    assert [r["step"] for r in steps] == [1, 2]
    for r in steps:
        assert r["supercoder/turn_1_reward"] == 0.0 and r["supercoder/turn_2_reward"] == 0.0
        assert r["supercoder/turns"] == 2.0 and r["supercoder/correct_rate"] == 0.0
        assert r["supercoder/infra_failures"] == 0.0
    assert (tmp_path / "out" / "final" / "config.json").is_file()
