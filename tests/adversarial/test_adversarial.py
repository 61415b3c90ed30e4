"""Known cheats and attacks: each must be rejected or contained by the evaluator.

Every fixture is compiled to assembly (as a model would hand it in) and run only
through the evaluator's sandbox; ``sandbox_or_skip`` guarantees no fixture ever runs
unsandboxed. Each fixture prints the right answer only if its attack succeeded, so a
leaky sandbox shows up as a passing (``ok``) verdict.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.sandbox.box import Limits, open_sandbox
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import assemble, compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import paper_reward
from tests.conftest import make_sum_problem, sandbox_or_skip

HERE = Path(__file__).parent
LIMITS = Limits(cpu_seconds=2.0, wall_seconds=4.0, memory_mb=512, output_bytes=1 << 20)
CONFIG = CheckConfig(time=False, limits=LIMITS)


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
    """No process on the host is still running the sandboxed binary ``name`` (its
    executable: every run's argv[0] is the same ``./program``, so the command line
    cannot tell)."""
    marker = f"/sc/bin/{name}"
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and os.readlink(proc / "exe").endswith(marker):
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
        (
            "search_expected",
            {Status.RUNTIME_ERROR, Status.WRONG_OUTPUT, Status.TIMEOUT},
        ),  # slow walk under load
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


def refused(verdict, how: str = "exit code 1") -> bool:
    """Failed on the first test because the attack was refused (the fixture gave up)."""
    return verdict.status is Status.RUNTIME_ERROR and verdict.tests[0].detail.startswith(how)


@pytest.mark.parametrize("kind", ["shm", "sem", "msg", "mqueue"])
def test_nothing_outlives_a_run_ipc(problem, kind):
    """SysV shared memory, semaphores, message queues and POSIX mqueues would survive
    from the correctness pass into timing (answer caches, memory outside the limit)."""
    index = ["shm", "sem", "msg", "mqueue"].index(kind)
    verdict = evaluate(problem, fixture_asm("ipc_persist", f"KIND={index}"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_no_writable_place_in_the_sandbox(problem):
    """No directory (/, /tmp, /dev/shm, /sc, ... anything outside /proc) takes a file or FIFO."""
    verdict = evaluate(problem, fixture_asm("writable_places"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


TAMPER_CALLS = [
    "prlimit64",
    "setpriority",
    "setpriority-user",
    "sched_setaffinity",
    "sched_setscheduler",
    "sched_setattr",
    "ioprio_set",
    "ioprio_set-user",
    "migrate_pages",
    "move_pages",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "sched_setparam",
]


@pytest.mark.parametrize("call", TAMPER_CALLS)
def test_candidate_cannot_change_its_supervisor(problem, call):
    """Limits, priority, scheduling, affinity, I/O priority, memory placement and
    queued signals of pid 1 (the supervisor) are out of the candidate's reach."""
    verdict = evaluate(
        problem, fixture_asm("tamper_supervisor", f"CALL={TAMPER_CALLS.index(call)}"), CONFIG
    )
    assert refused(verdict), (verdict.status, verdict.message)


