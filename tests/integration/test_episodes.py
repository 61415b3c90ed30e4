"""Refinement episodes (training/episode.py, training/multiturn.py): real verdicts, the
same feedback text as --rounds refinement, per-turn rewards, the rollout's tokens."""

from __future__ import annotations

import pytest

from supercoder.prompting.prompts import feedback_for
from supercoder.training import episode, multiturn
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm

UNTIMED = RewardConfig("paper", eval_config=CheckConfig(time=False))  # correct: 1.0, else 0


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return tiny_problem(tmp_path_factory.mktemp("episodes") / "tiny_sum", big=2000)


def fenced(asm: str) -> str:
    return f"```assembly\n{asm}```"


def test_judge_gives_real_verdicts_and_the_refinement_feedback(problem):
    turns = episode.judge(
        [problem] * 3,
        [fenced(wrong_asm()), "no program here", fenced(faster_asm())],
        [1, 1, 2],
        2,
        UNTIMED,
    )
    wrong, empty, right = turns
    assert (wrong.reward, wrong.done, wrong.verdict.correct) == (0.0, False, False)
    assert (empty.reward, empty.done) == (0.0, False)
    assert (right.reward, right.done, right.verdict.correct) == (1.0, True, True)
    for t in turns:  # the one definition --rounds refinement uses
        assert t.feedback == feedback_for(t.verdict, problem, "whole")
    assert "printed the wrong output on test" in wrong.feedback
    assert "did not contain an assembly program" in empty.feedback
    assert wrong.to_json()["status"] == "wrong_output" and right.to_json()["correct"]


def hidden_problem(folder):
    """Visible tests n = 0 and 1 (which ``wrong_asm`` passes), one hidden test it fails."""
    import shutil

    from supercoder.problems.loading import load_problem
    from tests.fakes.tiny_model import expected_output

    tiny_problem(folder, name="tiny_hidden", big=2000)
    for stale in ("t2", "t3", "t4"):
        for ext in (".in", ".out"):
            (folder / "tests" / f"{stale}{ext}").unlink()
    (folder / "hidden").mkdir()
    (folder / "hidden" / "h0.in").write_text(f"{SECRET}\n")
    (folder / "hidden" / "h0.out").write_text(expected_output(SECRET))
    shutil.rmtree(folder / ".supercoder", ignore_errors=True)
    return load_problem(folder)


SECRET = 987653


def test_a_hidden_test_never_reaches_the_model(tmp_path):
    from tests.fakes.tiny_model import expected_output

    secret = hidden_problem(tmp_path / "tiny_hidden")
    (turn,) = episode.judge([secret], [fenced(wrong_asm())], [1], 2, UNTIMED)
    assert not turn.verdict.correct and turn.reward == 0.0
    shown = str(turn.to_json())
    assert "cannot be shown" in turn.feedback
    assert str(SECRET) not in shown and expected_output(SECRET).strip() not in shown


def test_the_last_turn_ends_the_episode_and_turns_are_bounded(problem):
    (last,) = episode.judge([problem], [fenced(wrong_asm())], [2], 2, UNTIMED)
    assert last.done and last.reward == 0.0
    with pytest.raises(Exception, match="turns must be between 1 and 16"):
        episode.check_turns(0)


@pytest.mark.train
def test_a_scripted_policy_plays_refinement_episodes(problem, tmp_path):
    """run_episodes with the tiny model's tokenizer and a policy that answers wrong, then
    right: per-turn rewards are the verdicts, the feedback sits between the answers
    (masked), and a correct answer ends the episode."""
    pytest.importorskip("transformers")
    from supercoder.training.common import load_tokenizer
    from tests.fakes.tiny_model import build_tiny_model

    tokenizer = load_tokenizer(str(build_tiny_model(tmp_path / "model")))
    script = [fenced(wrong_asm()), fenced(faster_asm())]
    calls = []

    def policy(trainer, prompts):
        calls.append([tokenizer.decode(p) for p in prompts])
        answer = script[len(calls) - 1]
        return [tokenizer(answer, add_special_tokens=False)["input_ids"] for _ in prompts]

    trainer = type("T", (), {"processing_class": tokenizer})()
    prompt = episode.first_messages(problem)
    key = multiturn.prompt_key(prompt)
    local = multiturn.LocalEpisodes({problem.name: problem}, {key: problem.name}, 3, UNTIMED)
    out = multiturn.run_episodes([prompt, prompt], trainer, local, 3, generate=policy)

    assert out["turn_rewards"] == [[0.0, 1.0], [0.0, 1.0]]  # stopped after the right answer
    assert out["episode_reward"] == [1.0, 1.0]
    assert out["turn_correct"] == [[False, True], [False, True]]
    assert len(calls) == 2
    feedback = feedback_for(
        episode.judge([problem], [script[0]], [1], 3, UNTIMED)[0].verdict, problem
    )
    assert feedback in calls[1][0]  # the second turn saw the verifier's feedback
    ids, mask = out["completion_ids"][0], out["env_mask"][0]
    assert len(ids) == len(mask) and 0 in mask and mask[0] == 1 and mask[-1] == 1
    theirs = tokenizer.decode([t for t, m in zip(ids, mask, strict=True) if m == 0])
    assert feedback in theirs and "wrong output" not in tokenizer.decode(
        [t for t, m in zip(ids, mask, strict=True) if m == 1]
    )
    rendered = tokenizer.decode(out["prompt_ids"][0] + ids)
    assert rendered.startswith(tokenizer.apply_chat_template(prompt, tokenize=False))


def run_cli(*args: str):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_the_openenv_server_stays_on_loopback_unless_told():
    out = run_cli("env", "openenv", "--host", "0.0.0.0")
    assert out.returncode == 2 and "add --public" in out.stderr


def test_the_openenv_server_names_its_extra():
    import importlib.util

    if importlib.util.find_spec("openenv") is not None:
        pytest.skip("openenv is installed here")
    out = run_cli("env", "openenv", "--benchmark", "val", "--port", "1")
    assert out.returncode != 0 and "pip install 'supercoder[openenv]'" in out.stderr
    assert "Traceback" not in out.stderr and "OpenEnv environment:" not in out.stderr
