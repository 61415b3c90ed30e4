"""Bad input from outside (datasets, problem folders, stores): clean errors or correct
results, nothing written outside the folders named, no host file content in any output."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.importer import import_records
from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from tests.conftest import SUM_SOURCE, make_sum_problem, sandbox_or_skip

runner = CliRunner()


def record(
    name=None,
    split="train",
    code=SUM_SOURCE,
    inputs=("2\n3 4\n",),
    outputs=("7\n",),
    index=0,
    **extra,
):
    info = {
        "split": split,
        "index": index,
        "c_code": code,
        "inputs": inputs,
        "outputs": outputs,
        **extra,
    }
    info = {k: list(v) if isinstance(v, tuple) else v for k, v in info.items()}
    if name is not None:
        info["name"] = name
    return {"data_source": "x", "reward_model": {"ground_truth": ""}, "extra_info": info}


def all_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


UNSAFE = [
    "../../escaped",
    "/tmp/sc-abs-escape",
    ".",
    "..",
    "a/b/c",
    "nul\x00name",
    "x" * 101,
    "bad\ud800",
    "spa ce",
    "[/]markup",
]


@pytest.mark.parametrize("name", UNSAFE)
def test_import_never_writes_outside_out_for_unsafe_names(tmp_path, name):
    sandbox_or_skip()
    out = tmp_path / "deep" / "out"
    records = [record(name), record("good", index=1), record("ok2", split="../../up", index=2)]
    report = import_records(records, out)
    assert report.written == 1 and sum(report.skipped.values()) == 2
    assert all_files(tmp_path) == [
        "deep",
        "deep/out",
        *[
            f"deep/out/train{s}"
            for s in (
                "",
                "/good",
                "/good/baseline.s",
                "/good/problem.json",
                "/good/source.c",
                "/good/tests",
                "/good/tests/t00.in",
                "/good/tests/t00.out",
            )
        ],
    ]
    assert not os.path.exists("/tmp/sc-abs-escape")
    assert any(r.startswith("record #0: ") for r in report.reasons)


BAD_RECORDS = [
    ("not an object", ["a list"]),
    ("extra_info missing", {"data_source": "x"}),
    ("c_code not a string", record("c1", code=123)),
    ("inputs not a list", record("c2", inputs="5")),
    ("outputs of the wrong length", record("c3", outputs=())),
    ("name of the wrong type", record(["x"])),
    ("lone surrogate in an input", record("c4", inputs=("\ud800",))),
    ("tags not a list", record("c5", tags=5)),
]


def test_bad_records_are_skipped_with_reasons_and_never_abort_the_good_ones(tmp_path):
    sandbox_or_skip()
    wrong = record("wrong", index=9, outputs=("8\n",))  # the reference prints 7
    dup = record("good", index=3)
    broken = record("broken", code="int main( {", index=4)
    records = [r for _, r in BAD_RECORDS] + [record("good"), dup, wrong, broken]
    report = import_records(records, tmp_path / "out")
    assert report.written == 1 and report.records == len(records)
    assert report.skipped == {
        "not a valid record": len(BAD_RECORDS),
        "duplicate name": 1,
        "expected outputs differ from the reference": 1,
        "c_code does not compile": 1,
    }
    assert any("train/good is also record #8" in r for r in report.reasons)
    assert any("the record says b'8\\n', the reference prints b'7\\n'" in r for r in report.reasons)
    assert [p.name for p in load_benchmark(tmp_path / "out" / "train")] == ["good"]


def test_import_command_reports_bad_jsonl_lines_and_still_imports(tmp_path):
    sandbox_or_skip()
    src = tmp_path / "in.jsonl"
    lines = [
        json.dumps(record("good")).encode(),
        b"{not json",
        b"\xff\xfe bytes",
        json.dumps(record("../evil", index=2)).encode(),
    ]
    src.write_bytes(b"\n".join(lines) + b"\n")
    result = runner.invoke(
        app, ["dataset", "import", str(src), "--out", str(tmp_path / "o"), "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "4 records read; 1 problems written" in result.output
    assert "line 2: not a valid record" in result.output and "not UTF-8" in result.output
    assert not (tmp_path / "evil").exists()
    report = json.loads((tmp_path / "o" / "import_report.json").read_text())
    assert report["skipped"] == {"not a valid record": 2, "unsafe name or split": 1}


# --- problem folders ---------------------------------------------------------------


# --- reports and stores --------------------------------------------------------------


def test_optimize_default_path_is_a_safe_name_in_the_current_folder(tmp_path, monkeypatch):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "p", hidden=False)
    (problem / "problem.json").write_text('{"name": "../outside/x"}')
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = runner.invoke(app, ["optimize", str(problem), "--no-time", "--samples", "1"])
    assert result.exit_code == 0, result.output
    assert os.listdir(work) == ["_outside_x.opt.s"] and not (tmp_path / "outside").exists()


def test_stale_temp_folders_of_ours_are_cleaned_at_start(tmp_path, monkeypatch):
    import tempfile
    import time

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    old = time.time() - 2 * 86400
    names = {
        "sc-box-abcd1234": old,
        "sc-eval-zz_9yy8x": old,
        "sc-box-new12345": None,
        "other-abcd1234": old,
        "sc-box-toolong123": old,
    }
    for name, mtime in names.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").write_text("x")
        if mtime:
            os.utime(tmp_path / name, (mtime, mtime))
    (tmp_path / "sc-box-link1234").symlink_to(tmp_path / "other-abcd1234")
    os.utime(tmp_path / "sc-box-link1234", (old, old), follow_symlinks=False)
    result = runner.invoke(app, ["version"])
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(tmp_path)) == [
        "other-abcd1234",
        "sc-box-link1234",
        "sc-box-new12345",
        "sc-box-toolong123",
    ]
    assert (tmp_path / "other-abcd1234" / "f").exists()


def test_a_test_name_with_control_characters_cannot_forge_table_rows(tmp_path):
    sandbox_or_skip()
    problem = make_sum_problem(tmp_path / "p", hidden=False)
    (problem / "tests" / "t0.in").rename(problem / "tests" / "a\nb │ ok.in")
    (problem / "tests" / "t0.out").rename(problem / "tests" / "a\nb │ ok.out")
    from supercoder.toolchain.baseline import baseline_asm

    cand = tmp_path / "c.s"
    cand.write_text(baseline_asm(load_problem(problem)))
    result = runner.invoke(app, ["check", str(problem), str(cand), "--no-time"])
    assert result.exit_code == 0, result.output
    assert "a\\x0ab" in result.output
    assert not any(
        line.startswith("b │ ok") or " b │ ok" in line[:8] for line in result.output.splitlines()
    )


def test_a_missing_dependency_names_the_extra_and_debug_shows_the_traceback(tmp_path, monkeypatch):
    import subprocess
    import sys

    from supercoder.cli import error_exit

    monkeypatch.setattr(sys, "argv", ["supercoder", "train", "verl", "--model", "m"])
    missing = ImportError("apply_chat_template requires jinja2 to be installed.", name="jinja2")
    code, message = error_exit(missing)
    assert code == 2 and "pip install 'supercoder[verl]'" in message and "a bug" not in message
    make_sum_problem(tmp_path / "bench" / "p")
    out = tmp_path / "x.parquet"
    script = (  # pyarrow made unimportable, as when an install lacks it
        "import sys; sys.modules['pyarrow'] = None; from supercoder.cli import main; "
        f"sys.argv = ['supercoder', 'dataset', 'export', {str(tmp_path / 'bench')!r}, "
        f"'--out', {str(out)!r}]; main()"
    )
    for debug, traceback_shown in (("", False), ("1", True)):
        env = {**os.environ, "SUPERCODER_DEBUG": debug}
        proc = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
        )
        assert proc.returncode == 2, proc.stderr
        assert "pip install 'supercoder[all]'" in proc.stderr
        assert ("Traceback" in proc.stderr) is traceback_shown, proc.stderr


def test_help_paragraphs_wrap_evenly_when_piped():
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    proc = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "optimize", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [ln.strip() for ln in proc.stdout.splitlines()]
    start = next(k for k, ln in enumerate(lines) if ln.startswith("Every answer is verified"))
    end = next(k for k in range(start, len(lines)) if not lines[k])
    paragraph = lines[start:end]
    assert len(paragraph) >= 3 and all(len(ln) > 60 for ln in paragraph[:-1]), paragraph
    assert any(ln.startswith("Example: supercoder optimize") for ln in lines)  # kept apart
    head = subprocess.run(  # a reader that goes away early is no error
        f"{sys.executable} -m supercoder.cli optimize --help | head -1",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert "error" not in head.stderr.lower(), head.stderr


def _check_cli(*args: str) -> subprocess.CompletedProcess:
    """``supercoder check`` in a subprocess; a hang fails the test (TimeoutExpired)."""
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "check", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _one_line_refusal(proc: subprocess.CompletedProcess, *words: str) -> None:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert all(w in lines[0] for w in words), lines[0]


@pytest.mark.parametrize("where", ["tests/t0.in", "tests/t0.out", "hidden/t0.in"])
def test_a_fifo_test_file_is_refused_at_once_never_read(tmp_path, where):
    """Before: a FIFO as a test input hung ``check`` forever, before any sandbox."""
    folder = make_sum_problem(tmp_path / "sum")
    (folder / where).unlink()
    os.mkfifo(folder / where)
    with pytest.raises(UserError, match="is a FIFO"):
        load_problem(folder)
    cand = tmp_path / "c.s"
    cand.write_text("garbage\n")
    start = time.monotonic()
    proc = _check_cli(str(folder), str(cand))
    _one_line_refusal(proc, where.split("/")[-1], "FIFO")
    assert time.monotonic() - start < 30


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: os.mkfifo(p), "FIFO"),
        (lambda p: p.mkdir(), "folder"),
        (lambda p: p.symlink_to("/dev/zero"), "character device"),
    ],
)
def test_a_candidate_that_is_not_a_regular_file_is_named_for_what_it_is(tmp_path, make, kind):
    """Before: a folder or FIFO candidate was reported as ``no such file``; a FIFO could
    hang, a device like /dev/zero would be read without end."""
    folder = make_sum_problem(tmp_path / "sum")
    cand = tmp_path / "mine.s"
    make(cand)
    proc = _check_cli(str(folder), str(cand))
    _one_line_refusal(proc, "mine.s", kind)


def test_problem_init_refuses_a_fifo_among_the_inputs(tmp_path):
    """Before: skipped in silence (a FIFO is not ``is_file()``); now named, at once."""
    source = tmp_path / "sum.c"
    source.write_text(SUM_SOURCE)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "a.in").write_text("1\n5\n")
    os.mkfifo(inputs / "b.in")
    proc = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "problem", "init", str(source)]
        + ["--inputs", str(inputs), "-o", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    _one_line_refusal(proc, "b.in", "FIFO")
    assert not (tmp_path / "p").exists()


runner = CliRunner()


def test_a_utf8_run_name_under_an_ascii_locale_runs_and_nothing_measured_reads_null(tmp_path):
    """``--run rün`` under ``LC_ALL=C`` (Python reads it as undecodable bytes) names the
    run ``rün``, not "control characters"; ``--no-time --json`` reports ``fast_1.1`` as
    null (nothing was measured), ours and the paper protocol's; the cost line names a
    number of seconds."""
    sandbox_or_skip()
    make_sum_problem(tmp_path / "bench" / "s1", hidden=False)
    db, out = tmp_path / "runs.sqlite", tmp_path / "summary.json"
    env = {**os.environ, "PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C"}
    env.pop("PYTHONIOENCODING", None)
    args = ["eval", "--benchmark", str(tmp_path / "bench"), "--no-time", "--db", str(db)]
    done = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", *args, "--run", "rün", "--json", str(out)],
        capture_output=True,
        env=env,
        timeout=300,
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, err
    assert "control characters" not in err
    assert "about 2-5 seconds a problem" in err
    con = sqlite3.connect(db)
    assert [r[0] for r in con.execute("SELECT name FROM runs")] == ["rün"]
    con.close()
    summary = json.loads(out.read_text())
    assert summary["accuracy"] == 100.0
    assert summary["fast_1.1"] is None and summary["paper"]["fast_1.1"] is None


_DOUBLE = 'int main(void){int n; if(scanf("%d",&n)!=1) return 1; printf("%d\\n", 2*n); return 3;}\n'


_INLINE = "inline int sq(int x) { return x * x; }\n"


_USES = 'int main(void){int n; if(scanf("%d",&n)!=1) return 1; printf("%d\\n", sq(n)); return 0;}\n'


@pytest.mark.parametrize(
    "source, fix, hint",
    [
        ("#include <stdio.h>\n" + _DOUBLE, ["--exit-code", "3"], "pass --exit-code 3"),
        (
            "#include <stdio.h>\nint a[N];\n" + _DOUBLE.replace("return 3", "return 0"),
            ["--cflags", "-DN=1"],
            "pass -D N=VALUE",
        ),
    ],
    ids=["exit-status", "macro"],
)
def test_a_refusal_names_the_flag_that_fixes_it_and_that_flag_does(source, fix, hint, tmp_path):
    """A program that exits 3 on success names --exit-code (not a crash); an undeclared
    macro names -D. Given, each flag makes the problem."""
    sandbox_or_skip()
    (tmp_path / "p.c").write_text(source)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.in").write_text("5\n")
    (tmp_path / "in" / "b.in").write_text("7\n")
    args = ["problem", "init", str(tmp_path / "p.c"), "--inputs", str(tmp_path / "in")]
    refused = runner.invoke(app, [*args, "-o", str(tmp_path / "p1")])
    assert refused.exit_code == 2, refused.output
    assert hint in " ".join(refused.output.split()), refused.output
    assert "-lgmp" not in refused.output
    made = runner.invoke(app, [*args, "-o", str(tmp_path / "p2"), *fix])
    assert made.exit_code == 0, made.output


def test_a_c99_inline_function_the_o3_build_accepts_is_built_at_o0_too_and_said(tmp_path):
    """``inline`` without ``static`` links at -O0 (nothing inlined) only with gnu89
    semantics: the tool's own builds never refuse what ``gcc -O3`` builds, they adapt
    with -fgnu89-inline and say so; a real missing library is still named."""
    sandbox_or_skip()
    from supercoder.toolchain.reference import build_reference

    source = _INLINE + "#include <stdio.h>\n" + _USES
    notes: list[str] = []
    built = build_reference(source, tmp_path, ("O3", "O0"), label="p.c", notes=notes)
    assert built["O0"].is_file() and built["O3"].is_file()
    text = " ".join(" ".join(notes).split())
    assert "p.c at -O0: built with -fgnu89-inline" in text and "sq is defined 'inline'" in text
    assert "-O3" not in text  # the -O3 build needed nothing


def test_a_malformed_record_field_is_reported_and_the_import_says_how_to_evaluate(tmp_path):
    """A record whose ``test_names`` is a number is skipped with the field named (never
    imported as if it were fine); the import says which command evaluates what it
    wrote, and ``eval --benchmark`` on the import's own folder points at its splits."""
    sandbox_or_skip()
    for name in ("s1", "s2"):
        make_sum_problem(tmp_path / "bench" / name, hidden=False)
    exported = tmp_path / "two.jsonl"
    bench = str(tmp_path / "bench")
    done = runner.invoke(app, ["dataset", "export", "--benchmark", bench, "--out", str(exported)])
    assert done.exit_code == 0, done.output
    first, second = (json.loads(x) for x in exported.read_text().splitlines()[:2])
    second["extra_info"]["test_names"] = 5
    records = tmp_path / "two.jsonl"
    records.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    out = tmp_path / "imported"
    done = runner.invoke(app, ["dataset", "import", str(records), "--out", str(out)])
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "1 problems written" in text and "1 skipped" in text
    assert "record #1: not a valid record: field extra_info.test_names must be a list" in text
    (split,) = [d.name for d in out.iterdir() if d.is_dir()]
    assert f"evaluate them: supercoder eval --benchmark {out / split} --no-time" in text
    refused = runner.invoke(app, ["eval", "--benchmark", str(out), "--no-time"])
    assert refused.exit_code == 2
    said = " ".join(refused.output.split())
    assert f"its folders {split}/ hold problems" in said
    assert f"use --benchmark {out / split}" in said
