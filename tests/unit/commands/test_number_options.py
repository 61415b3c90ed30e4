"""Number options: every one declares the range that can work, an impossible or NaN value
is refused before anything runs, and a stored NaN setting still resumes its run."""

from __future__ import annotations

import os
from typing import Annotated

import pytest
import typer
from typer.testing import CliRunner

from supercoder.cli import add, app
from tests.conftest import make_sum_problem

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


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "--benchmark", "val", "--no-time", "--temperature", "nan", "--run", "nan"],
        ["eval", "--benchmark", "val", "--no-time", "--deadline", "inf"],
        ["optimize", "dp_lcs", "--temperature", "nan"],
        ["check", "dp_lcs", "x.s", "--cpu-limit", "nan"],
    ],
)
def test_a_nan_or_infinite_option_is_refused(args, tmp_path):
    result = runner.invoke(
        app, [*args, "--db", str(tmp_path / "r.sqlite")] if args[0] == "eval" else args
    )
    assert result.exit_code == 2, result.output
    assert "is not a number" in result.output or "Invalid value" in result.output
    assert not (tmp_path / "r.sqlite").exists()


def test_a_stored_nan_setting_compares_equal_so_the_run_resumes(tmp_path):
    from supercoder.models.base import Sampling
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.store import Store
    from supercoder.runs.strategies import StrategyConfig

    store = Store(tmp_path / "r.sqlite")
    odd = RunConfig("m", "val", StrategyConfig(Sampling(temperature=float("nan"))), name="nan")
    assert store.open_run(odd, {}) is False
    assert store.open_run(odd, {}) is True  # resumes: nan is the stored nan


def test_dataset_import_uses_every_core_by_default():
    import inspect

    from supercoder.commands.dataset_import import import_

    every = len(os.sched_getaffinity(0))
    assert inspect.signature(import_).parameters["workers"].default == every
