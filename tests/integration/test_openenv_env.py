"""supercoder as an OpenEnv environment: the real openenv server and client on loopback,
and TRL's GRPOTrainer stepping its episodes (rollout_func) on the tiny local model.

Needs the ``openenv`` extra, which cannot share an environment with ``verifiers``
(docs/training.md, "Environments"): skipped where it is not installed."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from supercoder.prompting.prompts import feedback_for
from supercoder.training import episode
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm

pytest.importorskip("openenv")

UNTIMED = RewardConfig("paper", eval_config=CheckConfig(time=False))  # correct: 1.0, else 0


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return tiny_problem(tmp_path_factory.mktemp("openenv") / "tiny_sum", big=2000)


@pytest.fixture(scope="module")
def secret(tmp_path_factory):
    from tests.integration.test_episodes import hidden_problem

    return hidden_problem(tmp_path_factory.mktemp("openenv") / "tiny_hidden")


@pytest.fixture(scope="module")
def server(problem, secret):
    """The OpenEnv app (episodes of 2 turns) served by uvicorn on 127.0.0.1."""
    import uvicorn

    from supercoder.training.openenv_env import EnvSettings, make_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app(EnvSettings(problems=(problem, secret), turns=2, reward=UNTIMED), max_sessions=4)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=30)


def fenced(asm: str) -> str:
    return f"```assembly\n{asm}```"


def test_reset_gives_the_prompt_and_step_the_verdict(server, problem):
    from supercoder.training.openenv_env import classes, client

    action = classes().CodeAction
    with client(server) as env:
        first = env.reset(problem=problem.name)
        assert first.observation.prompt == episode.first_messages(problem)
        assert first.done is False and first.observation.turns == 2

        wrong = env.step(action(answer=fenced(wrong_asm())))
        assert (wrong.reward, wrong.done) == (0.0, False)
        obs = wrong.observation
        assert obs.verdict["status"] == "wrong_output" and obs.turn == 1
        (local,) = episode.judge([problem], [fenced(wrong_asm())], [1], 2, UNTIMED)
        assert obs.feedback == feedback_for(local.verdict, problem)  # --rounds' text

        right = env.step(action(answer=fenced(faster_asm())))
        assert (right.reward, right.done) == (1.0, True)
        assert right.observation.verdict["correct"] is True
        with pytest.raises(Exception, match="reset first"):
            env.step(action(answer="again"))

        again = env.reset(seed=4)  # a seed picks a problem (the 5th of 2: the first)
        assert again.observation.problem == problem.name
        last = env.step(action(answer="no program"))
        assert last.done is False and "did not contain an assembly" in last.observation.feedback
        with pytest.raises(Exception, match="unknown problem"):
            env.reset(problem="nope")


def test_no_hidden_test_data_in_an_observation(server, secret):
    from supercoder.training.openenv_env import classes, client
    from tests.fakes.tiny_model import expected_output
    from tests.integration.test_episodes import SECRET

    with client(server) as env:
        env.reset(problem=secret.name)
        result = env.step(classes().CodeAction(answer=fenced(wrong_asm())))
    shown = result.observation.model_dump_json()
    assert result.reward == 0.0 and "cannot be shown" in result.observation.feedback
    assert str(SECRET) not in shown and expected_output(SECRET).strip() not in shown


def test_plain_http_steps_name_their_problem(server, problem):
    import httpx

    reset = httpx.post(f"{server}/reset", json={"problem": problem.name}, timeout=60)
    assert reset.status_code == 200
    assert reset.json()["observation"]["prompt"] == episode.first_messages(problem)
    action = {"answer": fenced(wrong_asm()), "problem": problem.name}
    step = httpx.post(f"{server}/step", json={"action": action}, timeout=120)
    assert step.status_code == 200, step.text
    body = step.json()
    assert body["reward"] == 0.0 and body["observation"]["verdict"]["status"] == "wrong_output"
    orphan = httpx.post(f"{server}/step", json={"action": {"answer": "x"}}, timeout=60)
    assert orphan.status_code >= 400  # no session, no problem: refused
    unknown = httpx.post(f"{server}/step", json={"action": {"answer": "x", "bad": 1}}, timeout=60)
    assert unknown.status_code == 422


@pytest.mark.train
def test_grpo_steps_episodes_on_the_openenv_server(server, problem, tmp_path, monkeypatch):
    pytest.importorskip("trl")
    from supercoder.training import multiturn
    from supercoder.training.grpo import train_grpo
    from tests.fakes.tiny_model import tiny_grpo_config

    rollouts = []
    real = multiturn.run_episodes

    def spy(prompts, trainer, episodes, turns):
        out = real(prompts, trainer, episodes, turns)
        rollouts.append((type(episodes).__name__, out))
        return out

    monkeypatch.setattr(multiturn, "run_episodes", spy)
    opts = tiny_grpo_config(tmp_path, turns=2, env_url=server)
    summary = train_grpo(opts, [problem], echo=None)
    assert summary["steps"] == 2 and len(rollouts) == 2
    for kind, out in rollouts:
        assert kind == "OpenEnvEpisodes"
        assert out["turn_rewards"] == [[0.0, 0.0], [0.0, 0.0]]  # the server's verdicts
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").open()]
    steps = [r for r in rows if "reward" in r]
    assert [r["step"] for r in steps] == [1, 2]
    assert all(r["supercoder/turns"] == 2.0 for r in steps)
