"""Bad input from outside (datasets, problem folders, stores): clean errors or correct
results, nothing written outside the folders named, no host file content in any output."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.importer import import_records
from supercoder.errors import UserError
from supercoder.problems import load_benchmark, load_problem
from tests.conftest import SUM_SOURCE, make_sum_problem, sandbox_or_skip

runner = CliRunner()
SECRET = "TOP-SECRET-HOST-FILE-CONTENT"


def record(name=None, split="train", code=SUM_SOURCE, inputs=("2\n3 4\n",), outputs=("7\n",),
           index=0, **extra):  # fmt: skip
    info = {"split": split, "index": index, "c_code": code, "inputs": inputs, "outputs": outputs,
            **extra}  # fmt: skip
    info = {k: list(v) if isinstance(v, tuple) else v for k, v in info.items()}
    if name is not None:
        info["name"] = name
    return {"data_source": "x", "reward_model": {"ground_truth": ""}, "extra_info": info}


def all_files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


UNSAFE = ["../../escaped", "/tmp/sc-abs-escape", ".", "..", "a/b/c", "nul\x00name", "x" * 101,
          "bad\ud800", "spa ce", "[/]markup"]  # fmt: skip


@pytest.mark.parametrize("name", UNSAFE)
def test_import_never_writes_outside_out_for_unsafe_names(tmp_path, name):
    sandbox_or_skip()
    out = tmp_path / "deep" / "out"
    records = [record(name), record("good", index=1), record("ok2", split="../../up", index=2)]
    report = import_records(records, out)
    assert report.written == 1 and sum(report.skipped.values()) == 2
    assert all_files(tmp_path) == ["deep", "deep/out", *[f"deep/out/train{s}" for s in (
        "", "/good", "/good/baseline.s", "/good/problem.json", "/good/source.c", "/good/tests",
        "/good/tests/t00.in", "/good/tests/t00.out")]]  # fmt: skip
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
    assert report.skipped == {"not a valid record": len(BAD_RECORDS), "duplicate name": 1,
                              "expected outputs differ from the reference": 1,
                              "c_code does not compile": 1}  # fmt: skip
    assert any("train/good is also record #8" in r for r in report.reasons)
    assert any("the record says b'8\\n', the reference prints b'7\\n'" in r for r in report.reasons)
    assert [p.name for p in load_benchmark(tmp_path / "out" / "train")] == ["good"]


def test_import_command_reports_bad_jsonl_lines_and_still_imports(tmp_path):
    sandbox_or_skip()
    src = tmp_path / "in.jsonl"
    lines = [json.dumps(record("good")).encode(), b"{not json", b"\xff\xfe bytes",
             json.dumps(record("../evil", index=2)).encode()]  # fmt: skip
    src.write_bytes(b"\n".join(lines) + b"\n")
    result = runner.invoke(app, ["dataset", "import", str(src), "--out", str(tmp_path / "o"),
                                 "--workers", "1"])  # fmt: skip
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


@pytest.mark.parametrize("rel", ["tests/t0.out", "tests/t0.in", "source.c", "hidden",
                                 "problem.json", "baseline.s", "tests"])  # fmt: skip
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
]


@pytest.mark.parametrize(("text", "message"), BAD_META)
def test_a_bad_problem_json_is_a_one_line_error(tmp_path, text, message):
    problem = make_sum_problem(tmp_path / "p")
    (problem / "problem.json").write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[")):
        load_problem(problem)


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
