"""Real programs in, as a user brings them: input layouts, flags, atomic init, comparisons.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_problem_init.py."""

from __future__ import annotations

import pytest

from supercoder.errors import UserError
from supercoder.problems.layouts import discover
from supercoder.problems.outputs import Expected, outputs_match, parse_mode
from tests.integration.test_problem_init import CODENET, FIXTURES, KATTIS  # noqa: F401


def test_kattis_package_sample_visible_secret_hidden_answers_never_inputs():
    layout = discover(KATTIS)
    assert layout.kind == "kattis"
    by_name = {(t.name, t.hidden): t for t in layout.tests}
    assert set(by_name) == {("1", False), ("group1_1", True), ("2", True)}
    assert all(t.input.suffix == ".in" and t.answer.suffix == ".ans" for t in layout.tests)
    assert discover(KATTIS / "data").tests == layout.tests  # data/ itself works too


def test_codenet_inputs_pair_with_outputs_and_the_c_file_is_skipped():
    layout = discover(CODENET)
    assert layout.kind == "codenet"
    assert [(t.name, t.input.name, t.answer.name) for t in layout.tests] == [
        ("1", "input_1.txt", "output_1.txt"),
        ("2", "input_2.txt", "output_2.txt"),
    ]


def test_flat_folder_name_collision_names_both_files(tmp_path):
    (tmp_path / "a.in").write_text("1\n")
    (tmp_path / "a.txt").write_text("2\n")
    with pytest.raises(UserError) as e:
        discover(tmp_path)
    assert "a.in" in str(e.value) and "a.txt" in str(e.value)


def test_flat_folder_answers_and_subfolders(tmp_path):
    (tmp_path / "x.in").write_text("1\n")
    (tmp_path / "x.ans").write_text("1\n")
    (tmp_path / "README.md").write_text("notes\n")
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "1").write_text("3\n")
    layout = discover(tmp_path)
    assert sorted((t.name, t.answer is not None) for t in layout.tests) == [
        ("big_1", False),
        ("x", True),
    ]
    only_answers = tmp_path / "answers"
    only_answers.mkdir()
    (only_answers / "x.ans").write_text("1\n")
    with pytest.raises(UserError, match="no input files.*x.ans"):
        discover(only_answers)


def test_compare_modes():
    assert outputs_match(b"1 2\n", b"1 2\n") and not outputs_match(b"1  2\n", b"1 2\n")
    assert outputs_match(b"1  2", b"1 2\n", "tokens") and not outputs_match(
        b"1 3", b"1 2", "tokens"
    )
    tol = parse_mode("float:1e-6")
    assert outputs_match(b"3.605551275\n", b"3.605551\n", tol)
    assert outputs_match(b"1000000.5\n", b"1000000.0\n", tol)  # relative error 5e-7
    assert not outputs_match(b"3.6056\n", b"3.605551\n", tol)
    assert not outputs_match(b"nan yes", b"1.0 yes", tol) and outputs_match(b"nan", b"nan", tol)
    assert not outputs_match(b"1.0 yes", b"1.0 no", tol)
    assert outputs_match(b"2.0000001", Expected(b"2.0", tol))  # the mode travels with the bytes
    for bad in ("float", "float:x", "float:-1", "fuzzy"):
        with pytest.raises(ValueError):
            parse_mode(bad)


def test_more_real_layouts_pair_answers(tmp_path):
    hr = tmp_path / "hackerrank"
    for sub, stem in (("input", "input"), ("output", "output")):
        (hr / sub).mkdir(parents=True)
        for i in ("00", "01"):
            (hr / sub / f"{stem}{i}.txt").write_text(f"{i}\n")
    layout = discover(hr)
    assert [(t.name, t.answer.name) for t in layout.tests] == [
        ("00", "output00.txt"),
        ("01", "output01.txt"),
    ]
    short = tmp_path / "short"
    short.mkdir()
    for i in (1, 2):
        (short / f"in{i}.txt").write_text("1\n")
        (short / f"out{i}.txt").write_text("1\n")
    (short / "info.txt").write_text("3\n")  # an input, not a CodeNet name
    assert sorted((t.name, t.answer is not None) for t in discover(short).tests) == [
        ("1", True),
        ("2", True),
        ("info", False),
    ]
    polygon = tmp_path / "polygon"
    (polygon / "in").mkdir(parents=True)
    (polygon / "out").mkdir()
    (polygon / "in" / "1.in").write_text("1\n")
    (polygon / "out" / "1.out").write_text("1\n")
    (polygon / "02").write_text("2\n")
    (polygon / "02.a").write_text("2\n")
    assert sorted((t.name, t.answer.name) for t in discover(polygon).tests) == [
        ("02", "02.a"),
        ("1", "1.out"),
    ]