def test_supervisor_counters_are_hidden(problem):
    """The supervisor's /proc entries (CPU time, context switches) would carry a
    number from one run to the next: the candidate cannot read them."""
    verdict = evaluate(problem, fixture_asm("supervisor_counters"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_candidate_cannot_evict_shared_files_from_the_page_cache(problem):
    """Evicting the inputs would make the next (baseline) run slower: refused."""
    verdict = evaluate(problem, fixture_asm("evict_page_cache"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_sabotaged_baseline_is_never_infra_error(problem):
    """A correct candidate that tries to break the next baseline run gets its own
    verdict (here ok: the sabotage is refused), never infra_error."""
    verdict = evaluate(problem, fixture_asm("sabotage_baseline"), replace(CONFIG, time=True))
    assert verdict.status is Status.OK, (verdict.status, verdict.message)


@pytest.mark.parametrize("mode", ["execve-baseline", "execveat-baseline", "shell", "itself"])
def test_candidate_cannot_exec(problem, mode):
    """Exec'ing the baseline (or anything, itself included) kills the run: runtime_error."""
    index = ["execve-baseline", "execveat-baseline", "shell", "itself"].index(mode)
    verdict = evaluate(problem, fixture_asm("exec_other", f"MODE={index}"), CONFIG)
    assert refused(verdict, "killed by signal SIGSYS"), (verdict.status, verdict.message)


def test_candidate_cannot_read_the_baseline_binary(problem):
    """Binaries in the box are execute-only: nothing to read, copy or map in-process."""
    verdict = evaluate(problem, fixture_asm("read_baseline"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_candidate_cannot_list_the_test_inputs(problem):
    """The inputs folder is not listable: names are SHA-256 digests of the contents, so a
    run opens its own input and cannot find the others (hidden ones included)."""
    verdict = evaluate(problem, fixture_asm("list_inputs"), CONFIG)
    assert refused(verdict), (verdict.status, verdict.message)


def test_a_run_sees_only_its_own_libraries(problem):
    """Before: the runtime sandbox showed all of /usr (supercoder's package with the
    bundled problems' hidden outputs, where installed system-wide; hundreds of MB of
    files whose page-cache state is a store between runs). Now a run sees the loader and
    libraries its binary needs (copied into the sandbox) and nothing else."""
    libc = '"/lib/x86_64-linux-gnu/libc.so.6"'
    if Path("/lib/x86_64-linux-gnu/libc.so.6").is_file():
        seen = evaluate(problem, fixture_asm("read_installed", f"PATH={libc}"), CONFIG)
        assert seen.status is Status.OK, (seen.status, seen.message)  # the fixture works
    for path in ("/usr/include/stdio.h", "/usr/bin/gcc", "/etc/passwd", "/usr/lib/os-release"):
        hidden = evaluate(problem, fixture_asm("read_installed", f'PATH="{path}"'), CONFIG)
        assert refused(hidden), (path, hidden.status, hidden.message)


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


def test_disk_cache_between_timing_runs_is_contained(problem, tmp_path):
    """Timing runs cannot see anything earlier runs wrote: the cache never hits (its
    working folder takes the cache, fresh per run, read back as output the reference
    never wrote: wrong)."""
    verdict = evaluate(problem, fixture_asm("disk_cache"), replace(CONFIG, time=True))
    assert verdict.status is Status.WRONG_OUTPUT
    assert not Path("/tmp/sc_cache").exists()
    (tmp_path / "c.s").write_text(fixture_asm("disk_cache"))
    subprocess.run(["gcc", "-o", str(tmp_path / "c"), str(tmp_path / "c.s")], check=True)
    with open_sandbox({"c": tmp_path / "c"}) as box:
        runs = [box.run("c", problem.visible_tests[0].run_input()) for _ in range(3)]
    assert all(b"CACHED" not in r.stdout and b"== sc_cache" in r.stdout for r in runs)


def test_hardcoded_answer_fails_other_and_hidden_tests(problem):
    first = problem.visible_tests[0].expected.decode().strip()
    verdict = evaluate(problem, fixture_asm("hardcoded_answer", f'ANSWER="{first}"'), CONFIG)
    assert verdict.status is Status.WRONG_OUTPUT
    assert verdict.unseen is not None and verdict.unseen.status is Status.WRONG_OUTPUT


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


def set_nofile(pid: int, value: str) -> None:
    """prlimit as the sandbox's host user (the supervisor's owner: no capability needed)."""
    import subprocess

    from supercoder.sandbox.box import unprivileged_popen_kwargs

    subprocess.run(
        ["prlimit", f"--pid={pid}", f"--nofile={value}"], check=True, **unprivileged_popen_kwargs()
    )


def _supervisor_pid(bwrap_pid: int) -> int:
    """Host pid of the runner (pid 1 inside): bubblewrap's child."""
    children = Path(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children").read_text().split()
    return int(children[0])


def test_supervisor_notices_and_undoes_changes_to_itself(tmp_path):
    """Whatever changes the supervisor's own limits or priority between runs, the next
    run reports it ("tampered": the candidate's failure) and the supervisor restores
    what it can; a limit it cannot raise again fails every later run."""
    import resource

    sandbox_or_skip()
    if not shutil.which("prlimit"):
        pytest.skip("needs util-linux prlimit")
    build = assemble(fixture_asm("hardcoded_answer", 'ANSWER="1"'), tmp_path / "one")
    with open_sandbox({"one": build.binary}, LIMITS) as box:
        pid = _supervisor_pid(box._proc.pid)
        assert box.run("one", b"").outcome == "exited"
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the supervisor inherited ours
        set_nofile(pid, f"{min(soft, 50)}:")
        run = box.run("one", b"")
        assert run.outcome == "tampered" and b"rlimit" in run.stderr, run
        assert f"{soft}" in Path(f"/proc/{pid}/limits").read_text()  # undone
        assert box.run("one", b"").outcome == "exited"
        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid) + 5)
        run = box.run("one", b"")
        assert run.outcome == "tampered" and b"priority" in run.stderr, run
        set_nofile(pid, f"{min(soft, 50)}:{min(hard, 50)}")
        runs = [box.run("one", b"") for _ in range(2)]  # a hard limit cannot be raised again
        assert [r.outcome for r in runs] == ["tampered", "tampered"], runs
