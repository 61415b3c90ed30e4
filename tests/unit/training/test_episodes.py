"""Refinement episodes (training/episode.py, training/multiturn.py): real verdicts, the
same feedback text as --rounds refinement, per-turn rewards, the rollout's tokens.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_episodes.py."""

from __future__ import annotations

from supercoder.training import multiturn


def test_a_prompt_is_found_whatever_columns_the_dataset_added():
    a = [{"role": "user", "content": "x"}]
    b = [{"role": "user", "content": "x", "name": None}]
    assert multiturn.prompt_key(a) == multiturn.prompt_key(b)
    assert multiturn.prompt_key(a) != multiturn.prompt_key([{"role": "user", "content": "y"}])


def test_turn_metrics_average_the_turns_that_were_played():
    metrics = multiturn.turn_metrics(
        [[0.0, 1.0], [0.5], [None, 0.0], [None]], [[False, True], [True], [], []], [1.5, 2.5, None]
    )
    assert metrics["supercoder/turn_1_reward"] == 0.25  # None (infra) is no reward
    assert metrics["supercoder/turn_2_reward"] == 0.5
    assert metrics["supercoder/turns"] == 6 / 4
    assert metrics["supercoder/correct_rate"] == 1.0
    assert metrics["supercoder/mean_speedup"] == 2.0
    assert metrics["supercoder/infra_failures"] == 1.0  # the episode whose last turn failed
