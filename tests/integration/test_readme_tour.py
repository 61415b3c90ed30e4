"""README.md as a newcomer uses it: its tour lines pasted in order into one terminal (one
bash, started in the checkout, with no supercoder on PATH) all run, and ``command not
found`` never happens (issue 36 item 4)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import sandbox_or_skip

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```bash\n(.*?)^```", re.M | re.S)
SETUP = "bash scripts/setup.sh && .venv/bin/supercoder eval --benchmark val"
TESTS = ".venv/bin/python -m pytest -q"

# Lines run with --help instead (the command and its options still parse, so a wrong
# command name fails here too): each costs minutes, needs a key, a model download or a
# GPU, or serves until stopped. Every other tour line runs fully.
EXPENSIVE = {
    r"^supercoder check dp_lcs mine\.s +#": "a timed check: 10-20 s idle, minutes at load",
    r"^supercoder calibrate\b": "measures the machine's noise: 1-3 minutes",
    r"^supercoder optimize\b": "a build search (minutes) or a paid model (a key)",
    r"^supercoder eval --benchmark val\b": "16 problems: minutes (tested on problems/)",
    r"^supercoder eval --model\b": "a paid model: a key and the network",
    r"^supercoder problem profile\b": "the baseline under valgrind: ~30 s",
    r"^supercoder dataset import\b": "16 records rebuilt and run (tests/integration/test_import.py)",
    r"^supercoder train\b": "downloads a model; wants a GPU",
    r"^supercoder (serve|mcp)\b": "a server: runs until stopped",
}


def readme_blocks() -> list[str]:
    return FENCE.findall((ROOT / "README.md").read_text())


def tour_lines() -> list[str]:
    """The tour: every bash block after the first two (set-up and tests), in order."""
    blocks = readme_blocks()
    assert blocks[0].strip() == SETUP and blocks[1].strip() == TESTS
    return [ln for b in blocks[2:] for ln in b.splitlines() if ln.strip()]


def as_run(line: str) -> str:
    """The line as the test runs it: with ``--help`` (before its comment) if expensive."""
    if not any(re.search(p, line) for p in EXPENSIVE):
        return line
    command, hash_, comment = line.partition(" #")
    return f"{command.rstrip()} --help{'  #' + comment if hash_ else ''}"


@pytest.mark.slow
def test_every_tour_line_runs_as_written_pasted_in_order_into_one_terminal(tmp_path):
    sandbox_or_skip()
    if not (ROOT / ".venv" / "bin" / "supercoder").is_file():
        pytest.skip("no .venv in the checkout (scripts/setup.sh makes it)")
    lines = tour_lines()
    script = ["set -eo pipefail"]
    for n, line in enumerate(lines):
        script += [f"echo '::: line {n}' >&2", as_run(line)]
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.pop("SUPERCODER_DB", None)  # the default store, in this HOME
    env.update(HOME=str(home), PATH="/usr/local/bin:/usr/bin:/bin")
    done = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=ROOT,  # where the set-up line ran
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    reached = re.findall(r"::: line (\d+)", done.stderr)
    last = lines[int(reached[-1])] if reached else "(none)"
    assert "command not found" not in done.stderr, last
    assert done.returncode == 0, f"{last}\n{done.stderr[-3000:]}"
    assert len(reached) == len(lines)
    tour = home / "sc-tour"
    assert (tour / "problems" / "prog" / "source.c").is_file()
    assert (tour / "report.html").stat().st_size > 1000
    assert (home / ".local" / "share" / "supercoder" / "runs.sqlite").is_file()
