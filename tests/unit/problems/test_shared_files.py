"""A program that reads its stdin and a file its arguments name (ptrdist anagram:
``anagram words 2 < phrases``): the input model models the stdin, and every input drawn
from it ships the file every visible input ships alike, named as the arguments name it
(else every draw fails: "Cannot stat dictionary")."""

from __future__ import annotations

import random

from supercoder.problems.inputmodel import infer, shared_files
from supercoder.types import split_run, with_args

WORDS = (("words", b"apple\nbanana\ncherry\n"),)


def _inputs() -> list[bytes]:
    return [
        with_args(("words", "2"), b"cat dog\nbird fish\n", WORDS),
        with_args(("words", "2"), b"red blue green\nsun\nmoon star\n", WORDS),
    ]


def test_every_drawn_input_ships_the_file_every_input_ships_alike_by_its_name():
    model = infer(_inputs())
    assert model.files == WORDS
    for text in model.draw(random.Random(3), 5):
        args, files, stdin = split_run(text.encode())
        assert files == WORDS and args[0] == "words"  # the name kept, the file shipped
        assert stdin  # the drawn phrases
    # the domain a calibration sets keeps them
    assert model.with_domain({"grow": 2}).files == WORDS


def test_files_that_differ_between_inputs_or_are_not_text_ship_with_no_draw():
    other = with_args(("words", "2"), b"a b\n", (("words", b"other\n"),))
    assert shared_files([*_inputs(), other]) == ()
    binary = (("words", b"\xff\xfe\x00"),)
    assert shared_files([with_args(("words",), b"x\n", binary)] * 2) == ()
    assert shared_files([with_args(("words",), b"x\n", ())]) == ()
