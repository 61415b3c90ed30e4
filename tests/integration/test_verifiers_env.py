"""supercoder as a verifiers 0.4 environment, loaded and run by verifiers' own code: its
loader, and its evaluation entry point (vf-eval) against a scripted model behind an
OpenAI-compatible server on loopback."""

from __future__ import annotations

import json

import pytest

from supercoder.prompting.prompts import feedback_for
from supercoder.training import episode
from supercoder.verify.evaluate import CheckConfig
from supercoder.verify.reward import RewardConfig
from tests.fakes.servers import openai_server
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm

pytest.importorskip("verifiers.v1")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("vfbench")
    tiny_problem(root / "tiny_sum", big=2000)
    return root


def fenced(asm: str) -> str:
    return f"```assembly\n{asm}```"


def vf_eval(bench, out, url, *extra: str) -> list[dict]:
    """verifiers' own eval entry point on the supercoder-env taskset; the traces of its
    episodes (``traces.jsonl``: one episode a line, each holding its traces)."""
    from verifiers.v1.cli.eval.main import main

    main(
        [
            "supercoder-env",
            *("--env.taskset.benchmark", str(bench)),
            *("--env.taskset.reward", "paper", "--no-env.taskset.time"),
            *("--model", "scripted", "--client.base-url", url),
            *("--client.api-key-var", "SCRIPTED_API_KEY"),
            *("--output-dir", str(out), "--no-push", "--no-rich"),
            *extra,
        ]
    )
    (traces,) = list(out.glob("*/traces.jsonl"))
    episodes = [json.loads(line) for line in traces.read_text().splitlines()]
    assert all(e["ok"] and not e["errors"] for e in episodes)
    return [t for e in episodes for t in e["traces"]]


def test_load_environment_gives_verifiers_single_and_multi_turn_envs(bench):
    import verifiers.v1 as vf

    from supercoder.training.verifiers_env import SupercoderEnv, load_environment

    single = load_environment(benchmark=str(bench), turns=1)
    multi = load_environment(benchmark=str(bench), turns=3, reward="paper")
    assert type(single) is vf.SingleAgentEnv and type(multi) is SupercoderEnv
    (task,) = list(multi.taskset)
    problem = tiny_problem(bench / "tiny_sum", big=2000)
    assert task.data.prompt == episode.first_messages(problem)[-1]["content"]
    assert task.data.info["turns"] == 3 and task.data.info["problem"] == "tiny_sum"
    assert "expected" not in json.dumps(task.data.info)  # no test data travels
    with pytest.raises(Exception, match="turns must be between"):
        list(load_environment(benchmark=str(bench), turns=99).taskset)


def test_vf_eval_runs_refinement_episodes(bench, tmp_path, monkeypatch):
    """Two turns: a wrong answer, the verifier's feedback, the right answer."""
    monkeypatch.setenv("SCRIPTED_API_KEY", "local")
    monkeypatch.chdir(tmp_path)
    problem = tiny_problem(bench / "tiny_sum", big=2000)

    def model(messages, request):
        seen = [m for m in messages if m["role"] == "user"]
        return fenced(faster_asm() if len(seen) > 1 else wrong_asm())

    with openai_server(model) as url:
        (trace,) = vf_eval(bench, tmp_path / "out", url, "--env.taskset.turns", "2")
        second = url.requests[1]["messages"]
    untimed = RewardConfig("paper", eval_config=CheckConfig(time=False))
    (wrong,) = episode.judge([problem], [fenced(wrong_asm())], [1], 2, untimed)
    assert second[-1] == {"role": "user", "content": feedback_for(wrong.verdict, problem)}
    assert len(url.requests) == 2
    assert trace["rewards"]["speedup"]["score"] == 1.0  # the final answer's reward
    assert trace["metrics"]["turn_1_reward"] == 0.0 and trace["metrics"]["turn_2_reward"] == 1.0
    turns = trace["info"]["supercoder_turns"]
    assert [t["status"] for t in turns] == ["wrong_output", "ok"] and turns[-1]["done"]


def test_vf_eval_single_turn_scores_with_the_rubric(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("SCRIPTED_API_KEY", "local")
    monkeypatch.chdir(tmp_path)
    with openai_server(lambda messages, request: fenced(wrong_asm())) as url:
        (trace,) = vf_eval(
            bench,
            tmp_path / "out",
            url,
            *("--env.id", "single-agent", "--env.agent.runtime.type", "subprocess"),
        )
    assert len(url.requests) == 1
    assert trace["rewards"]["speedup"]["score"] == 0.0
    assert trace["info"]["supercoder_turns"][0]["status"] == "wrong_output"
