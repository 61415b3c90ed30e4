"""The run's writable working folder and its output by name (issue 42 item 4).

Every run's working folder (``/box``) is a tmpfs of its own, fresh per run, holding
writable copies of its test's data files; what it writes there is read back after the
run and appended to its stdout (so it is compared like stdout). ``/dev/stdout`` and
``/dev/stderr`` are the run's own pipes. None of it may outlive the run, make a device,
show the supervisor's scratch, follow a link the run left, hang on a FIFO it left, or
hold more than the output limit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from supercoder.sandbox.box import Limits, open_sandbox
from supercoder.types import with_args
from tests.conftest import sandbox_or_skip

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def binaries(tmp_path_factory):
    sandbox_or_skip()
    out = tmp_path_factory.mktemp("wf")
    made = {}
    for mode in (0, 1):
        made[f"m{mode}"] = out / f"m{mode}"
        subprocess.run(
            [
                "gcc",
                "-O2",
                f"-DMODE={mode}",
                "-o",
                str(made[f"m{mode}"]),
                str(HERE / "working_folder.c"),
            ],
            check=True,
        )
    return made


def test_nothing_a_run_writes_outlives_it(binaries):
    data = with_args((), b"", (("d.txt", b"data\n"),))
    with open_sandbox(binaries) as box:
        first = box.run("m0", data)
        second = box.run("m0", data)
    for run in (first, second):
        assert run.outcome == "exited", run.describe()
        out = run.stdout.decode()
        assert "found" not in out and "node" not in out and "scratch" not in out, out
        assert out.startswith("by name\n") and "done\n" in out, out  # /dev/stdout is stdout
        head = f"\n[files the run wrote, after {len(out.split(chr(10) + '[files')[0])} bytes"
        assert head in out, out
        # what it wrote is read back: its marks, the unreadable file; a link and a FIFO not
        assert "== mark (2 bytes) ==" in out and "== sub/mark (2 bytes) ==" in out, out
        assert "== closed (2 bytes) ==\nc\n" in out, out
        assert "root:" not in out and "== link" not in out and "== fifo" not in out, out
        assert "== d.txt" not in out  # a data file left as shipped is not output
    assert first.stdout == second.stdout


def test_a_run_cannot_write_past_its_output_limit(binaries):
    limits = Limits(output_bytes=1 << 20)
    with open_sandbox(binaries) as box:
        run = box.run("m1", with_args((), b"", ()), limits)
        after = box.run("m0", with_args((), b"", ()), limits)
    # refused at the limit (a write fails or SIGXFSZ), and never more than it comes back
    assert run.outcome in ("output_limit", "signaled") or b"big refused" in run.stdout
    assert len(run.stdout) <= 1 << 20
    assert after.outcome == "exited" and b"found" not in after.stdout  # the next run is clean
