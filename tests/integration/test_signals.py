"""Signals: Ctrl-C, SIGTERM and SIGKILL stop a command promptly, leave no temp folder or half-written
problem behind, and say whether the run resumes. Each test signals once an observable
state is reached (a request at the fake server, a printed line, a folder), never after a
fixed sleep, so they pass on a loaded machine."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from supercoder.problems.loading import load_problem
from supercoder.runs.store import Store
from tests.conftest import make_sum_problem, sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.integration.test_files_and_stores import ROOT, cli, record  # noqa: F401
from tests.integration.test_infra_faults import hanging  # noqa: F401
from tests.integration.test_strategies import fast_answer, primes_dir


def test_ctrl_c_stops_eval_at_once_while_a_request_hangs_and_the_run_resumes(tmp_path):
    sandbox_or_skip()
    bench, db = tmp_path / "bench", tmp_path / "r.sqlite"
    for name in ("k1", "k2"):
        primes_dir(bench, name, sizes=(3000,))
    args = [
        sys.executable,
        "-m",
        "supercoder.cli",
        "eval",
        "-m",
        "openai:m",
        "--benchmark",
        str(bench),
        "--db",
        str(db),
        "--no-time",
        "--run",
        "r",
        "--concurrency",
        "1",
    ]
    release = threading.Event()
    answered = []

    def first_then_hang(messages, request):
        if not answered:
            answered.append(1)
            return fast_answer()
        release.wait(300)
        return fast_answer()

    try:
        with openai_server(first_then_hang) as url:
            proc = subprocess.Popen(
                [*args, "--base-url", url],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            _await_requests(url, 2, proc)  # k1 answered and stored, k2's request hangs
            err, stopped = _interrupt(proc)
    finally:
        release.set()
    assert proc.returncode == 130 and stopped < 60, err  # not the 300 s the request hangs
    assert "interrupted" in err and "Traceback" not in err
    assert Store(db).finished_problems("r") == ["k1"]  # kept

    with openai_server(lambda m, r: fast_answer()) as url:
        again = subprocess.run(
            [*args, "--base-url", url], capture_output=True, text=True, timeout=300
        )
        assert again.returncode == 0, again.stderr
        assert "1 problem(s) already done" in again.stderr and len(url.requests) == 1


def test_ctrl_c_stops_optimize_while_a_request_hangs(tmp_path):
    sandbox_or_skip()
    make_sum_problem(tmp_path / "sum")
    release = threading.Event()
    try:
        with openai_server(hanging(release)) as url:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "supercoder.cli",
                    "optimize",
                    str(tmp_path / "sum"),
                    "-m",
                    "openai:m",
                    "--base-url",
                    url,
                    "-o",
                    str(tmp_path / "x.s"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            _await_requests(url, 1, proc)
            err, stopped = _interrupt(proc)
    finally:
        release.set()
    assert proc.returncode == 130 and stopped < 60, err  # not the 120 s the request hangs
    assert "interrupted" in err and "Traceback" not in err


def _await_requests(url, count: int, proc: subprocess.Popen) -> None:
    """Wait until the fake server has received ``count`` requests (the observable state a
    Ctrl-C test signals in), however loaded the machine; fail at once if the CLI exits."""
    deadline = time.monotonic() + 400
    while len(url.requests) < count and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if len(url.requests) < count:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        raise AssertionError(f"{len(url.requests)} of {count} requests came; stderr: {err}")


def _interrupt(proc: subprocess.Popen) -> tuple[str, float]:
    """Ctrl-C a CLI whose model request hangs: (its stderr, seconds until it exited)."""
    time.sleep(0.5)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    return err, time.monotonic() - start


def test_sigkill_mid_import_leaves_no_half_problem_and_a_rerun_cleans_up(tmp_path):
    src = tmp_path / "records.jsonl"
    src.write_text("".join(json.dumps(record(f"p{i:02d}", hidden=400)) + "\n" for i in range(12)))
    out = tmp_path / "out"
    args = ["dataset", "import", str(src), "--out", str(out), "--no-check-outputs"]
    args += ["--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "supercoder.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    caught = None
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            partial = [p for p in (out / "train").glob(".*.partial-*")] if out.exists() else []
            if partial and len(list(out.glob("train/p*"))) >= 1:
                caught = partial[0]
                break
            time.sleep(0.001)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # every folder that looks like a problem is whole (all 401 tests); none is half
    done = sorted(p for p in (out / "train").iterdir() if not p.name.startswith("."))
    for folder in done:
        assert len(load_problem(folder).tests) == 401, folder
    if caught is not None and caught.exists():  # a partial write is not a problem
        from supercoder.dataset.benchmarks import load_benchmark

        assert caught.name not in {p.name for p in load_benchmark(out / "train")}
    again = cli(*args, timeout=600)
    assert again.returncode == 0, again.stderr
    assert not list((out / "train").glob(".*")), "the rerun removes the dead partial write"
    assert len(list((out / "train").iterdir())) == 12


def _tree(root: int) -> set[int]:
    """``root`` and its descendants now (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, ppid in parents.items() if ppid in tree} - tree
        grew, tree = bool(more), tree | more
    return tree


