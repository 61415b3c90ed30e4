"""Bad input from outside (datasets, problem folders, stores): clean errors or correct
results, nothing written outside the folders named, no host file content in any output."""

from __future__ import annotations

import json
import os
import shutil
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
SECRET = "TOP-SECRET-HOST-FILE-CONTENT"


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


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "host-secret.txt"
    path.write_text(SECRET + "\n")
    return path


def _link(problem, rel, target):
    path = problem / rel
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.symlink_to(target)


@pytest.mark.parametrize(
    "rel",
    ["tests/t0.out", "tests/t0.in", "source.c", "hidden", "problem.json", "baseline.s", "tests"],
)
def test_symlinks_in_a_problem_folder_are_refused(tmp_path, secret, rel):
    problem = make_sum_problem(tmp_path / "p")
    target = secret
    if rel in ("hidden", "tests"):
        target = tmp_path / "elsewhere"
        target.mkdir()
        (target / "t0.in").write_text("1\n5\n")
        shutil.copy(secret, target / "t0.out")
    _link(problem, rel, target)
    with pytest.raises(UserError, match="symbolic link or leads outside") as e:
        load_problem(problem)
    assert SECRET not in str(e.value)
    result = runner.invoke(app, ["check", str(problem), str(secret), "--json", "--no-time"])
    assert result.exit_code == 2 and SECRET not in result.output
    assert "symbolic link" in result.output and "Traceback" not in result.output


BAD_META = [
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"name": 5}', "field 'name' must be a non-empty string"),
    ('{"name": "a\\u001b[31mred"}', "control characters"),
    ('{"split": ["x"]}', "field 'split' must be a non-empty string"),
    ('{"tags": "x"}', "field 'tags' must be a list"),
    ("{not json", "invalid JSON"),
    ('{"compare": 5}', "field 'compare' must be a string"),
    ('{"compare": ["exact"]}', "field 'compare' must be a string"),
    ('{"compare": "fuzzy"}', "field 'compare' is not a comparison mode"),
    ('{"cflags": "-DX=\\u0000"}', "field 'cflags' holds a flag with a NUL"),
    ('{"cflags": ["-O2", 3]}', "field 'cflags' must be a string of flags"),
    ('{"ldflags": "\\"-lm"}', "field 'ldflags' is not a valid string of flags"),
    ('{"fuzz": {"shuffle_lines_after": "abc"}}', "field 'fuzz' key 'shuffle_lines_after'"),
    ('{"fuzz": {"frozen_lines": -1}}', "field 'fuzz' key 'frozen_lines' must be an integer"),
    ('{"fuzz": {"numbers": "no"}}', "field 'fuzz' key 'numbers' must be true or false"),
    ('{"fuzz": [1]}', "field 'fuzz' must be an object"),
    ('{"fuzz": {"shuffle": 1}}', "field 'fuzz' has unknown keys shuffle"),
    ('{"headers": ["../../etc/passwd"]}', "field 'headers' must hold paths inside"),
    ('{"headers": ["missing.h"]}', "field 'headers' names 'missing.h'"),
    ('{"exit_code": 256}', "field 'exit_code' must be an integer from 0 to 255"),
    ('{"exit_code": true}', "field 'exit_code' must be an integer"),
    ('{"origin": 1}', "field 'origin' must be a string"),
]


