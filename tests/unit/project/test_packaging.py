"""Setting up as a newcomer does: scripts/setup.sh says what each long step does and how
long it took, and our pyproject.toml gives setuptools nothing to warn about (issue 36)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SLOW = re.compile(r"apt-get (update|install)|pip install|-m venv")


def test_every_long_step_of_setup_sh_is_announced_and_timed():
    lines = [ln.strip() for ln in (ROOT / "scripts" / "setup.sh").read_text().splitlines()]
    open_step = None
    slow_seen = 0
    for n, line in enumerate(lines):
        if line.startswith("step "):
            assert open_step is None, f"line {n + 1}: a step starts inside another"
            open_step = n
        elif line == "done_step":
            assert open_step is not None, f"line {n + 1}: done_step without a step"
            open_step = None
        elif SLOW.search(line) and not line.startswith("#"):
            slow_seen += 1
            assert open_step is not None, f"line {n + 1} runs unannounced: {line}"
    assert open_step is None and slow_seen >= 5
    text = "\n".join(lines)
    assert "done in $((SECONDS - step_start)) s" in text
    assert "source .venv/bin/activate" in text  # how to get supercoder on the PATH


def test_pyproject_gives_setuptools_nothing_to_warn_about():
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist = apply_configuration(Distribution(), ROOT / "pyproject.toml")
    assert [str(w.message).splitlines()[0] for w in caught] == []
    assert dist.metadata.license_expression == "Apache-2.0"