def _ours(roots: list[Path], pids: set[int]) -> list[Path]:
    from supercoder.sandbox.tempclean import OURS_PID

    found = []
    for root in roots:
        for entry in root.iterdir():
            m = OURS_PID.fullmatch(entry.name)
            if m and int(m.group(1)) in pids:
                found.append(entry)
    return found


@pytest.fixture
def own_tmpdir():
    """A TMPDIR of the test's own that the sandbox user can enter (as /tmp)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="sc-test-tmpdir-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


SPIN = "```assembly\n\t.text\n\t.globl main\nmain:\n.Lspin:\n\tjmp .Lspin\n```"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_eval_leaves_no_temp_folder(tmp_path, own_tmpdir, sig):
    from tests.conftest import sandbox_or_skip
    from tests.fakes.servers import openai_server

    sandbox_or_skip()
    bench = make_sum_problem(tmp_path / "bench" / "sum").parent
    tmpdir = own_tmpdir
    roots = [tmpdir, Path("/dev/shm")] if Path("/dev/shm").is_dir() else [tmpdir]
    args = ["eval", "--benchmark", str(bench), "--db", str(tmp_path / "r.sqlite"), "--no-time"]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmpdir)}
    seen: set[int] = set()
    # the model's answer spins until its CPU limit (10 s per test, two tests before the
    # rest are skipped): the eval holds its sandbox folder for 20 CPU seconds at least,
    # however loaded the machine, and the signal comes once that folder is seen
    with openai_server(lambda m, r: SPIN) as url:
        proc = subprocess.Popen(
            [sys.executable, "-m", "supercoder.cli", *args, "-m", "openai:m", "--base-url", url],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 400
        try:
            while time.monotonic() < deadline and proc.poll() is None:
                seen |= _tree(proc.pid)
                if _ours(roots, seen):
                    break
                time.sleep(0.05)
            assert proc.poll() is None, "eval ended before a temp folder was seen"
            assert _ours(roots, seen), "no temp folder was seen in 400 s"
            start = time.monotonic()
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=120)
            took = time.monotonic() - start
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert took < 60 and "Traceback" not in err
    end = time.monotonic() + 15  # pool workers notice their parent is gone
    while _ours(roots, seen) and time.monotonic() < end:
        time.sleep(0.2)
    assert _ours(roots, seen) == []


def test_the_next_command_removes_dead_processes_folders_whatever_their_age(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = os.getpid()
    shm = Path("/dev/shm")
    made = []
    for root in [tmpdir, *([shm] if shm.is_dir() else [])]:
        for pid in (dead.pid, live):
            folder = root / f"sc-box-{pid}-abcd1234"
            folder.mkdir()
            (folder / "f").write_text("x")
            made.append(folder)
    try:
        done = cli("version", env={"TMPDIR": str(tmpdir)})
        assert done.returncode == 0, done.stderr
        for folder in made:
            assert folder.exists() == (f"-{live}-" in folder.name), folder
    finally:
        import shutil

        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


def _await_line(proc: subprocess.Popen, pattern: re.Pattern[str], stream=None) -> str | None:
    """Read ``proc``'s stdout (or ``stream``; unbuffered: PYTHONUNBUFFERED=1) until a line
    matches ``pattern``: what was read, or None when the process exits or 400 s pass first."""
    got: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in stream or proc.stdout:
            got.append(line)
            if pattern.search(line):
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 400
    while not found.wait(0.1) and proc.poll() is None and time.monotonic() < deadline:
        pass
    return "".join(got) if found.is_set() else None


def test_ctrl_c_stops_calibrate_within_seconds_without_promising_a_resume(own_tmpdir):
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()
    tmp_path = own_tmpdir
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)}
    env["PYTHONUNBUFFERED"] = "1"  # each check's line as it is printed
    proc = subprocess.Popen(
        [sys.executable, "-m", "supercoder.cli", "calibrate", "bit_sos_naive", "--checks", "60"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # the checks are running once one is reported (60 take a minute or more)
        first = _await_line(proc, re.compile(r"check \d+/60:"))
        assert first is not None, "no check was reported in 400 s"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert took < 30, took  # not the rest of the minute its checks take
    assert "resume" not in err and "interrupted" in err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("sc-")]


def test_ctrl_c_stops_a_parallel_import_within_seconds(tmp_path):
    src = tmp_path / "records.jsonl"
    # distinct programs: every one is built before any is written (about 0.3 s of CPU
    # each), so the import is busy building for a minute or more when Ctrl-C comes
    records = [record(f"p{i:03d}") for i in range(600)]
    for i, r in enumerate(records):
        r["extra_info"]["c_code"] += f"/* program {i} */\n"
    src.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONUNBUFFERED": "1"}
    args = [
        "dataset",
        "import",
        str(src),
        "--out",
        str(out),
        "--no-check-outputs",
        "--workers",
        "2",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "supercoder.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        said = _await_line(proc, re.compile(r"importing 600 records"), proc.stderr)
        assert said is not None, "the import never said it started"
        deadline = time.monotonic() + 400  # and its builders are at work
        while len(_tree(proc.pid)) < 3 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the import ended before it could be interrupted"
        assert len(_tree(proc.pid)) >= 3, "no builder started in 400 s"
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and took < 30, (took, err)  # not the minute of builds left
    assert "Traceback" not in err and "resume" not in err
    for folder in (out / "train").iterdir() if (out / "train").exists() else ():
        if not folder.name.startswith("."):  # what was written is whole
            assert len(load_problem(folder).tests) == 4


def test_a_dead_staging_folder_beside_an_output_is_removed_by_the_next_init(tmp_path):
    from supercoder.paths import staging_prefix

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f".prog.init-{dead.pid}-abcd1234"
    live = tmp_path / f".prog.init-{os.getpid()}-abcd1234"
    other = tmp_path / f".prog.init-{dead.pid}-abcd1234.keep"
    for folder in (stale, live, other):
        folder.mkdir()
    assert staging_prefix(tmp_path, ".prog.init") == f".prog.init-{os.getpid()}-"
    assert not stale.exists() and live.exists() and other.exists()


def test_a_ctrl_c_during_the_exit_cleanup_waits_for_it_and_leaves_no_traceback(tmp_path):
    # a Ctrl-C that lands while a finished command removes its temp folders (CI saw one
    # interrupt the cleanup's sleep: a traceback and exit -2) lets the cleanup end
    script = (
        "import os, signal, time\n"
        "import supercoder.sandbox.tempclean as tc\n"
        "from supercoder import cli\n"
        "real = tc.clean_own_temp\n"
        "def slow():\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(0.2)\n"
        "    open(os.environ['MARK'], 'w').write('cleaned')\n"
        "    return real()\n"
        "tc.clean_own_temp = slow\n"
        "cli.leave(0)\n"
    )
    mark = tmp_path / "mark"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MARK": str(mark)}
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert mark.read_text() == "cleaned"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_during_report_exits_130_without_a_traceback(tmp_path):
    """Ctrl-C reaches the whole process group mid-report: one line, exit 130."""
    from supercoder.toolchain.gcc import compile_to_asm
    from tests.integration.test_report import POP, _record

    base = compile_to_asm(POP.replace("BITS", "bits"), ("-O3",))
    cand = compile_to_asm(POP.replace("BITS", "__builtin_popcount"), ("-O3", "-mpopcnt"))
    records = [_record(f"p{i}", "ok", 2.0, base, cand) for i in range(400)]
    db = tmp_path / "runs.json"
    db.write_text(json.dumps({"runs": [{"name": "big", "model": "m", "records": records}]}))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = [sys.executable, "-m", "supercoder.cli", "report", "big", "--db", str(db)]
    proc = subprocess.Popen(
        [*args, "-o", str(tmp_path / "r.html")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    while proc.poll() is None and _cpu_seconds(proc.pid) < 1.0:  # past loading: reporting
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "error: interrupted", err


def _sft_interrupted(tmp_path: Path, model: Path, reached) -> subprocess.CompletedProcess:
    """``train sft`` on the tiny model, sent a Ctrl-C (the whole group) once ``reached(pid,
    out)`` holds; its exit status and stderr."""
    rows = [
        {
            "prompt": [{"role": "user", "content": f"faster {i}"}],
            "completion": [{"role": "assistant", "content": "ret"}],
        }
        for i in range(4)
    ]
    examples = tmp_path / "sft.jsonl"
    examples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "o"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    args = [sys.executable, "-m", "supercoder.cli", "train", "sft", "--model", str(model)]
    args += ["--examples", str(examples), "--steps", "100000", "--output", str(out)]
    with (tmp_path / "err.txt").open("w") as err:
        proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=err, env=env, start_new_session=True
        )
        deadline = time.monotonic() + 600
        while not reached(proc.pid, out):
            assert proc.poll() is None, (tmp_path / "err.txt").read_text()[-2000:]
            assert time.monotonic() < deadline, "train sft never reached the state"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole group
        code = proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, code, "", (tmp_path / "err.txt").read_text())


def _loading_torch(pid: int, _out: Path) -> bool:
    """torch's native libraries are being mapped: the import a Ctrl-C once ended with
    the process killed by SIGINT (status -2) instead of exit 130."""
    with contextlib.suppress(OSError):
        return "libtorch" in Path(f"/proc/{pid}/maps").read_text()
    return False


def _training(_pid: int, out: Path) -> bool:
    """A training step was logged."""
    log = out / "metrics.jsonl"
    return log.is_file() and log.stat().st_size > 0


@pytest.mark.train
@pytest.mark.parametrize("state", [_loading_torch, _training], ids=["importing", "training"])
def test_ctrl_c_during_train_sft_exits_130_without_a_traceback(tmp_path, state):
    pytest.importorskip("trl")
    pytest.importorskip("peft")
    from tests.fakes.tiny_model import build_tiny_model

    model = build_tiny_model(tmp_path / "model")
    proc = _sft_interrupted(tmp_path, model, state)
    err = proc.stderr
    assert proc.returncode == 130, err[-2000:]
    # one line says so (the trainer's progress bar may redraw after it)
    assert "Traceback" not in err and err.count("error: interrupted\n") == 1, err[-2000:]
