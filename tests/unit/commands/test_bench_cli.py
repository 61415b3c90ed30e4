"""The `bench` and `dataset` commands end to end (typer runner, real gcc and sandbox).

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_bench_cli.py."""

from __future__ import annotations

import pytest

from supercoder.errors import UserError
from tests.integration.test_bench_cli import run  # noqa: F401


def test_bad_input_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="no such benchmark"):
        run("bench", "list", str(tmp_path / "nope"))
    with pytest.raises(UserError, match="not a Project CodeNet folder"):
        run("dataset", "build", "--codenet", str(tmp_path), "--out", str(tmp_path / "o"))
    with pytest.raises(UserError, match=".parquet or .jsonl"):
        run("dataset", "export", "all", "--out", str(tmp_path / "x.csv"))
