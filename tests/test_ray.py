"""Ray: a local Ray instance gives the same verdicts as the local executors."""

from __future__ import annotations

import pytest

from supercoder.verify.evaluate import EvalConfig
from supercoder.verify.executors import InlineExecutor, LocalExecutor, make_executor
from supercoder.verify.reward import RewardConfig, verify_batch
from tests.fakes.tiny_model import faster_asm, tiny_problem, wrong_asm

pytest.importorskip("ray")


@pytest.mark.slow
def test_ray_matches_local_pool(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    from supercoder.verify.ray import RayExecutor

    problems = [tiny_problem(tmp_path / n, name=n, big=1000) for n in ("ray_a", "ray_b")]
    answers = [
        f"```assembly\n{faster_asm()}```",
        f"```assembly\n{wrong_asm()}```",
        "```assembly\nmain:\n\tthis is not an instruction\n```",
    ]
    pairs = [(p, a) for p in problems for a in answers]
    config = RewardConfig(eval_config=EvalConfig(time=False))
    targets, texts = [p for p, _ in pairs], [a for _, a in pairs]

    def statuses(executor):
        return [(v.problem, v.status) for v in verify_batch(targets, texts, config, executor)]

    with LocalExecutor(2) as pool:
        local = statuses(pool)
    executor = make_executor("ray", 2)
    try:
        assert isinstance(executor, RayExecutor)
        assert statuses(executor) == local
    finally:
        executor.close()
    assert local == statuses(InlineExecutor())
    assert [s for _, s in local[:3]] == ["ok", "wrong_output", "compile_error"]
