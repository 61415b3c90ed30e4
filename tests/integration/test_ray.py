"""Ray: a local Ray instance gives the same verdicts as the local executors."""

from __future__ import annotations

import pytest

from supercoder.verify.evaluate import CheckConfig
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
    config = RewardConfig(eval_config=CheckConfig(time=False))
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


def _ray_pids(marker: str) -> list[int]:
    """Processes of the Ray cluster this test started: their environment holds the
    test's own marker (every Ray process inherits it from ``ray start``; nothing
    else on the machine has it)."""
    import os

    needle = f"SC_RAY_TEST={marker}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        if any(v.startswith(needle) for v in environ):
            pids.append(int(entry))
    return pids


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _kill(pids: list[int]) -> None:
    import contextlib
    import os
    import signal

    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_a_node_lost_mid_batch_loses_no_verdict(tmp_path, monkeypatch):
    """Two raylets on this machine (``ray start --head`` + ``ray start --address``);
    the second is killed once the batch is under way: every candidate still gets its
    verdict (Ray reruns the lost tasks on the node that is left), with the status a
    local pool gives."""
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import time
    from pathlib import Path

    from supercoder.timing.meter import MeterConfig
    from supercoder.toolchain.gcc import compile_to_asm
    from supercoder.verify.ray import RayExecutor
    from supercoder.verify.service import VerifyConfig, verify_stream
    from tests.fakes.tiny_model import SLOW_SOURCE

    ray_cli = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
    if not Path(ray_cli).exists():
        pytest.skip("the ray command is not installed")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    import ray

    marker = f"{os.getpid()}-{port}"
    temp = Path("/tmp") / f"scray-{port}"  # short: Ray's socket paths must fit
    home = tmp_path / "home"  # the cluster's own ~/.ray (no auth token of this machine's)
    home.mkdir()
    common = ["--num-cpus=1", "--disable-usage-stats", f"--temp-dir={temp}"]
    head_cmd = [ray_cli, "start", "--head", f"--port={port}", "--include-dashboard=false"]
    # the cluster's own settings: none of the RAY_* a Ray instance earlier in this
    # process left in its environment (token auth, addresses)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(home)
    address = f"{ray.util.get_node_ip_address()}:{port}"
    problems = [tiny_problem(tmp_path / n, name=n, big=3_000_000) for n in ("ray_x", "ray_y")]
    asms = [compile_to_asm(SLOW_SOURCE, (f"-{o}",)) for o in ("O0", "O1", "O2", "Os")]
    asms.append(wrong_asm())
    pairs = [(p, a) for p in problems for a in asms]
    config = VerifyConfig(
        CheckConfig(meter=MeterConfig(min_pairs=2, max_pairs=2, max_repeats=1)), group_size=1
    )
    try:
        run = {"capture_output": True, "text": True, "timeout": 180}
        head_env = {**env, "SC_RAY_TEST": f"{marker}-head"}
        started = subprocess.run([*head_cmd, *common], env=head_env, **run)
        assert started.returncode == 0, started.stderr[-2000:]
        worker = [ray_cli, "start", f"--address={address}", *common]
        joined = subprocess.run(worker, env={**env, "SC_RAY_TEST": f"{marker}-node"}, **run)
        assert joined.returncode == 0, joined.stderr[-2000:]
        executor = RayExecutor(address=address, max_retries=3)
        try:
            deadline = time.monotonic() + 60
            while len([n for n in ray.nodes() if n["Alive"]]) < 2:
                assert time.monotonic() < deadline, "the second raylet never joined"
                time.sleep(0.5)
            got = {}
            stream = verify_stream([p for p, _ in pairs], [a for _, a in pairs], config, executor)
            for checked in stream:
                if not got:  # the batch is under way: lose the second node, all of it
                    node = _ray_pids(f"{marker}-node")
                    assert any("raylet" in _cmdline(pid) for pid in node), "no second raylet"
                    _kill(node)
                got[checked.index] = checked.verdict
            assert sorted(got) == list(range(len(pairs)))
            assert not _ray_pids(f"{marker}-node")  # the node is gone indeed
            deadline = time.monotonic() + 90  # and the cluster says so, once it notices
            while len([n for n in ray.nodes() if n["Alive"]]) > 1:
                assert time.monotonic() < deadline, "the lost node still reads alive"
                time.sleep(1)
        finally:
            executor.close()
        statuses = [got[i].status.value for i in range(len(pairs))]
        assert statuses == ["ok", "ok", "ok", "ok", "wrong_output"] * 2
        assert not any(v.is_infra_failure for v in got.values())
        assert all(got[i].speedup is not None for i in (0, 1, 2, 3))
    finally:
        _kill(_ray_pids(marker))
        shutil.rmtree(temp, ignore_errors=True)