@pytest.mark.parametrize(("text", "message"), BAD_META)
def test_a_bad_problem_json_is_a_one_line_error(tmp_path, text, message):
    problem = make_sum_problem(tmp_path / "p")
    (problem / "problem.json").write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[")):
        load_problem(problem)
    result = runner.invoke(app, ["check", str(problem), str(problem / "source.c"), "--no-time"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and "problem.json" in result.output


@pytest.mark.parametrize("rel", ["source.c", "problem.json"])
def test_non_utf8_problem_files_are_a_clear_error(tmp_path, rel):
    problem = make_sum_problem(tmp_path / "p")
    (problem / rel).write_bytes(b"\xff\xfe\x00garbage")
    result = runner.invoke(app, ["check", str(problem), str(problem / "source.c")])
    assert result.exit_code == 2, result.output
    assert "not UTF-8 text" in result.output and "Traceback" not in result.output


def test_duplicate_problem_names_are_an_error_naming_both_folders(tmp_path):
    for folder in ("one", "two"):
        make_sum_problem(tmp_path / "bench" / folder)
        (tmp_path / "bench" / folder / "problem.json").write_text('{"name": "same"}')
    with pytest.raises(UserError, match="two problems are named 'same'") as e:
        load_benchmark(tmp_path / "bench")
    assert "one" in str(e.value) and "two" in str(e.value)


def test_duplicate_names_in_a_record_file_name_both_records(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(json.dumps(record("same", index=i)) for i in range(2)) + "\n")
    with pytest.raises(UserError, match=r"record #0 and .*record #1"):
        load_benchmark(path)


def test_an_input_without_output_warns(tmp_path, caplog):
    problem = make_sum_problem(tmp_path / "p")
    (problem / "tests" / "orphan.in").write_text("1\n1\n")
    with caplog.at_level("WARNING", logger="supercoder"):
        loaded = load_problem(problem)
    assert "orphan" not in {t.name for t in loaded.tests}
    assert "orphan.in has no matching orphan.out" in caplog.text


# --- reports and stores --------------------------------------------------------------

INJECT = '"><script>window.pwned=1</script><b x="'


def hostile_run(tmp_path):
    rec = {
        "problem": INJECT,
        "status": INJECT,
        "correct": True,
        "speedup": INJECT,
        "speedup_ci": [INJECT, 2],
        "message": INJECT,
        "asm": INJECT,
        "model": INJECT,
        "baseline_asm": INJECT,
        "best": INJECT,
    }
    ok = {
        "problem": "fine",
        "status": "ok",
        "correct": True,
        "speedup": 1.5,
        "speedup_ci": [1.2, 1.8],
        "asm": "",
        "baseline_asm": "",
    }
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"runs": [{"name": INJECT, "model": INJECT, "records": [rec, ok]}]}))
    return path


def test_a_hostile_run_file_cannot_inject_into_the_report(tmp_path):
    path = hostile_run(tmp_path)
    result = runner.invoke(
        app, ["report", INJECT, "--db", str(path), "-o", str(tmp_path / "r.html")]
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "r.html").read_text()
    assert "<script>window.pwned" not in page and page.count("<script>") == 1
    assert 'data-speedup="0"' in page and 'data-speedup="1.5"' in page
    csp = page.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0]
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    assert "script-src 'sha256-" in csp


@pytest.mark.parametrize(
    "content",
    [
        '{"runs": 5}',
        '{"runs": [1]}',
        '{"runs": [{"name": "r", "records": {"a": 1}}]}',
        "[1, 2]",
        '[{"problem": "p", "speedup_ci": "x", "best": 3}]',
        "\xff\xfe",
    ],
)
def test_wrong_types_in_a_run_file_are_one_line_errors_or_ignored(tmp_path, content):
    path = tmp_path / "run.json"
    path.write_bytes(
        content.encode("utf-8", "surrogateescape") if content != "\xff\xfe" else b"\xff\xfe"
    )
    result = runner.invoke(
        app, ["report", "run", "--db", str(path), "-o", str(tmp_path / "r.html")]
    )
    assert result.exit_code in (0, 2), result.output
    assert "Traceback" not in result.output and "unexpected" not in result.output


