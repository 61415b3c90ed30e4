"""Fuzzed differential tests: format-keeping mutations, kept only where the reference agrees.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_fuzz.py."""

from __future__ import annotations

import json
import random
import re

from supercoder.problems.fuzz import (
    FuzzHint,
    fuzz_inputs,
    hint_of,
    mutate,
    structural_values,
)
from supercoder.settings import ProblemSettings
from supercoder.types import Problem, TestCase
from tests.integration.test_fuzz import INPUTS, SORTED_SUM, sorted_sum_problem  # noqa: F401


def test_mutations_keep_kind_sign_and_observed_ranges():
    text = "4\n10 -7 2.50 x\n20 -3 1.25 y\n30 -9 3.75 z\n15 -1 0.50 w\n"
    rng = random.Random(0)
    for _ in range(200):
        out = mutate(text, rng, FuzzHint())
        lines = out.split("\n")
        assert lines[0] == "4" and lines[-1] == ""
        for line in lines[1:5]:
            a, b, c, word = line.split()
            assert 10 <= int(a) <= 30 and -9 <= int(b) <= -1
            assert re.fullmatch(r"\d\.\d\d", c) and 0.5 <= float(c) <= 3.75
            assert word in "xyzw"


def test_arrays_on_one_line_vary_within_that_line():
    text = "7 100\n1 9 3 8\n"  # a header that is no count, and an array line
    rng = random.Random(0)
    variants = {mutate(text, rng, FuzzHint()) for _ in range(100)}
    assert len(variants) > 5
    for v in variants:
        header, array = v.split("\n")[:2]
        assert header == "7 100"  # a lone header column keeps its values
        assert len(array.split()) == 4 and all(1 <= int(x) <= 9 for x in array.split())


def test_shuffle_only_where_the_hint_allows(tmp_path):
    text = "3\nalpha\nbeta\ngamma\n"
    rng = random.Random(1)
    assert {mutate(text, rng, FuzzHint()) for _ in range(20)} == {text}
    shuffled = {mutate(text, rng, FuzzHint(shuffle_lines_after=1)) for _ in range(40)}
    assert len(shuffled) > 1
    assert all(
        s.startswith("3\n") and sorted(s.split()[1:]) == ["alpha", "beta", "gamma"]
        for s in shuffled
    )
    fuzz = FuzzHint(shuffle_lines_after=1, numbers=False)
    p = Problem(
        "w",
        "int main(void){return 0;}\n",
        (TestCase("t", b"", input_bytes=text.encode()),),
        settings=ProblemSettings(fuzz=fuzz),
    )
    variants = fuzz_inputs(p, count=5, seed=0)
    assert variants and all(v != text.encode() for v in variants)
    assert all(v.startswith(b"3\n") for v in variants)


def test_long_digit_strings_are_words_not_numbers():
    text = "40\n" + "7" * 40 + "\n"  # a 40-digit number: its length is the count
    rng = random.Random(0)
    assert {mutate(text, rng, FuzzHint()) for _ in range(20)} == {text}
    assert 40 in structural_values(text.split("\n"))


def test_structural_values():
    lines = ["2 3", "abc", "xyz", ""]
    values = structural_values(lines)
    assert {2, 3} <= values  # two lines follow; each word has 3 characters


def test_bad_hint_is_a_user_error(tmp_path):
    import pytest

    from supercoder.errors import UserError

    with pytest.raises(UserError, match="field 'fuzz' has unknown keys shuffle"):
        sorted_sum_problem(tmp_path, meta={"fuzz": {"shuffle": True}})  # refused on load
    assert json.loads((tmp_path / "sorted_sum" / "problem.json").read_text())["fuzz"]
    with pytest.raises(UserError, match="key 'numbers' must be true or false"):
        sorted_sum_problem(tmp_path / "bad", meta={"fuzz": {"numbers": 1}})
    good = sorted_sum_problem(tmp_path / "good", meta={"fuzz": {"frozen_lines": 1}})
    assert hint_of(good).frozen_lines == 1 and hint_of(good).numbers  # typed, with defaults


def test_binary_data_files_are_drawn_as_random_bytes_after_their_header():
    """A program whose input is one binary file (MiBench crc32's ``small.pcm``) has no
    text to model: files like it are drawn, its first bytes kept, at 1/2-2x its size."""
    import random as _random

    from supercoder.problems.fuzz import byte_files, draw_byte_files
    from supercoder.types import split_run, with_args

    pcm = bytes(range(256)) * 40
    inputs = [with_args(("small.pcm",), b"", (("small.pcm", pcm),))]
    files = byte_files(inputs)
    assert files == [(("small.pcm",), "small.pcm", pcm)]
    drawn = draw_byte_files(files, _random.Random(1), 6)
    assert len(set(drawn)) == 6
    for data in drawn:
        args, shipped, stdin = split_run(data)
        assert args == ("small.pcm",) and stdin == b"" and shipped[0][0] == "small.pcm"
        body = shipped[0][1]
        assert body[:64] == pcm[:64] and len(pcm) // 2 <= len(body) <= 2 * len(pcm)
    # text files, stdin beside the file, or no file: not this source's
    assert byte_files([with_args(("a.txt",), b"", (("a.txt", b"1 2 3\n"),))]) == []
    assert byte_files([with_args(("x",), b"stdin", (("x", pcm),))]) == []
    assert byte_files([b"5\n"]) == []


def test_a_mutation_keeps_the_arguments_and_files_and_draws_phrases_from_the_visible_ones():
    """anagram reads phrases on stdin and a dictionary its arguments name: a mutation
    keeps both as they are and draws its stdin from the visible phrases (no numbers to
    perturb, no order to shuffle); a data file's numbers are mutated inside the file,
    its block still well formed."""
    import random as _random

    from supercoder.problems.fuzz import mutate
    from supercoder.settings import FuzzSettings
    from supercoder.types import split_run, with_args

    words = (("words", b"apple\nbanana\n" * 50),)
    phrases = b"cat dog\nbird fish\nred sun\nblue moon\n"
    text = with_args(("words", "2"), phrases, words).decode()
    seen = set()
    for seed in range(8):
        args, files, stdin = split_run(mutate(text, _random.Random(seed), FuzzSettings()).encode())
        assert args == ("words", "2") and files == words
        assert set(stdin.decode().splitlines()) <= set(phrases.decode().splitlines())
        seen.add(stdin)
    assert len(seen) > 2
    numbers = with_args(("d.txt",), b"", (("d.txt", b"3\n10 20 30\n"),)).decode()
    hint = FuzzSettings(numbers=True)
    args, files, stdin = split_run(mutate(numbers, _random.Random(1), hint).encode())
    assert args == ("d.txt",) and stdin == b"" and files[0][0] == "d.txt"
