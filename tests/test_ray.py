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


@pytest.mark.slow
def test_the_local_ray_instance_starts_with_token_authentication(tmp_path):
    """Ray reads RAY_AUTH_MODE when imported: a fresh process (as the CLI is) that
    starts a local instance has token authentication on, and its tasks run."""
    import os
    import subprocess
    import sys

    import ray

    from supercoder.verify.ray import TOKEN_AUTH_SINCE

    if tuple(int(x) for x in ray.__version__.split(".")[:2]) < TOKEN_AUTH_SINCE:
        pytest.skip(f"Ray {ray.__version__} has no token authentication")
    script = (
        "import os; from supercoder.verify.ray import RayExecutor\n"
        "def neg(x): return -x\n"
        "e = RayExecutor(1)\n"
        "print(os.environ['RAY_AUTH_MODE'], [r for _, r in e.map_unordered(neg, [-3])])\n"
        "e.close()\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_MODE")}
    env["HOME"] = str(tmp_path)  # Ray keeps the token it generates under ~/.ray
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[-2] == "token [3]"