@pytest.mark.parametrize(
    "command",
    [
        ["leaderboard"],
        ["report", "x"],
        ["analyze", "--run", "x"],
        ["eval", "--benchmark", "val", "--no-time"],
    ],
)
@pytest.mark.parametrize("content", [os.urandom(4096), b"SQLite format 3\x00" + os.urandom(4000)])
def test_a_corrupt_store_is_a_one_line_error(tmp_path, command, content):
    db = tmp_path / "runs.sqlite"
    db.write_bytes(content)
    result = runner.invoke(app, [*command, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("where", ["a-file/x", "/proc/sc-no/x"])
def test_unwritable_locations_fail_before_any_work(tmp_path, where):
    (tmp_path / "a-file").write_text("")
    target = where if where.startswith("/") else str(tmp_path / where)
    for args in (["eval", "--db", target + ".sqlite"], ["eval", "--json", target + ".json"]):
        result = runner.invoke(app, [*args, "--benchmark", "val", "--no-time"])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and "runs" not in os.listdir(tmp_path)


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


MARKUP = ["[/]", "[bold red]x[/]", "[link=file:///etc/passwd]y[/link]", "\x1b[2J\x1b]0;pwn\x07"]


@pytest.mark.parametrize("text", MARKUP)
def test_external_text_is_printed_verbatim_and_escaped(tmp_path, text):
    from supercoder.cli import error_exit, report_error
    from supercoder.errors import printable

    message = f"server said {text}"
    assert error_exit(UserError(message))[0] == 2
    assert "\x1b" not in printable(message) and "\x07" not in printable(message)
    problem = make_sum_problem(tmp_path / "p")
    (problem / "problem.json").write_text(json.dumps({"tags": text}))
    result = runner.invoke(app, ["check", str(problem), str(problem / "source.c")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert report_error(UserError(message)) == 2


def test_check_rejects_nonsense_limits(tmp_path):
    problem = make_sum_problem(tmp_path / "p")
    for option in (["--cpu-limit", "-1"], ["--cpu-limit", "0"], ["--memory-mb", "0"]):
        result = runner.invoke(app, ["check", str(problem), str(problem / "source.c"), *option])
        assert result.exit_code == 2, result.output


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


def test_test_file_names_that_are_not_text_are_refused(tmp_path):
    problem = make_sum_problem(tmp_path / "p")
    bad = os.fsencode(str(problem / "tests")) + b"/x\xff\x1b.out"
    with open(bad, "wb") as f:
        f.write(b"1\n")
    with open(bad[:-4] + b".in", "wb") as f:
        f.write(b"1\n1\n")
    result = runner.invoke(app, ["check", str(problem), str(problem / "source.c")])
    assert result.exit_code == 2 and "test file names must be text" in result.output
    assert "\x1b" not in result.output


def test_outputs_never_land_inside_a_problems_test_folders_or_files(tmp_path):
    problem = make_sum_problem(tmp_path / "bench" / "p")
    expected = (problem / "tests" / "t0.out").read_bytes()
    for target in ("tests/t0.out", "hidden/new.s", "source.c", "tests"):
        result = runner.invoke(
            app, ["optimize", str(problem), "-o", str(problem / target), "--no-time"]
        )
        assert result.exit_code == 2, result.output
        assert "part of a problem" in result.output and "Traceback" not in result.output
    assert (problem / "tests" / "t0.out").read_bytes() == expected
    for option in ("--json", "--db"):
        args = ["eval", "--benchmark", str(tmp_path / "bench"), option, str(problem / "tests/x")]
        result = runner.invoke(app, [*args, "--no-time"])
        assert result.exit_code == 2 and "part of a problem" in result.output, result.output
    assert sorted(p.name for p in (problem / "tests").iterdir()) == sorted(
        f"t{i}.{x}" for i in range(4) for x in ("in", "out")
    )


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


def test_machine_trouble_is_worded_as_the_machines_not_the_users():
    import errno

    from supercoder.cli import error_exit
    from supercoder.errors import InfraError, machine_error, machine_trouble

    code, message = error_exit(OSError(errno.ENOSPC, "No space left on device", "/tmp/x"))
    assert code == 3 and "machine trouble" in message and "/tmp/x" in message
    log = "program.s: Fatal error: can't write 11 bytes to section .text: No space left on device"
    assert machine_trouble(log) == "No space left on device"
    assert machine_trouble("undefined reference to `gmp_printf'") is None
    e = machine_error("the baseline could not be built", log)
    assert isinstance(e, InfraError) and "ldflags" not in str(e) and "machine trouble" in str(e)


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


def test_files_over_the_cap_are_refused_before_they_are_read(tmp_path, monkeypatch):
    from supercoder.errors import read_regular

    big = tmp_path / "big.in"
    big.write_bytes(b"1\n" * 600)
    with pytest.raises(UserError, match="1200 bytes, over the 1024 bytes cap"):
        read_regular(big, 1024, "test input")
    assert read_regular(big, 1200) == b"1\n" * 600
    folder = make_sum_problem(tmp_path / "sum")
    monkeypatch.setattr("supercoder.problems.loading.MAX_FILE_BYTES", 8)
    with pytest.raises(UserError, match="over the 8 bytes cap"):
        load_problem(folder)


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
