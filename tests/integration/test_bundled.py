"""Every bundled problem loads, has enough tests, and its own -O3 baseline passes them all.

The check goes through the real evaluator (sandbox, every visible and hidden test),
without timing; problems run in a small process pool.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from functools import cache

import pytest

from supercoder.problems.loading import BUNDLED_ROOT, is_problem_dir, load_problem

FOLDERS = sorted(p for p in BUNDLED_ROOT.iterdir() if is_problem_dir(p))
WORKERS = max(1, min(4, (os.cpu_count() or 2)))


def _check(folder: str) -> tuple[str, str, int]:
    """(status, message, tests run) of the problem's baseline evaluated as a candidate."""
    from supercoder.errors import SupercoderError
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.verify.evaluate import CheckConfig, evaluate

    try:
        problem = load_problem(folder)
        verdict = evaluate(problem, baseline_asm(problem), CheckConfig(time=False))
    except SupercoderError as e:
        return "error", str(e), 0
    failing = [f"{t.name}: {t.status} {t.detail[:200]}" for t in verdict.tests if t.status != "ok"]
    return str(verdict.status), verdict.message + "; ".join(failing), verdict.tests_total


@cache
def verdicts() -> dict[str, tuple[str, str, int]]:
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        return dict(
            zip((f.name for f in FOLDERS), pool.map(_check, map(str, FOLDERS)), strict=True)
        )


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_own_baseline_passes_every_test(folder):
    status, message, ran = verdicts()[folder.name]
    assert status == "ok", message
    assert ran == len(load_problem(folder).tests)  # visible and hidden
