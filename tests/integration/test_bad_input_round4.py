"""Bad input of issue 36: impossible numbers refused at parse time by one rule for every
command, a UTF-8 run name under an ASCII locale, figures of what was not measured."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from supercoder.cli import add, app
from tests.conftest import make_sum_problem, sandbox_or_skip

runner = CliRunner()


def _numeric_options():
    """(command words, option) for every int/float option of the whole app."""
    root = typer.main.get_command(app)
    out = []

    def walk(command, path):
        if hasattr(command, "commands"):
            for name, sub in sorted(command.commands.items()):
                walk(sub, [*path, name])
            return
        for p in command.params:
            kinds = {int, float}
            ann = p.type_descriptor.annotation
            args = set(getattr(ann, "__args__", ())) - {type(None)}
            if ann in kinds or (args and args <= kinds):
                out.append((" ".join(path), p.opts[0], p))

    walk(root, [])
    return out


def test_every_number_option_of_every_command_declares_the_numbers_that_can_work():
    found = _numeric_options()
    assert len(found) > 40  # every command's, not a few
    unbounded = [(cmd, opt) for cmd, opt, p in found if p.min is None and p.max is None]
    assert unbounded == []


def test_a_command_with_a_number_option_without_a_range_cannot_be_registered():
    def bad(count: Annotated[int, typer.Option(help="How many.")] = 1) -> None:
        """A command."""

    with pytest.raises(TypeError, match=r"number options without a range.*count"):
        add(typer.Typer(), "bad", bad)


@pytest.mark.parametrize(
    "argv",
    [
        ["problem", "init", "x.c", "--timeout", "0"],
        ["problem", "init", "x.c", "--timeout", "-3"],
        ["problem", "init", "x.c", "--exit-code", "300"],
        ["train", "sft", "--batch-size", "0"],
        ["train", "grpo", "--steps", "0"],
        ["eval", "--samples", "0"],
        ["eval", "--timeout", "0"],
        ["optimize", "dp_lcs", "--temperature", "-1"],
        ["bench", "fuzz", "--count", "0"],
        ["dataset", "build", "--codenet", ".", "--out", "o", "--workers", "0"],
        ["dataset", "build", "--codenet", ".", "--out", "o", "--val-fraction", "2"],
        ["check", "dp_lcs", "x.s", "--memory-mb", "0"],
    ],
)
def test_an_impossible_number_is_refused_before_anything_runs(argv, tmp_path):
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    option = next(a for a in argv if a.startswith("--") and a != "--codenet" and a != "--out")
    text = " ".join(result.output.replace("│", " ").split())  # the box's wrapped lines
    assert f"Invalid value for '{option}'" in text
    assert "greater than or equal" in text or "less than or equal" in text


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


def test_eval_says_what_it_costs_only_once_its_options_are_valid(tmp_path):
    make_sum_problem(tmp_path / "bench" / "s1", hidden=False)
    result = runner.invoke(
        app,
        [
            "eval",
            "--benchmark",
            str(tmp_path / "bench"),
            "--no-time",
            "--db",
            str(tmp_path / "runs.sqlite"),
            "--run",
            "a\x1bb",
        ],
    )
    assert result.exit_code == 2 and "control characters" in result.output
    assert "problem(s):" not in result.output and "seconds a problem" not in result.output


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


def test_a_c99_inline_link_failure_names_gnu89_inline_not_a_library(tmp_path):
    """``inline`` without ``static`` links at -O0 (nothing inlined) only with gnu89
    semantics: the refusal says so, and the flag it names builds it."""
    sandbox_or_skip()
    from supercoder.toolchain.reference import ReferenceBuildError, build_reference

    source = _INLINE + "#include <stdio.h>\n" + _USES
    with pytest.raises(ReferenceBuildError) as e:
        build_reference(source, tmp_path, ("O0",), label="p.c")
    text = " ".join(str(e.value).split())
    assert "sq is defined 'inline' without 'static'" in text
    assert "pass --cflags -fgnu89-inline (or --cflags -std=gnu89)" in text
    assert "-lgmp" not in text
    built = build_reference(source, tmp_path, ("O0",), cflags=("-fgnu89-inline",), label="p.c")
    assert built["O0"].is_file()


def test_a_codenet_metadata_row_with_an_invalid_byte_is_skipped_named_and_counted(tmp_path):
    """One bad byte in a CodeNet metadata CSV no longer stops the whole build with a
    message naming no file: that row is left out, named by file and line, and counted;
    the other rows of the file (and the other files) are built."""
    from supercoder.dataset.build import DatasetBuildConfig, build_counts, plan

    header = "submission_id,problem_id,user_id,date,language,original_language,"
    header += "filename_ext,status,cpu_time,memory,code_size,accuracy\n"
    rows = {
        "s1": b"s1,p00001,u1,1,C,C,c,Accepted,10,1000,300,1/1\n",
        "s2": b"s2,p00001,u\xff2,1,C,C,c,Accepted,10,1000,300,1/1\n",  # not UTF-8
        "s3": b"s3,p00001,u3,1,C,C,c,Accepted,10,1000,300,1/1\n",
    }
    (tmp_path / "metadata").mkdir()
    csv_path = tmp_path / "metadata" / "p00001.csv"
    csv_path.write_bytes(header.encode() + b"".join(rows.values()))
    (tmp_path / "data" / "p00001" / "C").mkdir(parents=True)
    for sid in rows:
        (tmp_path / "data" / "p00001" / "C" / f"{sid}.c").write_text("int main(void){}\n")
    inputs = tmp_path / "derived" / "input_output" / "data" / "p00001"
    inputs.mkdir(parents=True)
    (inputs / "input.txt").write_text("1\n")
    notes: list[str] = []
    jobs, dropped = plan(tmp_path, tmp_path / "out", DatasetBuildConfig(), notes)
    assert [j.submission_id for j in jobs] == ["s1", "s3"]
    assert dropped["unreadable_metadata_row"] == 1
    assert notes == [f"{csv_path}:3: not UTF-8 (byte 0xff at column 12): row skipped"]
    counts = build_counts(jobs, [], [], dropped)
    assert counts["submissions_considered"] == 3  # the skipped row is counted, not lost


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