def test_a_probe_gets_time_in_proportion_to_the_visible_runs():
    from supercoder.problems.init import probe_timeout
    from supercoder.toolchain.reference import RefResult

    def runs(*cpu: float) -> list[RefResult]:
        return [RefResult(f"t{i}", b"x", {"O3": c}) for i, c in enumerate(cpu)]

    # a quick program: the usual 5 s (a probe that runs past it reads its input)
    assert probe_timeout(runs(0.01, 0.2), 20.0) == 5.0
    # a benchmark that computes for 3 s whatever its input (CoyoteBench's almabench) must
    # not be taken for one that reads its input when a probe runs slower on a busy machine
    assert probe_timeout(runs(0.5, 3.0), 20.0) == 12.0
    assert probe_timeout(runs(9.0), 20.0) == 20.0  # never past init's own --timeout
    assert probe_timeout([], 20.0) == 5.0


def test_a_test_kept_hidden_takes_its_data_files_along(tmp_path):
    # Ptrdist ks: `--args k4=KL-4.in` ships KL-4.in as tests/k4.files/; when init keeps
    # k4 hidden (the longest run) the file must go too, or the baseline fails on it
    from supercoder.problems.init import _keep_largest_hidden
    from supercoder.problems.layouts import TestFile

    tests = tmp_path / "tests"
    for name in ("k2", "k4"):
        for ext in (".in", ".out", ".args"):
            (tests / f"{name}{ext}").parent.mkdir(parents=True, exist_ok=True)
            (tests / f"{name}{ext}").write_text(name)
        (tests / f"{name}.files").mkdir()
        (tests / f"{name}.files" / "KL.in").write_text("data")
    found = [TestFile(n, tests / f"{n}.in", None, False) for n in ("k2", "k4")]
    assert _keep_largest_hidden(tmp_path, found, [0.01, 0.5]) == ("k4",)
    assert (tmp_path / "hidden" / "k4.files" / "KL.in").read_text() == "data"
    assert (tmp_path / "hidden" / "k4.args").exists() and not (tests / "k4.files").exists()
    assert (tests / "k2.files" / "KL.in").exists()


def test_draws_far_shorter_than_the_longest_visible_input_keep_it_hidden(tmp_path):
    """A model whose largest draws run 6 ms while the longest input given runs 40 ms misses
    what makes the real inputs long (``m:ss`` drawn as letters did): init keeps the
    largest hidden so that a check whose draws all run under 5 ms times it. Draws that
    reach a few times the floor, or visible inputs as short as the draws, keep none."""
    from supercoder.problems.init import _short_draws
    from supercoder.problems.inputmodel import InputModel, infer

    model = infer([b"3\n1 2 3\n", b"5\n1 2 3 4 5\n"])
    for top, cpu, short in (
        (0.006, [0.001, 0.040], True),
        (0.006, [0.001, 0.012], False),  # the visible ones are about as short
        (0.030, [0.001, 0.500], False),  # draws long enough to time on their own
        (0.0, [0.001, 0.040], False),  # no domain found: nothing to compare
    ):
        InputModel(model.spec).with_domain({"version": 1, "top_seconds": top}).save(tmp_path)
        why = _short_draws(tmp_path, cpu)
        assert bool(why) == short, (top, cpu, why)
    InputModel(model.spec).with_domain({"version": 1, "top_seconds": 0.006}).save(tmp_path)
    assert "6.0 ms" in _short_draws(tmp_path, [0.001, 0.04])
    assert "40.0 ms" in _short_draws(tmp_path, [0.001, 0.04])
