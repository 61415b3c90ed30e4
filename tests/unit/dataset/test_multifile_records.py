"""A multi-file problem travels whole: a program of three translation units
(``problem.json`` ``units``) and a driver whose header sat above its folder (``headers``,
copied under ``lib/``) survive a SuperCoder record (``problem_to_record`` ->
``problem_from_record``, the ``problem_files`` bundle) and the verification server's
payload (``verify/client.py`` ``problem_record``), and check the same there.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_multifile_records.py."""

from __future__ import annotations

from supercoder.dataset.records import problem_to_record
from supercoder.settings import ProblemSettings
from supercoder.types import Problem
from supercoder.verify.client import problem_record


def test_a_multi_file_problem_without_its_files_is_refused_at_export():
    import pytest

    from supercoder.errors import UserError
    from supercoder.types import TestCase

    tests = (TestCase("a", b"1\n", input_bytes=b"1\n"),)
    thin = Problem(
        "thin", "int main(void){return 0;}\n", tests, settings=ProblemSettings(units=("encode.c",))
    )
    with pytest.raises(UserError, match=r"thin: its other files \(encode.c: .*whole"):
        problem_to_record(thin, "val", 0, "main:\n\tret\n")
    with pytest.raises(UserError, match="could not carry the problem whole"):
        problem_record(thin)
