"""The OpenEnv environment's tests, run in the venv that can hold openenv.

openenv 0.10 cannot share an environment with verifiers 0.4 or the mcp extra (their mcp
pins), so ``scripts/setup.sh`` installs it into ``.venv-openenv`` beside ``.venv``. Where
the suite's own interpreter has openenv, ``tests/integration/test_openenv_env.py`` runs directly and
this test has nothing to add; elsewhere it runs that file with the OpenEnv venv's
interpreter and asserts every test there passed (none skipped)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-openenv" / "bin" / "python"


@pytest.mark.slow
def test_the_openenv_environment_passes_its_tests_in_its_own_venv():
    if importlib.util.find_spec("openenv") is not None:
        pytest.skip(
            "openenv is in this interpreter: tests/integration/test_openenv_env.py runs here"
        )
    if not PYTHON.exists():
        if os.environ.get("CI"):
            pytest.fail("CI must provide .venv-openenv (bash scripts/setup.sh builds it)")
        pytest.skip("no .venv-openenv: bash scripts/setup.sh builds it")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [
            str(PYTHON),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/integration/test_openenv_env.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    tail = (done.stdout + done.stderr)[-3000:]
    assert done.returncode == 0, tail
    summary = done.stdout.strip().splitlines()[-1]
    assert re.search(r"\b[1-9]\d* passed\b", summary), tail
    assert "skipped" not in summary and "failed" not in summary, tail
