"""run_isolated: one-shot bubblewrap for tools (gcc, valgrind, PGO runs), with real bwrap."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from supercoder.errors import InfraError
from supercoder.sandbox.box import Limits
from supercoder.sandbox.oneshot import run_isolated
from tests.conftest import sandbox_or_skip

LIMITS = Limits(cpu_seconds=10, wall_seconds=30, memory_mb=1024, output_bytes=1 << 20, processes=8)


@pytest.fixture
def shared() -> Path:
    """A folder the sandbox user can reach (pytest's tmp_path is private to root)."""
    sandbox_or_skip()
    folder = Path(tempfile.mkdtemp(prefix="sc-test-oneshot-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def box(shared) -> Path:
    work = shared / "work"
    work.mkdir()
    return work


def limits_of(text: bytes) -> dict[str, str]:
    """/proc/self/limits -> {name: soft limit}."""
    rows = text.decode().splitlines()[1:]
    return {row[:26].strip(): row[26:47].strip() for row in rows}


def test_gcc_builds_in_the_workdir_and_its_cpu_is_counted(box):
    (box / "a.s").write_text("\t.globl main\nmain:\n\txorl %eax, %eax\n\tret\n")
    run = run_isolated(["gcc", "a.s", "-o", "a"], box, limits=LIMITS)
    assert run.clean_exit, run.stderr
    assert (box / "a").is_file() and os.access(box / "a", os.X_OK)
    assert run.cpu_seconds > 0  # gcc, as and ld were all waited for inside


def test_only_the_workdir_and_toolchain_are_visible(box, tmp_path):
    secret = tmp_path / "hidden" / "t0.out"
    secret.parent.mkdir()
    secret.write_text("the answer\n")
    script = f"cat {secret}; cat /etc/hostname; ls {Path.home()}; ls /; echo x > /usr/pwned"
    run = run_isolated(["sh", "-c", script], box, limits=LIMITS)
    assert b"the answer" not in run.stdout
    assert set(run.stdout.decode().split()) <= {
        "bin",
        "dev",
        "etc",
        "lib",
        "lib64",
        "proc",
        "sbin",
        "tmp",
        "usr",
    }
    assert not Path("/usr/pwned").exists()


def test_readonly_paths_are_readable_not_writable(box, shared):
    data = shared / "data.txt"
    data.write_text("shared\n")
    data.chmod(0o644)
    run = run_isolated(
        ["sh", "-c", f"cat {data}; echo more >> {data}"], box, limits=LIMITS, readonly=[data]
    )
    assert run.stdout == b"shared\n" and run.exit_code != 0
    assert data.read_text() == "shared\n"


def test_runs_unprivileged_with_its_limits_applied(box):
    script = "id -u; grep CapEff /proc/self/status; cat /proc/self/limits"
    run = run_isolated(["sh", "-c", script], box, limits=LIMITS, file_bytes=1 << 20, open_files=64)
    uid, caps, limits = run.stdout.split(b"\n", 2)
    assert uid != b"0" and caps.split()[-1] == b"0000000000000000"
    table = limits_of(limits)
    assert table["Max cpu time"] == "10"
    assert table["Max address space"] == str(1024 << 20)
    assert table["Max file size"] == str(1 << 20)
    assert table["Max open files"] == "64"
    assert table["Max processes"] == "9"  # the command + 8 more
    assert table["Max core file size"] == "0"


def test_stdin_is_fed_and_stdout_comes_back(box):
    data = bytes(range(256)) * 4096  # 1 MiB: more than a pipe holds
    run = run_isolated(["cat"], box, limits=LIMITS, stdin=data, env={"EXTRA": "1"})
    assert run.clean_exit and run.stdout == data[: LIMITS.output_bytes]
    env = run_isolated(["sh", "-c", "echo $EXTRA $HOME"], box, limits=LIMITS, env={"EXTRA": "1"})
    assert env.stdout == f"1 {box.resolve()}\n".encode()


def test_wall_timeout_kills_the_whole_tree(box):
    marker = box / "late"
    script = f"(sleep 3; touch {marker}) & sleep 60"
    start = time.monotonic()
    run = run_isolated(["sh", "-c", script], box, limits=replace(LIMITS, wall_seconds=1.0))
    assert run.outcome == "timeout" and time.monotonic() - start < 10
    time.sleep(3.5)
    assert not marker.exists()


def test_output_and_file_size_are_capped(box):
    flood = run_isolated(["yes"], box, limits=Limits(output_bytes=1 << 16, wall_seconds=20))
    assert flood.outcome == "output_limit" and len(flood.stdout) <= 1 << 16
    big = box / "big"
    run = run_isolated(
        ["sh", "-c", f"head -c 8000000 /dev/zero > {big}"], box, limits=LIMITS, file_bytes=1 << 20
    )
    assert run.exit_code != 0 or run.signal
    assert big.stat().st_size <= 1 << 20


def test_cpu_limit_stops_a_spinning_tool(box):
    run = run_isolated(
        ["sh", "-c", "while :; do :; done"], box, limits=Limits(cpu_seconds=1, wall_seconds=30)
    )
    assert run.outcome == "timeout"


def test_unsandboxed_mode_keeps_the_rlimits(tmp_path):
    run = run_isolated(
        ["cat", "/proc/self/limits"], tmp_path, limits=LIMITS, isolation=False, file_bytes=1 << 20
    )
    table = limits_of(run.stdout)
    assert run.clean_exit
    assert table["Max address space"] == str(1024 << 20) and table["Max file size"] == str(1 << 20)
    missing = run_isolated(["/nonexistent/tool"], tmp_path, limits=LIMITS, isolation=False)
    assert missing.outcome == "spawn_error"


def test_hidden_folders_are_shown_empty(box):
    shown = Path("/usr/share")
    assert any(shown.iterdir())
    run = run_isolated(["ls", "-A", str(shown)], box, limits=LIMITS, hide=[shown])
    assert run.clean_exit and run.stdout == b""


def test_process_limit_counts_only_the_sandbox(box):
    """processes=2: a third concurrent child cannot start, whatever runs on the host."""
    script = "sleep 2 & sleep 2 & sleep 2 & wait"
    run = run_isolated(["sh", "-c", script], box, limits=replace(LIMITS, processes=2))
    assert b"fork" in run.stderr.lower() or run.exit_code != 0, run.stderr
    ok = run_isolated(
        ["sh", "-c", "sleep 0.1 & sleep 0.1 & wait"], box, limits=replace(LIMITS, processes=2)
    )
    assert ok.clean_exit, ok.stderr


def test_a_private_workdir_is_refused_with_a_clear_error(tmp_path):
    sandbox_or_skip()
    if os.geteuid() != 0:
        pytest.skip("only root hands the workdir to another user")
    with pytest.raises(InfraError, match="not reachable by the sandbox user"):
        run_isolated(["true"], tmp_path, limits=LIMITS)


def test_a_private_tmpdir_is_explained_to_the_cli_user(tmp_path, monkeypatch):
    """TMPDIR inside a private (0700) folder: the sandbox user cannot reach the work
    folder; the message names TMPDIR and the folder to fix, not a programmer's API."""
    import os
    import tempfile

    from supercoder.errors import InfraError

    sandbox_or_skip()
    if os.geteuid() != 0:
        pytest.skip("only a root-started sandbox hands folders to another user")
    private = tmp_path / "private"
    (private / "tmp").mkdir(parents=True)
    private.chmod(0o700)
    (private / "tmp").chmod(0o777)
    monkeypatch.setenv("TMPDIR", str(private / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", None)
    work = Path(tempfile.mkdtemp())
    with pytest.raises(InfraError) as e:
        run_isolated(["true"], work, limits=LIMITS)
    text = str(e.value)
    assert "TMPDIR" in text and f"chmod o+x {private}" in text and "mkdtemp" not in text
