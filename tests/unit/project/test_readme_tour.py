"""README.md as a newcomer uses it: its tour lines pasted in order into one terminal (one
bash, started in the checkout, with no supercoder on PATH) all run, and ``command not
found`` never happens (issue 36 item 4).

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_readme_tour.py."""

from __future__ import annotations

import re

from tests.integration.test_readme_tour import (  # noqa: F401
    EXPENSIVE,
    FENCE,
    ROOT,
    SETUP,
    TESTS,
    readme_blocks,
    tour_lines,
)


def test_the_tour_starts_by_putting_supercoder_on_the_path_and_every_line_is_one_form():
    lines = tour_lines()
    assert lines[0].startswith("source .venv/bin/activate")
    words = [ln.split()[0] for ln in lines]
    assert ".venv/bin/supercoder" not in words  # one form throughout: bare, once activated
    assert words.count("supercoder") >= 20
    for pattern in EXPENSIVE:  # the table names lines that are there
        assert any(re.search(pattern, ln) for ln in lines), pattern
