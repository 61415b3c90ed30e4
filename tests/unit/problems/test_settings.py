"""problem.json read as a typed record (``supercoder.settings``): old files read, a
plugin's own keys travel unchanged, a value of the wrong type is a one-line error."""

from __future__ import annotations

import json

import pytest

from supercoder.errors import UserError
from supercoder.problems.loading import load_problem, write_problem
from supercoder.settings import FuzzSettings, ProblemSettings
from supercoder.types import Problem, TestCase

SOURCE = "int main(void){return 0;}\n"


def _folder(tmp_path, meta: dict):
    folder = tmp_path / "p"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(SOURCE)
    (folder / "tests" / "a.in").write_text("")
    (folder / "tests" / "a.out").write_text("")
    (folder / "problem.json").write_text(json.dumps(meta))
    return folder


def test_an_old_problem_json_reads_typed_with_its_own_keys_kept(tmp_path):
    old = {
        "name": "old",
        "cflags": "-DX=1 -DY=2",  # a string of flags (a list reads too)
        "ldflags": ["-lm"],
        "fuzz": {"frozen_lines": 2},
        "reads_input": False,
        "headers_sha": "stale",  # written by older versions: the loader's, not kept
        "my_plugin": {"level": 3},
    }
    problem = load_problem(_folder(tmp_path, old))
    s = problem.settings
    assert (problem.name, problem.cflags, problem.ldflags) == ("old", ("-DX=1", "-DY=2"), ("-lm",))
    assert s.fuzz == FuzzSettings(frozen_lines=2) and problem.memorizable
    assert s.extra == {"my_plugin": {"level": 3}} and s.path == str((tmp_path / "p").resolve())
    assert problem.compare == "exact" and problem.exit_code == 0  # the defaults
    back = load_problem(write_problem(problem, tmp_path / "again"))
    written = json.loads((tmp_path / "again" / "problem.json").read_text())
    assert written["my_plugin"] == {"level": 3} and "path" not in written
    assert "headers_sha" not in written and "compare" not in written  # defaults left out
    assert back.settings == problem.settings.__class__(**{**vars(s), "path": back.path})


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"too_small": "yes"}, "field 'too_small' must be true or false"),
        ({"exit_code": 300}, "field 'exit_code' must be an integer from 0 to 255"),
        ({"codenet": [1]}, "field 'codenet' must be an object"),
        ({"tags": "math"}, "field 'tags' must be a list of strings"),
    ],
)
def test_a_setting_of_the_wrong_type_is_one_line_naming_file_and_field(tmp_path, meta, message):
    with pytest.raises(UserError, match=message) as e:
        load_problem(_folder(tmp_path, meta))
    assert "problem.json" in str(e.value) and "\n" not in str(e.value)


def test_a_problem_made_in_memory_carries_typed_settings():
    tests = (TestCase("t", b"1\n"),)
    p = Problem("p", SOURCE, tests, settings=ProblemSettings(cflags=("-DN=3",), exit_code=3))
    assert p.cflags == ("-DN=3",) and p.exit_code == 3 and p.path is None
    assert p.settings.stored() == {"cflags": ["-DN=3"], "exit_code": 3}


def test_no_code_reads_a_problems_settings_by_key():
    """Every setting is read as ``problem.settings.FIELD`` (typed), never by key."""
    import re

    from tests.sourcetree import SRC, python_files

    by_key = re.compile(r"\.meta(?:\[|\.get\()")
    hits = [
        f"{p.relative_to(SRC)}:{n}"
        for p in python_files()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if by_key.search(line)
    ]
    assert hits == []
