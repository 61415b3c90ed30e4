"""SuperCoder-schema records <-> Problem, through real Parquet and JSONL files.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_records.py."""

from __future__ import annotations

import json

import pytest

from supercoder.dataset.records import load_records, problem_to_record
from supercoder.errors import UserError
from tests.integration.test_records import SOURCE, problem  # noqa: F401


def test_records_without_our_fields_get_names_and_visible_tests(tmp_path):
    rec = {
        "data_source": "llm_superoptimizer_ds",
        "extra_info": {
            "split": "train",
            "index": 3,
            "c_code": SOURCE,
            "inputs": ["1 1\n"],
            "outputs": ["2\n"],
        },
    }
    (tmp_path / "r.jsonl").write_text(json.dumps(rec) + "\n")
    (p,) = load_records(tmp_path / "r.jsonl")
    assert p.name == "train_3" and [t.hidden for t in p.tests] == [False]


@pytest.mark.parametrize(
    "info, message",
    [
        ({"inputs": ["1"], "outputs": ["1"]}, "extra_info.c_code"),
        ({"c_code": SOURCE, "inputs": ["1", "2"], "outputs": ["1"]}, "extra_info.inputs has 2"),
        ({"c_code": SOURCE, "inputs": [1], "outputs": ["1"]}, "extra_info.inputs must be"),
        ({"c_code": SOURCE, "inputs": [], "outputs": []}, "extra_info.inputs is empty"),
    ],
)
def test_malformed_records_name_the_record_and_field(tmp_path, info, message):
    good = problem_to_record(problem(), "val", 0, "asm")
    lines = [json.dumps(good), json.dumps({"extra_info": info})]
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError, match=rf"bad.jsonl record #1: .*{message}"):
        load_records(tmp_path / "bad.jsonl")


def test_unreadable_files_are_user_errors(tmp_path):
    (tmp_path / "x.parquet").write_text("not parquet")
    (tmp_path / "y.jsonl").write_text("{broken\n")
    for name, message in (
        ("x.parquet", "not a readable Parquet"),
        ("y.jsonl", "line 1"),
        ("missing.jsonl", "no such file"),
    ):
        with pytest.raises(UserError, match=message):
            load_records(tmp_path / name)


def test_writing_a_loaded_problem_elsewhere_keeps_its_own_files(tmp_path):
    """dataset import / build write problems they loaded (a restored record's too):
    the generator, input model and other files go with them."""
    from supercoder.problems.loading import load_problem, write_problem

    folder = write_problem(problem(), tmp_path / "a")
    (folder / "gen.py").write_text("def generate(seed, size):\n    return '1 2\\n'\n")
    (folder / "inc").mkdir()
    (folder / "inc" / "x.h").write_text("#define X 1\n")
    copy = write_problem(load_problem(folder), tmp_path / "b")
    assert (copy / "gen.py").read_text() == (folder / "gen.py").read_text()
    assert (copy / "inc" / "x.h").read_text() == "#define X 1\n"
    assert "path" not in json.loads((copy / "problem.json").read_text())
