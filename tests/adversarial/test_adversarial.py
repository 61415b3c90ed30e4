"""Known cheats and attacks: each must be rejected or contained by the evaluator.

Every fixture is compiled to assembly (as a model would hand it in) and run only
through the evaluator's sandbox; ``sandbox_or_skip`` guarantees no fixture ever runs
unsandboxed. Each fixture prints the right answer only if its attack succeeded, so a
leaky sandbox shows up as a passing (``ok``) verdict.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from supercoder.evaluate import EvalConfig, baseline_asm, evaluate
from supercoder.problems import load_problem
from supercoder.reward import paper_reward
from supercoder.sandbox import Limits, open_sandbox
from supercoder.toolchain import assemble, compile_to_asm
from supercoder.types import Status
from tests.conftest import make_sum_problem, sandbox_or_skip

HERE = Path(__file__).parent
LIMITS = Limits(cpu_seconds=2.0, wall_seconds=4.0, memory_mb=512, output_bytes=1 << 20)
CONFIG = EvalConfig(time=False, limits=LIMITS)


def fixture_asm(name: str, *defines: str) -> str:
    source = (
        (HERE / f"{name}.c")
        .read_text()
        .replace('#include "common.h"', (HERE / "common.h").read_text())
    )
    return compile_to_asm(source, ("-O2", *(f"-D{d}" for d in defines)))


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    sandbox_or_skip()
    return load_problem(make_sum_problem(tmp_path_factory.mktemp("adv") / "sum"))


def no_stray_processes(name: str) -> bool:
    """No process on the host is still running the sandboxed binary ``name``."""
    marker = f"/sc/bin/{name}".encode()
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes():
                return False
        except OSError:
            continue
    return True


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("infinite_loop", {Status.TIMEOUT}),
        ("fork_flood", {Status.RUNTIME_ERROR}),
        ("detached_child", {Status.RUNTIME_ERROR, Status.WRONG_OUTPUT}),
        ("search_expected", {Status.RUNTIME_ERROR, Status.WRONG_OUTPUT}),
        ("alloc_gigabytes", {Status.MEMORY_LIMIT}),
        ("flood_stdout", {Status.OUTPUT_LIMIT}),
        ("kill_parent", {Status.RUNTIME_ERROR}),
        ("write_proc", {Status.RUNTIME_ERROR}),
    ],
)
def test_attack_is_rejected(problem, fixture, expected):
    verdict = evaluate(problem, fixture_asm(fixture), CONFIG)
    assert verdict.status in expected, (verdict.status, verdict.message)
    assert not verdict.correct and paper_reward(verdict) == 0.0


def test_connect_to_host_loopback_fails(problem):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    port = server.getsockname()[1]
    connections = []

    def serve():  # bounded: stops after 8 s or 10 connections
        end = time.monotonic() + 8
        while time.monotonic() < end and len(connections) < 10:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            connections.append(1)
            conn.sendall(b"5\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        verdict = evaluate(problem, fixture_asm("connect_loopback", f"PORT={port}"), CONFIG)
    finally:
        thread.join()
        server.close()
    assert verdict.status is Status.RUNTIME_ERROR
    assert connections == []


def test_write_outside_its_folder_fails(problem, tmp_path):
    target = tmp_path / "pwned.txt"
    tmp_path.chmod(0o777)
    verdict = evaluate(problem, fixture_asm("write_outside", f'TARGET="{target}"'), CONFIG)
    assert verdict.status is Status.RUNTIME_ERROR
    assert not target.exists()


def test_disk_cache_between_timing_runs_is_contained(problem):
    """Timing runs cannot see anything earlier runs wrote: the cache never hits."""
    config = replace(CONFIG, time=True)
    verdict = evaluate(problem, fixture_asm("disk_cache"), config)
    assert verdict.status is Status.OK  # honest answer every time: the cache never hit
    assert verdict.tests and all(t.pairs >= 1 for t in verdict.tests)
    assert not Path("/tmp/sc_cache").exists()


def test_hardcoded_answer_fails_other_and_hidden_tests(problem):
    first = problem.visible_tests[0].expected.decode().strip()
    verdict = evaluate(problem, fixture_asm("hardcoded_answer", f'ANSWER="{first}"'), CONFIG)
    assert verdict.status is Status.WRONG_OUTPUT
    hidden = {t.name for t in problem.tests if t.hidden}
    assert any(r.status is Status.WRONG_OUTPUT for r in verdict.tests if r.name in hidden)


def test_baseline_copy_earns_nothing(problem):
    verdict = evaluate(problem, baseline_asm(problem), CONFIG)
    assert verdict.status is Status.OK and verdict.identical_to_baseline
    assert paper_reward(verdict) == 0.0


def test_detached_child_is_killed_when_processes_are_allowed(tmp_path):
    """Even where fork is permitted, a setsid'd child never outlives its run."""
    sandbox_or_skip()
    build = assemble(fixture_asm("detached_child"), tmp_path / "detached")
    assert build.ok, build.log
    name = f"detached{os.getpid()}"
    with open_sandbox({name: build.binary}, replace(LIMITS, processes=8)) as box:
        run = box.run(name, b"2\n3 4\n")
        assert run.leftover >= 1 and run.stdout == b""
        assert not run.clean_exit
        time.sleep(0.5)  # the child would have printed by now
        assert no_stray_processes(name)
        again = box.run(name, b"1\n1\n")  # the supervisor is still healthy
        assert again.outcome == "exited"
    assert no_stray_processes(name)


def test_bubblewrap_never_runs_as_host_root(tmp_path):
    """Started as root (CI is), the sandbox runs as an unprivileged host user with no
    supplementary groups: its user namespace maps to that uid, never to host uid 0."""
    sandbox_or_skip()
    build = assemble(fixture_asm("hardcoded_answer", 'ANSWER="1"'), tmp_path / "one")
    with open_sandbox({"one": build.binary}, LIMITS) as box:
        status = Path(f"/proc/{box._proc.pid}/status").read_text()
        ids = {line.split(":")[0]: line.split()[1:] for line in status.splitlines() if ":" in line}
        assert box.run("one", b"").stdout == b"1\n"
    if os.geteuid() == 0:
        assert ids["Uid"][0] != "0" and ids["Gid"][0] != "0" and ids["Groups"] == []
