"""best-of-N and refinement with scripted models, the real evaluator and real gcc.

Also holds the small problems and scripted answers that test_runs / test_eval_cli use.


The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_strategies.py."""

from __future__ import annotations

import sys

import pytest

from supercoder.errors import MissingExtra
from supercoder.verify.executors import make_executor


def test_ray_executor_without_ray_names_the_install_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtra, match=r"pip install 'supercoder\[ray\]'"):
        make_executor("ray", 2)
