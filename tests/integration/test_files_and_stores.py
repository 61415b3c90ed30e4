"""Faults and bad input, third round (issue 31): files written whole or not at all, stores
only read when read, machine trouble exit 3, bad input exit 2, no leftovers after a
signal, and the newcomer's commands doing what their help says."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from tests.conftest import SUM_SOURCE, make_sum_problem

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300, cwd=None):
    """The real ``supercoder`` command in a subprocess (this tree's source first)."""
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=timeout,
        cwd=cwd,
    )


def one_line_error(proc: subprocess.CompletedProcess, code: int) -> str:
    """The stderr of a command that failed with ``code``: one ``error:`` line, no traceback."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "a bug" not in proc.stderr, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def record(name: str, hidden: int = 3, size: int = 20) -> dict:
    inputs = ["2\n3 4\n"]
    hidden_in = [
        f"{size}\n" + " ".join(str(i + k) for k in range(size)) + "\n" for i in range(hidden)
    ]
    hidden_out = [f"{sum(i + k for k in range(size))}\n" for i in range(hidden)]
    info = {
        "name": name,
        "split": "train",
        "c_code": SUM_SOURCE,
        "inputs": inputs,
        "outputs": ["7\n"],
        "hidden_inputs": hidden_in,
        "hidden_outputs": hidden_out,
    }
    return {"data_source": "x", "reward_model": {"ground_truth": ""}, "extra_info": info}


@contextlib.contextmanager
def small_fs(size: str = "256k"):
    """A real, tiny tmpfs (root only): a full disk that is bounded and goes away."""
    import tempfile

    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    where = Path(tempfile.mkdtemp(prefix="sc-test-fs-"))
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)])
    if done.returncode:
        where.rmdir()
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)])
        where.rmdir()


def fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to the last byte."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0"):
                pass
    finally:
        os.close(fd)


# --- 1. a killed import leaves nothing that loads as complete --------------------------


def test_an_incomplete_problem_folder_is_refused_with_one_line(tmp_path):
    folder = make_sum_problem(tmp_path / "p")
    (folder / "INCOMPLETE").write_text("")
    with pytest.raises(UserError, match="incomplete problem folder"):
        load_problem(folder)
    (tmp_path / "a.s").write_text("main:\n ret\n")
    line = one_line_error(cli("check", str(folder), str(tmp_path / "a.s"), "--no-time"), 2)
    assert "incomplete" in line


# --- 2. a full disk keeps the old file --------------------------------------------------


def test_a_full_disk_keeps_the_old_output_whole_and_exits_3(tmp_path):
    from supercoder.paths import atomic_write_text

    with small_fs() as fs:
        old = "the old answer\n"
        for name in ("best.s", "report.html", "summary.json"):
            (fs / name).write_text(old)
        fill(fs)
        for name in ("best.s", "report.html", "summary.json"):
            with pytest.raises(OSError) as e:
                atomic_write_text(fs / name, "x" * 100_000)
            assert e.value.errno == 28
            assert (fs / name).read_text() == old
        assert sorted(p.name for p in fs.iterdir()) == [
            "best.s",
            "filler",
            "report.html",
            "summary.json",
        ]


def test_report_on_a_full_disk_exits_3_and_the_old_page_stays(tmp_path):
    db = tmp_path / "r.sqlite"
    _stored_run(db)
    with small_fs() as fs:
        page = fs / "report.html"
        page.write_text("<p>old</p>")
        fill(fs)
        line = one_line_error(cli("report", "tiny", "--db", str(db), "-o", str(page)), 3)
        assert "No space left" in line and "--db" not in line
        assert page.read_text() == "<p>old</p>"


def _stored_run(db: Path) -> None:
    """A store holding one small finished run (``tiny``), written by the real Store."""
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.metrics import summarize
    from supercoder.runs.store import Store
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.types import Candidate, Status, Verdict

    store = Store(db)
    config = RunConfig(model="scripted", benchmark="val", time=False, name="tiny")
    store.open_run(config, {"problems_in_benchmark": 1})
    v = Verdict("p", Status.OK)
    attempt = Attempt(0, 0, Candidate("main:\n ret\n"), v)
    store.record("tiny", "p", attempt, "")
    outcome = Outcome("p", (attempt,))
    store.finish_problem("tiny", outcome)
    store.finish_run("tiny", summarize([outcome], {}, total=1))
    store.close()


# --- 3. read-only commands never alter a file ------------------------------------------


def _foreign(path: Path, journal: str = "delete") -> bytes:
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA journal_mode={journal}")
    db.executescript(
        "CREATE TABLE customers (id INTEGER, name TEXT); INSERT INTO customers VALUES (1, 'x');"
    )
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    "command",
    [
        ["leaderboard"],
        ["report", "x", "-o", "{tmp}/r.html"],
        ["analyze", "--run", "x"],
        ["eval", "--benchmark", "val", "--no-time", "--model", "compiler"],
    ],
)
@pytest.mark.parametrize("journal", ["delete", "wal"])
def test_a_foreign_sqlite_file_is_refused_and_left_byte_identical(tmp_path, command, journal):
    path = tmp_path / "foreign.sqlite"
    before = _foreign(path, journal)
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    line = one_line_error(cli(*args, "--db", str(path)), 2)
    assert "not a supercoder run store" in line
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.sqlite"]


def test_a_store_on_a_read_only_file_system_is_readable(tmp_path):
    with small_fs("2m") as fs:
        db = fs / "r.sqlite"
        _stored_run(db)
        before = db.read_bytes()
        assert subprocess.run(["mount", "-o", "remount,ro", str(fs)]).returncode == 0
        board = cli("leaderboard", "--db", str(db))
        assert board.returncode == 0 and "tiny" in board.stdout, board.stderr
        page = cli("report", "tiny", "--db", str(db), "-o", str(tmp_path / "r.html"))
        assert page.returncode == 0, page.stderr
        kinds = cli("analyze", "--run", "tiny", "--db", str(db))
        assert kinds.returncode == 0, kinds.stderr
        assert db.read_bytes() == before


def test_reading_a_store_does_not_migrate_or_switch_it_to_wal(tmp_path):
    db = tmp_path / "r.sqlite"
    _stored_run(db)
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("PRAGMA user_version=3")  # an older store
    con.close()
    before, listing = db.read_bytes(), sorted(p.name for p in tmp_path.iterdir())
    for args in (["leaderboard"], ["analyze", "--run", "tiny"]):
        assert cli(*args, "--db", str(db)).returncode == 0
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing


# --- 6. deeply nested JSON is bad input, never a bug -----------------------------------


def test_a_deeply_nested_record_is_skipped_and_the_good_one_imported(tmp_path):
    src = tmp_path / "r.jsonl"
    deep = "[" * 50_000 + "]" * 50_000
    src.write_text(deep + "\n" + json.dumps(record("good")) + "\n")
    done = cli("dataset", "import", str(src), "--out", str(tmp_path / "o"), "--no-check-outputs")
    assert done.returncode == 0, done.stderr
    assert "nested too deeply" in done.stdout
    assert len(load_problem(tmp_path / "o" / "train" / "good").tests) == 4


def test_a_deeply_nested_problem_json_is_one_line_exit_2(tmp_path):
    folder = make_sum_problem(tmp_path / "p")
    (folder / "problem.json").write_text('{"tags": ' + "[" * 50_000 + "]" * 50_000 + "}")
    (tmp_path / "a.s").write_text("main:\n ret\n")
    line = one_line_error(cli("check", str(folder), str(tmp_path / "a.s"), "--no-time"), 2)
    assert "nested too deeply" in line


# --- 4. NaN options are refused; a run resumes ------------------------------------------


# --- 7. exit codes and advice -----------------------------------------------------------


def test_a_run_name_with_a_newline_is_refused_and_never_forges_a_row(tmp_path):
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.store import Store

    store = Store(tmp_path / "r.sqlite")
    for bad in ("a\nfake-row  compiler  100%", "esc\x1b[31m", "  "):
        with pytest.raises(UserError, match="pick another --run"):
            store.open_run(RunConfig("compiler", "val", name=bad), {})
    # a name stored by an older version is shown escaped, on one line
    store._write(
        "INSERT INTO runs (name, model, benchmark, options, started, context) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        ("old\nforged", "m\x1b[2J", "val", "{}", 0.0, "{}"),
    )
    store.close()
    board = cli("leaderboard", "--db", str(tmp_path / "r.sqlite"))
    assert board.returncode == 0, board.stderr
    assert "old\\x0aforged" in board.stdout and "\x1b" not in board.stdout
    assert not any(line.strip().startswith("forged") for line in board.stdout.splitlines())


def test_a_locked_store_is_machine_trouble_exit_3(tmp_path):
    db = tmp_path / "r.sqlite"
    _stored_run(db)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("BEGIN EXCLUSIVE")
    try:
        start = time.monotonic()
        line = one_line_error(cli("leaderboard", "--db", str(db)), 3)
        assert "locked by another process" in line and "pass another --db" not in line
        assert time.monotonic() - start < 25
    finally:
        con.execute("ROLLBACK")
        con.close()


def test_a_store_on_a_full_disk_is_machine_trouble_exit_3(tmp_path):
    bench = make_sum_problem(tmp_path / "bench" / "sum").parent
    with small_fs() as fs:
        fill(fs)
        args = ["eval", "--benchmark", str(bench), "--no-time", "--db", str(fs / "r.sqlite")]
        line = one_line_error(cli(*args), 3)
        assert "No space left" in line and "pass another --db" not in line


# --- 5. nothing left outside the named folders after a signal --------------------------


# --- 8. the newcomer's hour --------------------------------------------------------------


def test_problem_baseline_writes_the_o3_assembly_of_a_bundled_problem(tmp_path, monkeypatch):
    from supercoder.problems.loading import BUNDLED_ROOT
    from supercoder.toolchain.baseline import baseline_asm

    monkeypatch.chdir(tmp_path)
    want = baseline_asm(load_problem(BUNDLED_ROOT / "dp_lcs"))
    done = runner.invoke(app, ["problem", "baseline", "dp_lcs", "-o", "mine.s"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "mine.s").read_text() == want
    assert "using the bundled problem dp_lcs" in done.output
    printed = runner.invoke(app, ["problem", "baseline", "dp_lcs"])
    assert printed.exit_code == 0 and want.strip() in printed.stdout
    missing = runner.invoke(app, ["problem", "baseline", "no_such_problem"])
    assert missing.exit_code == 2 and "no bundled problem of that name" in missing.output


def test_check_and_analyze_take_a_bundled_name_and_a_local_folder_wins(tmp_path, monkeypatch):
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["problem", "baseline", "dp_lcs", "-o", "mine.s"]).exit_code == 0
    bundled = runner.invoke(app, ["check", "dp_lcs", "mine.s", "--no-time"])
    assert bundled.exit_code == 0, bundled.output
    assert "using the bundled problem dp_lcs" in bundled.output and ": ok" in bundled.output
    kinds = runner.invoke(app, ["analyze", "dp_lcs", "mine.s"])
    assert kinds.exit_code == 0 and "no transformation found" in kinds.output, kinds.output
    make_sum_problem(tmp_path / "dp_lcs")  # a folder of the same name here wins
    local = runner.invoke(app, ["check", "dp_lcs", "mine.s", "--no-time"])
    assert "using the folder ./dp_lcs" in local.output
    assert ": wrong_output" in local.output or ": runtime_error" in local.output, local.output


def test_bench_list_does_not_time_by_default(tmp_path):
    start = time.monotonic()
    quick = runner.invoke(app, ["bench", "list", "--benchmark", "val"])
    assert quick.exit_code == 0, quick.output
    assert time.monotonic() - start < 20 and "baseline ms (--time)" in quick.output
    assert runner.invoke(app, ["bench", "list", "val"]).output == quick.output  # the alias


def test_one_convention_for_naming_a_benchmark(tmp_path, monkeypatch):
    out = tmp_path / "v.jsonl"
    for args in (["--benchmark", "val"], ["val"], ["-b", "val"]):
        done = runner.invoke(app, ["dataset", "export", *args, "--out", str(out)])
        assert done.exit_code == 0, done.output
    both = runner.invoke(
        app, ["dataset", "export", "train", "--benchmark", "val", "--out", str(out)]
    )
    assert both.exit_code == 2 and "give one" in both.output
    no_out = runner.invoke(app, ["dataset", "export", "--benchmark", "val"])
    assert no_out.exit_code == 2 and "--out" in no_out.output and "Missing" not in no_out.output
    # a local ./val wins over the bundled split, and says so
    monkeypatch.chdir(tmp_path)
    make_sum_problem(tmp_path / "val" / "mine")
    local = cli("bench", "list", "--benchmark", "val", cwd=tmp_path)
    assert local.returncode == 0 and "using the folder ./val" in local.stderr
    assert "mine" in local.stdout and "dp_lcs" not in local.stdout


def test_the_run_store_is_the_same_from_any_folder(tmp_path):
    data = tmp_path / "data"
    env = {"XDG_DATA_HOME": str(data), "SUPERCODER_DB": ""}
    bench = make_sum_problem(tmp_path / "a" / "bench" / "sum").parent
    ran = cli(
        "eval", "--benchmark", str(bench), "--no-time", "--run", "r1", env=env, cwd=tmp_path / "a"
    )
    assert ran.returncode == 0, ran.stderr
    (tmp_path / "b").mkdir()
    board = cli("leaderboard", env=env, cwd=tmp_path / "b")
    assert board.returncode == 0 and "r1" in board.stdout, board.stderr
    assert (data / "supercoder" / "runs.sqlite").is_file()
    assert not (tmp_path / "a" / "runs").exists()


def test_analyze_and_report_count_the_same_answers(tmp_path):
    from supercoder.report.page import analyze_run, build_page, load_run

    db = tmp_path / "r.sqlite"
    _stored_two_attempts(db)
    page = build_page(db, "two")
    shown = runner.invoke(app, ["analyze", "--run", "two", "--db", str(db)])
    assert shown.exit_code == 0, shown.output
    assert f"{len(page.analyzed)} chosen answers" in shown.output
    every = runner.invoke(app, ["analyze", "--run", "two", "--db", str(db), "--all-candidates"])
    assert f"{len(analyze_run(load_run(db, 'two')))} verified candidates" in every.output


def _stored_two_attempts(db: Path) -> None:
    from supercoder.problems.loading import BUNDLED_ROOT
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.metrics import summarize
    from supercoder.runs.store import RunJournal, Store
    from supercoder.runs.strategies import Attempt, Outcome
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.types import Candidate, Status, Verdict

    asm = baseline_asm(load_problem(BUNDLED_ROOT / "dp_lcs"))
    store = Store(db)
    store.open_run(RunConfig(model="m", benchmark="val", time=False, name="two"), {})
    journal = RunJournal(store, "two")
    journal.baseline("dp_lcs", asm)
    attempts = tuple(
        Attempt(i, 0, Candidate(asm + f"# {i}\n"), Verdict("dp_lcs", Status.OK)) for i in range(2)
    )
    for a in attempts:
        journal.record("dp_lcs", a)
    outcome = Outcome("dp_lcs", attempts, chosen=(0, 0))
    store.finish_problem("two", outcome)
    store.finish_run("two", summarize([outcome], {}, total=1))
    store.close()


def test_a_compile_error_names_the_users_file_and_wrong_output_shows_text(tmp_path):
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()
    folder = make_sum_problem(tmp_path / "p")
    bad = tmp_path / "my answer.s"
    bad.write_text("main:\n  movq %rax, %zz\n")
    wrong = tmp_path / "wrong.s"
    wrong.write_text(
        '\t.globl main\nmain:\n  leaq msg(%rip), %rdi\n  subq $8, %rsp\n  call puts@PLT\n  xorl %eax, %eax\n  addq $8, %rsp\n  ret\n  .section .rodata\nmsg: .string "2"\n'
    )
    done = runner.invoke(app, ["check", str(folder), str(bad), str(wrong), "--no-time", "--json"])
    assert done.exit_code == 0, done.output
    first, second = json.loads(done.stdout)
    assert first["status"] == "compile_error" and f"{bad}:2:" in first["message"]
    assert "program.s" not in first["message"]
    details = " ".join(t["detail"] for t in second["tests"])
    assert "expected '5', got '2'" in details and "b'" not in details


def test_optimize_on_a_full_disk_keeps_the_old_answer_and_exits_3(tmp_path):
    from tests.conftest import sandbox_or_skip
    from tests.fakes.servers import openai_server
    from tests.integration.test_infra_faults import sum_answer

    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "sum")
    answer = sum_answer()
    with small_fs() as fs:
        best = fs / "best.s"
        best.write_text("# the old answer\n")
        fill(fs)
        with openai_server(lambda m, r: answer) as url:
            args = ["optimize", str(problem), "-m", "openai:m", "--base-url", url]
            done = cli(*args, "--no-time", "-o", str(best))
        line = one_line_error(done, 3)
        assert "No space left" in line
        assert best.read_text() == "# the old answer\n"
        assert sorted(p.name for p in fs.iterdir()) == ["best.s", "filler"]


def test_control_characters_in_a_candidate_name_reach_the_terminal_escaped(tmp_path):
    from tests.conftest import sandbox_or_skip

    sandbox_or_skip()
    folder = make_sum_problem(tmp_path / "p")
    hostile = tmp_path / "a\x1b[2J\nforged: ok.s"
    hostile.write_text("main:\n  movq %rax, %zz\n")
    plain = tmp_path / "b.s"
    plain.write_text("main:\n ret\n")
    done = cli("check", str(folder), str(hostile), str(plain), "--no-time")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert not any(line.startswith("forged") for line in done.stdout.splitlines())
    assert "\\x1b[2J\\x0aforged" in done.stdout
