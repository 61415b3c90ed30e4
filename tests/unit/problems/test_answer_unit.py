"""The answer unit of a multi-unit build (``sources.with_answer``), the profile's count
per unit (``profiling.instructions_per_file``) and domain lines that name the cause that
happened (``domain.describe``, ``domain.one_path``): pure functions, no gcc."""

from __future__ import annotations

import json

import pytest

from supercoder.errors import UserError
from supercoder.problems.domain import describe, one_path
from supercoder.problems.inputmodel import InputModel, load_input_model
from supercoder.problems.sources import answer_unit_of, gather, join_into_answer, with_answer
from supercoder.prompting.profiling import instructions_per_file


def _program(root):
    (root / "src").mkdir()
    (root / "vm.h").write_text("long run(long);\n")
    (root / "main.c").write_text(
        '#include <stdio.h>\n#include "vm.h"\nint main(void) { printf("%ld\\n", run(3)); }\n'
    )
    (root / "src" / "vm.c").write_text(
        '#include "../vm.h"\n#include "local.h"\nstatic long step(long a) { return a + 1; }\n'
        "long run(long n) { return step(n); }\n"
    )
    (root / "src" / "local.h").write_text("/* beside vm.c */\n")
    (root / "parse.c").write_text("static int step(void) { return 0; }\n")
    return [root / "main.c", root / "src" / "vm.c", root / "parse.c"]


def test_the_named_unit_becomes_source_c_and_main_a_unit_linked_beside(tmp_path):
    build = gather(_program(tmp_path), "")
    assert build.units == ("src/vm.c", "parse.c") and build.answer == ""
    unit = answer_unit_of(build, "vm.c")  # its file name is enough when one unit has it
    assert unit == "src/vm.c" == answer_unit_of(build, str(tmp_path / "src" / "vm.c"))
    moved = with_answer(build, unit)
    assert moved.answer == "src/vm.c" and moved.main_unit == "main.c"
    assert moved.units == ("main.c", "parse.c")
    assert "long run(long n)" in moved.source
    # its includes name the problem's files from the root: they resolve as beside it
    assert '#include "vm.h"' in moved.source and '#include "src/local.h"' in moved.source
    assert moved.texts["main.c"] == build.source and "src/vm.c" not in moved.files
    assert "src/local.h" in moved.files and moved.files["main.c"] == tmp_path / "main.c"
    assert any("-> source.c (the answer unit)" in m for m in moved.moved)
    assert not any(m.endswith("vm.c (compiled apart, linked with source.c)") for m in moved.moved)
    # main's own name (or path) is the default layout
    assert answer_unit_of(build, "main.c") == "" and with_answer(build, "") is build


def test_a_name_that_is_no_unit_is_one_line_listing_the_units(tmp_path):
    build = gather(_program(tmp_path), "")
    with pytest.raises(
        UserError,
        match=r"--answer-unit lexer.c is not one of the program's units \(they are: main.c, src/vm.c, parse.c\)",
    ):
        answer_unit_of(build, "lexer.c")


def test_instructions_are_counted_per_file_built():
    text = (
        "events: Ir\nfl=/tmp/x/baseline.s\nfn=run\n3 100\n4 50\nfl=/tmp/x/unit0.s\nfn=main\n"
        "7 20\nfl=???\nfn=0x1\n0 999\n"
    )
    assert instructions_per_file(text) == {
        "/tmp/x/baseline.s": 150,
        "/tmp/x/unit0.s": 20,
        "???": 999,
    }


def _model(domain: dict) -> InputModel:
    spec = {
        "format": "supercoder-input-model/1",
        "body": [{"line": [{"int": [1, 300000], "name": "v0", "size": True}]}],
    }
    return InputModel(spec).with_domain({"version": 1, **domain})


def test_draws_that_reach_one_path_are_named_not_called_extrapolated():
    visible = [b"722224\n", b"775602\n", b"473232\n"]
    assert one_path([b"parse error\n"] * 4, visible) == "parse error"
    assert one_path([b"parse error\n", b"5\n"], visible) is None  # varied: real work
    assert one_path([b"722224\n"] * 3, visible) is None  # a visible output: not a new path
    assert one_path([b"x\n"] * 3, [b"1\n", b"1\n"]) is None  # visible ones all alike
    line = describe(_model({"grow": 7.12, "top_seconds": 0.001, "one_output": "parse error"}))
    assert "extrapolated" not in line and "sizes grown" not in line
    assert "every drawn input gets the same output ('parse error')" in line


def test_a_domain_kept_at_the_visible_span_says_why():
    at_budget = describe(_model({"grow": 1.0, "top_seconds": 0.02}))
    assert "extrapolation refused" not in at_budget
    assert "the largest visible sizes already run 20.0 ms, about the 25 ms budget" in at_budget
    past = describe(_model({"grow": 1.0, "top_seconds": 0.9345}))
    assert "already run 934.5 ms, past the 25 ms budget" in past
    stopped = describe(
        _model({"grow": 1.0, "top_seconds": 0.001, "notes": ["growth stopped at 1x (timeout)"]})
    )
    assert "(growth stopped at 1x (timeout))" in stopped
    grown = describe(_model({"grow": 4.0, "top_seconds": 0.02}))
    assert "extrapolated: sizes grown to 4x" in grown
    # a refusal of values is no cause for the sizes staying: said for the values
    values = describe(
        _model({"grow": 1.0, "top_seconds": 0.001, "notes": ["values beyond the seen refused (x)"]})
    )
    assert "visible span only (a larger size ran past the 25 ms budget)" in values
    assert "values within the range seen (values beyond the seen refused (x))" in values
    unsized = InputModel({"format": "supercoder-input-model/1", "body": [{"line": []}]})
    flat = describe(unsized.with_domain({"version": 1, "grow": 1.0, "top_seconds": 0.001}))
    assert "(the input model has no size to grow)" in flat


def test_a_model_too_large_to_draw_is_loaded_not_called_malformed(tmp_path):
    spec = {
        "format": "supercoder-input-model/1",
        "body": [{"line": [{"word": {"chars": "ab", "len": {"range": [1 << 30, 1 << 30]}}}]}],
    }
    path = tmp_path / "input_model.json"
    path.write_text(json.dumps(spec))
    load_input_model(path)  # well formed; the draw's budget is the domain's business
    path.write_text(json.dumps({**spec, "body": [{"line": [{"bogus": 1}]}]}))
    with pytest.raises(UserError, match="malformed input model"):
        load_input_model(path)


def test_a_second_named_unit_is_joined_into_the_answer(tmp_path):
    build = with_answer(gather(_program(tmp_path), ""), "src/vm.c")
    both = join_into_answer(build, answer_unit_of(build, "main.c"))
    assert both.units == ("parse.c",) and both.joined == ("main.c",)
    assert both.source.startswith(build.source) and both.source.endswith('#include "main.c"\n')
    assert both.files["main.c"] == tmp_path / "main.c"  # still copied: the include finds it
