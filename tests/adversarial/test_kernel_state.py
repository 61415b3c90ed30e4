"""No kernel-wide counter or id carries anything from one run to a later one.

Each class of kernel state a run could move and a later run could read is tried by
``kernel_counters.c``: a run writes a mark (MODE 1), a later run of the same sandbox,
or of another sandbox open beside it, reads it (MODE 2). What it read before the fix
(runs of one sandbox pinned to one CPU; marks 100 and 612, mod 1024):

- pipe inodes (the kernel's per-CPU ``get_next_ino()`` counter, shared by pipes and
  ``/proc``): the next run's stdout pipe read 108/103 and 614/614 (same/other sandbox);
- memfd inodes (the internal shmem mount's per-CPU counter): 101/101, 613/613;
- ``MAP_SHARED|MAP_ANONYMOUS`` and shared ``/dev/zero`` mappings (the same counter):
  101/101, 613/613;
- ``/proc`` lookups (``get_next_ino()`` again): one run moved the next run's stdout
  pipe inode by 61 more than a run that looked nothing up (75 against 7, 3 of 3);
- CPU affinity: a run bound to one CPU moved itself to the other CPU of the machine;
- pid numbers: the runs of one sandbox read 39, 40 (another: 10), a run index with
  which a program tells its warm-up run from the others;
- unique mount ids (``statx`` ``STATX_MNT_ID_UNIQUE``): its root's less its input's
  read 124, 175, 197 in three runs of one sandbox (another run index);
- machine-wide counters and ids under ``/proc`` (forks and context switches, last
  pid, inode and file counts, locks, namespace ids): 5 of the 7 tried readable.

Now ``pipe``/``pipe2`` (for programs that may not fork), ``memfd_create``, shared
anonymous mappings, ``sched_setaffinity`` and unique mount ids are refused by seccomp, a run's root has
neither ``/dev/zero`` nor ``/proc``, and every run gets the same pid (``runner.c``
``spawn``): no mark is written, and what a run can still read (its stdout pipe's
inode) moves by the supervisor's own fixed steps only. Timer slack is a per-process
value and never crossed (the control); keyrings and new namespaces were refused
before this change and still are (a guard).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from supercoder.sandbox.box import Limits, Sandbox
from supercoder.toolchain.gcc import assemble
from supercoder.types import Status
from supercoder.verify.evaluate import evaluate
from tests.adversarial.test_adversarial import CONFIG, fixture_asm, problem
from tests.conftest import sandbox_or_skip

__all__ = ["problem"]

MARKS = (100, 612)
WINDOW = 48  # a mark is "seen" when the reader is at most this far past it (mod 1024)
LIMITS = Limits(cpu_seconds=2.0, wall_seconds=4.0, memory_mb=256, output_bytes=4096)


@pytest.fixture(scope="module")
def binaries() -> dict[str, Path]:
    sandbox_or_skip()
    work = Path(tempfile.mkdtemp(prefix="sc-test-kc-"))
    os.chmod(work, 0o755)
    wanted = {f"r{k}": dict(KIND=k, MODE=2) for k in range(4)}
    for k in range(4):
        for m in MARKS:
            wanted[f"w{k}_{m}"] = dict(KIND=k, MODE=1, MARK=m)
    wanted |= {
        "w4": dict(KIND=4, MODE=1),
        "w5": dict(KIND=5, MODE=1),
        "r6": dict(KIND=6, MODE=2),
        "w7": dict(KIND=7, MODE=1, MARK=5),
        "r7": dict(KIND=7, MODE=2),
        "r8": dict(KIND=8, MODE=2),
        "r9": dict(KIND=9, MODE=2),
        "r10": dict(KIND=10, MODE=2),
    }
    out = {}
    for name, defines in wanted.items():
        asm = fixture_asm("kernel_counters", *(f"{k}={v}" for k, v in defines.items()))
        out[name.replace("_", "m")] = assemble(asm, work / name).binary
    return out


@pytest.fixture(scope="module")
def boxes(binaries):
    """Two sandboxes side by side, both on one CPU (per-CPU counters: as a timing slot)."""
    cpu = frozenset({max(os.sched_getaffinity(0))})
    with Sandbox(binaries, LIMITS, cpus=cpu) as one, Sandbox(binaries, LIMITS, cpus=cpu) as two:
        yield one, two


def said(box: Sandbox, name: str) -> str:
    run = box.run(name, b"")
    assert run.outcome == "exited", (name, run.describe())  # refusals are errors, not kills
    return run.stdout.decode().strip()


def value(line: str) -> int | None:
    return int(line.split()[1]) if line.startswith("read ") else None


@pytest.mark.parametrize("kind", [0, 1, 2, 3], ids=["pipe", "memfd", "shared-anon", "dev-zero"])
@pytest.mark.parametrize("where", ["same sandbox", "other sandbox"])
def test_no_inode_counter_carries_a_mark(boxes, kind, where):
    writer_box, reader_box = boxes[0], boxes[0] if where == "same sandbox" else boxes[1]
    lines = []
    for mark in MARKS:
        wrote = said(writer_box, f"w{kind}m{mark}")
        got = value(said(reader_box, f"r{kind}"))
        seen = wrote == f"mark {mark}" and got is not None and 1 <= (got - mark) % 1024 <= WINDOW
        lines.append((wrote, got, seen))
    assert not all(seen for *_, seen in lines), lines
    assert all(wrote.startswith("refused") for wrote, *_ in lines), lines


def test_proc_lookups_move_nothing_a_later_run_reads(boxes):
    box = boxes[0]
    for _ in range(3):
        a, b = value(said(box, "r0")), value(said(box, "r0"))
        wrote = said(box, "w4")
        c = value(said(box, "r0"))
        assert a is not None and b is not None and c is not None
        plain, after = (b - a) % 1024, (c - b) % 1024
        assert wrote == "refused proc", wrote  # a run's root has no /proc
        if after <= 2 * plain + 10:  # one run of its own in between, nothing more
            return
    pytest.fail(f"the lookups moved the counter: {plain} between plain runs, {after} across")


def test_a_run_cannot_leave_its_cpus(binaries):
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nowhere to move")
    cpu = frozenset({min(os.sched_getaffinity(0))})
    with Sandbox(binaries, LIMITS, cpus=cpu) as box:
        assert said(box, "w5") == "read 0"


def test_every_run_has_the_same_pid(boxes):
    pids = {said(box, "r6") for box in boxes for _ in range(3)}
    assert len(pids) == 1, pids


def test_no_run_reads_a_unique_mount_id(boxes):
    """Its root's unique mount id (a counter every mount on the machine moves: the
    supervisor mounts each run's root) less its input's grew with every run."""
    seen = [said(box, "r8") for box in (*boxes, boxes[0])]
    assert all(line == "refused statx" for line in seen), seen


def test_no_machine_wide_counter_in_proc_is_shown(boxes):
    """/proc/stat (forks, context switches), /proc/loadavg (last pid), ns_last_pid,
    inode-nr, file-nr, /proc/locks, namespace ids: 5 of these 7 read before; none now."""
    assert said(boxes[0], "r9") == "read 0"


def test_no_key_or_namespace_is_made(boxes):
    """Key serials and namespace ids (refused before this change too: a guard)."""
    assert said(boxes[0], "r10") == "read 0"


def test_timer_slack_never_crossed(boxes):
    """The control: a per-process value, gone with its process (before and after)."""
    assert said(boxes[0], "w7") == "read 1000005"
    assert said(boxes[0], "r7") != "read 1000005"


def test_ordinary_programs_are_left_alone(problem):
    """stdio, a shared read-only mapping of the input file, a 64 MiB malloc, qsort,
    libm, the locale, sysconf: all still work under the refusals above."""
    verdict = evaluate(problem, fixture_asm("ordinary_program"), CONFIG)
    assert verdict.status is Status.OK, verdict.message
