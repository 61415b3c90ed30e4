"""A test's data files travel inside its run input (``types.with_args``: arguments, then
files, then stdin), split once by the sandbox (``split_run``); names stay inside the
run's folder; the input model sees a test's one data file as its body."""

from __future__ import annotations

import pytest

from supercoder.types import (
    FILES_MARK,
    TestCase,
    data_file_view,
    from_data_file_view,
    is_data_file_name,
    split_args,
    split_run,
    with_args,
)


def test_arguments_files_and_stdin_round_trip_through_one_byte_string():
    files = (("input.dat", b"1 2\n\x00binary\xff"), ("sub/b.txt", b""))
    data = with_args(("input.dat", "-v"), b"stdin\n", files)
    args, got, stdin = split_run(data)
    assert args == ("input.dat", "-v") and stdin == b"stdin\n"
    assert dict(got) == dict(files)
    assert split_args(data) == (("input.dat", "-v"), b"stdin\n")  # files are not stdin
    assert with_args((), b"x") == b"x" and split_run(b"x") == ((), (), b"x")
    # files without arguments
    assert split_run(with_args((), b"", (("a.b", b"1"),))) == ((), (("a.b", b"1"),), b"")
    test = TestCase("t", b"", input_bytes=b"in", args=("a.b",), files=(("a.b", b"1"),))
    assert split_run(test.run_input()) == (("a.b",), (("a.b", b"1"),), b"in")


@pytest.mark.parametrize(
    "name, ok",
    [
        ("input.dat", True),
        ("data/large_2.txt", True),
        ("../etc/passwd", False),
        ("/etc/passwd", False),
        (".hidden", False),
        ("a/../b", False),
        ("a//b", False),
        ("a b", False),
        ("a/b/c/d/e", False),
        ("", False),
    ],
)
def test_a_data_file_name_stays_inside_the_runs_folder(name, ok):
    assert is_data_file_name(name) is ok


def test_a_files_block_naming_a_path_outside_is_stdin_not_a_file():
    forged = FILES_MARK + b"1\n../x\n3\nabc" + b"rest"
    assert split_run(forged) == ((), (), forged)
    too_long = FILES_MARK + b"1\na.txt\n99\nabc"
    assert split_run(too_long)[1] == ()


def test_the_input_model_sees_one_data_file_as_the_input_and_draws_files_back():
    data = with_args(("data.txt", "5"), b"", (("data.txt", b"3\n1 2 3\n"),))
    view, name = data_file_view(data)
    assert name == "data.txt" and split_run(view) == (("data.txt", "5"), (), b"3\n1 2 3\n")
    drawn = with_args(("data.txt", "7"), b"2\n9 9\n")
    assert split_run(from_data_file_view(drawn, name)) == (
        ("data.txt", "7"),
        (("data.txt", b"2\n9 9\n"),),
        b"",
    )
    # stdin and a file, or two files: the input as it is (files left out of the view)
    assert data_file_view(with_args((), b"x", (("a", b"1"),)))[1] is None
