"""An interpreter whose tests are scripts: its drawn inputs are the visible scripts with
their integer literals drawn anew, never token soup that reaches only the parse-error
path. Before, the inferred model drew lines of random characters from the scripts'
alphabet (``cll l)(nel {``), every one a parse error, while ``problem show`` called the
domain extrapolated. Real init, the real sandbox, a tiny interpreter written here
(``fixtures/script_interp``)."""

from __future__ import annotations

import random
from pathlib import Path

from supercoder.problems.domain import describe
from supercoder.problems.init import InitConfig, create_problem
from supercoder.problems.inputmodel import infer, is_script, model_for
from supercoder.problems.loading import load_problem
from supercoder.types import split_run, with_args
from supercoder.verify.unseen import unseen_tests
from tests.conftest import sandbox_or_skip

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "script_interp"
SCRIPTS = sorted((HERE / "scripts").iterdir())


def test_scripts_are_told_from_data_and_drawn_as_written_with_new_literals():
    texts = [p.read_text() for p in SCRIPTS]
    assert is_script(texts)
    assert not is_script(["3 4\n1 2 3\n4 5 6\n", "2\nabc def\nxyz\n"])  # data, not code
    model = infer([t.encode() for t in texts])
    assert model.spec.get("script")
    drawn = model.draw(random.Random(4), 12)
    shapes = {tuple(ln.rstrip("0123456789);,") for ln in d.splitlines()) for d in drawn}
    seen = {tuple(ln.rstrip("0123456789);,") for ln in t.splitlines()) for t in texts}
    assert shapes <= seen and len(shapes) == 2  # every draw one of the scripts as written
    assert set(drawn) - set(texts)  # with literals drawn anew
    for d in drawn:
        n = int(d.split("set(n, ")[1].split(")")[0])
        assert 1_500_000 <= n <= 3_000_000  # three quarters of the seen up to it


def test_scripts_named_in_the_arguments_are_drawn_as_their_own_files():
    """``clox fib.lox`` and ``clox zoo.lox``: each test ships its script as a file of
    its own name; a drawn input is one of them, shipped under that name."""
    runs = [
        with_args((p.name + ".lox",), b"", ((p.name + ".lox", p.read_bytes()),)) for p in SCRIPTS
    ]
    model = infer(runs)
    assert model.spec.get("script")
    for text in model.draw(random.Random(5), 8):
        args, files, stdin = split_run(text.encode())
        assert len(files) == 1 and files[0][0] == args[0] and not stdin, (args, files)
        assert b"print();" in files[0][1]  # the script, as a file


def test_an_interpreter_is_timed_on_scripts_it_runs_not_on_parse_errors(tmp_path):
    sandbox_or_skip()
    opts = InitConfig(calibrate=True)
    folder = create_problem(HERE / "tiny.c", HERE / "scripts", tmp_path / "p", opts).folder
    problem = load_problem(folder)
    model = model_for(problem)
    assert model is not None and model.spec.get("script")
    line = describe(model)
    assert "an interpreter's scripts" in line and "refused" not in line, line
    found = unseen_tests(problem)
    assert found.source == "model" and found.tests, found.why
    outputs = {expected for _, _, expected in found.tests}
    assert b"parse error\n" not in outputs and len(outputs) > 1, outputs  # real runs
