"""Bad input to the CLI: problem folders, record files, run files and stores that are
broken or hostile give one-line errors (exit 2), never a traceback; none of these runs a
process."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import UserError
from supercoder.problems.loading import load_problem
from tests.conftest import make_sum_problem
from tests.integration.test_bad_input import record, runner  # noqa: F401

SECRET = "TOP-SECRET-HOST-FILE-CONTENT"


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
