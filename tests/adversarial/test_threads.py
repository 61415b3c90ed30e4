"""Threads in the sandbox: a bounded number, never a process, and nothing they count.

A run may start up to ``MAX_THREADS`` threads besides its main one (benchmark programs
bring ``pthread_create`` and OpenMP); ``thread_flood.c`` tries 64 from 64 threads that
each start two more: the sandbox's task limit stops it at the cap, a thread can still
neither fork nor clone a process, and the id its first thread gets is the same in every
run (the pid namespace's cursor is put back before each run: it would otherwise count
the threads of every earlier run, a run index). A run whose main thread waits in
``pthread_join`` while a worker computes is busy, not idle; one whose threads all sleep
is idle. Runs are bound to one CPU, and CPU time (every thread's) is what is measured.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from supercoder.sandbox.box import MAX_THREADS, Limits, Sandbox
from supercoder.toolchain.gcc import assemble
from tests.adversarial.test_adversarial import fixture_asm
from tests.conftest import sandbox_or_skip

LIMITS = Limits(cpu_seconds=5.0, wall_seconds=20.0, memory_mb=512, output_bytes=4096)
SPIN = 600_000_000  # about 0.3-1 s of CPU


@pytest.fixture(scope="module")
def binaries() -> dict[str, Path]:
    sandbox_or_skip()
    work = Path(tempfile.mkdtemp(prefix="sc-test-th-"))
    os.chmod(work, 0o755)
    wanted = {"flood": ["MODE=1"], "joins": ["MODE=2", f"SPIN={SPIN}"], "naps": ["MODE=3"]}
    return {
        name: assemble(fixture_asm("thread_flood", *defines), work / name).binary
        for name, defines in wanted.items()
    }


def test_threads_are_capped_and_count_nothing(binaries):
    cpu = frozenset({max(os.sched_getaffinity(0))})
    with Sandbox(binaries, LIMITS, cpus=cpu) as box:
        lines = []
        for _ in range(3):
            run = box.run("flood", b"3 1 2 3\n")
            assert run.outcome == "exited" and run.leftover == 0, run.describe()
            lines.append(run.stdout.decode().split())
    made = {int(words[1]) for words in lines}
    assert made == {MAX_THREADS}, lines  # capped, every run alike
    assert len({words[3] for words in lines}) == 1, lines  # the same thread id every run
    assert all(words[5] == "0" and words[7] == "0" for words in lines), lines  # no process
    assert all(words[9] == "6" for words in lines), lines


def test_a_join_while_a_worker_computes_is_not_idle_but_sleeping_threads_are(binaries):
    cpu = frozenset({max(os.sched_getaffinity(0))})
    awake = Limits(cpu_seconds=10.0, wall_seconds=30.0, memory_mb=512, idle_seconds=None)
    with Sandbox(binaries, awake, cpus=cpu) as box:
        busy = box.run("joins", b"2 20 22\n")
    assert busy.outcome == "exited" and busy.stdout == b"42\n", busy.describe()
    assert busy.cpu_seconds > 0.2  # the worker's CPU time is the run's
    # the main thread slept in pthread_join all along; the worker's running is not sleep
    assert busy.blocked_seconds <= busy.wall_seconds - 0.8 * busy.cpu_seconds, busy
    dozy = Limits(cpu_seconds=10.0, wall_seconds=30.0, memory_mb=512, idle_seconds=0.5)
    with Sandbox(binaries, dozy, cpus=cpu) as box:
        naps = box.run("naps", b"1 1\n")
    assert naps.outcome == "idle", naps.describe()
