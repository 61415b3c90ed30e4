"""Every path pays the new reward forms identically: check --reward, score_batch, the
TRL reward, verl's compute_score, serve's /v1/score work and the environments' episodes,
each through its own entry point, on the same known variants (a closed form ~1000x faster
than the -O3 loop, the source at -O0, a wrong program, no program, the baseline copied).
A copy earns 0 under every form, and so does the -O0 build (proven slower)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.training import episode
from supercoder.training.trl_reward import make_trl_reward
from supercoder.training.verl_reward import score_responses
from supercoder.verify.client import problem_record
from supercoder.verify.pools import cached_pool
from supercoder.verify.reward import parse_reward, score_batch
from supercoder.verify.server import ServeConfig
from supercoder.verify.work import Problems, score_work
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm


def fenced(asm: str) -> str:
    return f"```assembly\n{asm}```\n"


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return tiny_problem(tmp_path_factory.mktemp("paths") / "tiny_sum")


@pytest.mark.parametrize(
    "spec", ["binary:threshold=1.2,rounds=4", "percentile:pool=builds,rounds=4"]
)
def test_every_path_pays_the_same(problem, spec, tmp_path, monkeypatch):
    config = parse_reward(spec)
    slow = compile_to_asm(problem.source, ("-O0",))
    answers = [faster_asm(), slow, wrong_asm(), None, baseline_asm(problem)]
    texts = [fenced(a) if a else "I cannot do that." for a in answers]
    n = len(texts)
    paid: dict[str, list] = {}

    paid["score_batch"] = score_batch([problem] * n, texts, config)
    trl = make_trl_reward([problem], config)
    paid["trl"] = trl(completions=texts, problem=[problem.name] * n)
    monkeypatch.setenv("SUPERCODER_REWARD", spec)
    info = problem_record(problem)
    paid["verl"] = [r["score"] for r in score_responses(texts, [info] * n)]
    body = {
        "problems": [{"name": problem.name}],
        "items": [{"problem": 0, "completion": t} for t in texts],
        "reward": {"kind": spec},
    }
    served = score_work(Problems([problem], ()), body, ServeConfig())()
    assert served["reward_form"] == config.spec
    paid["serve"] = served["rewards"]
    turns = episode.judge([problem] * n, texts, [1] * n, 1, config)
    paid["environments"] = [t.reward for t in turns]
    files = []
    for i, asm in enumerate(a for a in answers if a):
        files.append(tmp_path / f"c{i}.s")
        files[-1].write_text(asm)
    folder = str(problem.path)
    out = CliRunner().invoke(app, ["check", folder, *map(str, files), "--reward", spec, "--json"])
    assert out.exit_code == 0, out.output
    shown = json.loads(out.stdout[out.stdout.index("[") :])
    assert {v["reward_form"] for v in shown} == {config.spec}
    rewards = [v["reward"] for v in shown]
    paid["check"] = [rewards[0], rewards[1], rewards[2], 0.0, rewards[3]]

    fast = 1.0  # the closed form beats every build of the loop, and the threshold
    for path, values in paid.items():
        assert values == [fast, 0.0, 0.0, 0.0, 0.0], (path, values)
    if config.kind == "percentile":  # measured once, then read by every path
        pool = cached_pool(problem, "builds", config.evaluation())
        assert pool is not None and len(pool.members) >= 4, pool
