"""Shared fixtures: an isolated cache, a small real problem, the sandbox guard."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

# Help is asserted as a plain terminal renders it: a CI's TERMINAL_WIDTH, or a colour
# switch that makes rich treat captured output as a terminal (and TERM=unknown as 80
# columns), would otherwise narrow every --help the tests read (typer reads these once,
# at import, before any test runs).
for _var in ("TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "NO_COLOR"):
    os.environ.pop(_var, None)

SUM_SOURCE = r"""
#include <stdio.h>
int main(void) {
    long long n = 0, x, s = 0;
    if (scanf("%lld", &n) != 1) return 0;
    for (long long i = 0; i < n && scanf("%lld", &x) == 1; i++) s += x;
    printf("%lld\n", s);
    return 0;
}
"""


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Tests never touch the user's ~/.cache/supercoder nor their run store."""
    if "SUPERCODER_CACHE" not in os.environ:
        os.environ["SUPERCODER_CACHE"] = str(tmp_path_factory.mktemp("sc-cache"))
    # problem init finds a problem's input domain at the first check instead (cached):
    # tests that make problems by the dozen do not each pay for it
    os.environ.setdefault("SUPERCODER_DOMAIN_AT_INIT", "0")
    if "SUPERCODER_DB" not in os.environ:  # nor the user's run store
        os.environ["SUPERCODER_DB"] = str(tmp_path_factory.mktemp("sc-db") / "runs.sqlite")
    yield


def sandbox_or_skip() -> None:
    """Hostile code runs only inside the sandbox: without one, fail in CI, skip elsewhere."""
    from supercoder.sandbox.box import isolation_status

    ok, why = isolation_status()
    if not ok:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide the sandbox: {why}")
        pytest.skip(f"no sandbox: {why}")


def make_sum_problem(folder: Path, hidden: bool = True) -> Path:
    """A folder-format problem: sum of n integers; 4 visible tests, 1 hidden."""
    rng = random.Random(7)
    cases = [[5], [1, 2, 3], [-4, 4, 10**12]] + [[rng.randint(-999, 999) for _ in range(200)]]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "source.c").write_text(SUM_SOURCE)
    groups = {"tests": cases, "hidden": [[rng.randint(0, 50) for _ in range(30)]] if hidden else []}
    for sub, group in groups.items():
        if not group:
            continue
        (folder / sub).mkdir(exist_ok=True)
        for i, xs in enumerate(group):
            (folder / sub / f"t{i}.in").write_text(f"{len(xs)}\n{' '.join(map(str, xs))}\n")
            (folder / sub / f"t{i}.out").write_text(f"{sum(xs)}\n")
    return folder


@pytest.fixture
def sum_problem_dir(tmp_path) -> Path:
    return make_sum_problem(tmp_path / "sum")
