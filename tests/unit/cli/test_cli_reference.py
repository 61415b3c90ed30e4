"""docs/cli.md is the app's own reference (regenerated, never hand-edited), every option
of the model and training commands shows its default, and the exit codes the top-level
help lists are the ones the commands use."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from supercoder.cli import app, reference_markdown
from supercoder.errors import EXIT_CODES, EXIT_MACHINE, EXIT_NOTHING_CORRECT

ROOT = Path(__file__).resolve().parents[3]
REGENERATE = (
    "python -c \"from supercoder.cli import reference_markdown as r; print(r(), end='')\" "
    "> docs/cli.md"
)


def test_the_cli_reference_is_current():
    written = (ROOT / "docs" / "cli.md").read_text()
    assert written == reference_markdown(), f"docs/cli.md is stale: run {REGENERATE}"


def test_every_command_and_option_is_in_the_reference():
    text = reference_markdown()
    for command in ("optimize", "eval", "check", "train grpo", "train sft", "problem init"):
        assert f"## `supercoder {command}`" in text
    for option in ("--samples", "--budget", "--no-time", "--target", "--num-generations"):
        assert f"`{option}`" in text


def _rows(command: str) -> list[list[str]]:
    text = reference_markdown()
    section = text.split(f"## `supercoder {command}`", 1)[1].split("\n## ", 1)[0]
    return [
        [c.strip() for c in line.strip("|").split(" | ")]
        for line in section.splitlines()
        if line.startswith("| `")
    ]


def test_every_option_of_the_model_commands_shows_its_default():
    runner = CliRunner()
    for command in ("eval", "optimize", "check", "train grpo"):
        rows = _rows(command)
        assert rows and all(default for _, default, _ in rows), (command, rows)
        shown = runner.invoke(app, [*command.split(), "--help"], env=_plain(400)).output
        options = [r for r in rows if r[0].startswith("`-") and r[1] != "required"]
        assert shown.count("[default: ") >= len(options), (command, shown)
        # rich once ate hand-written "[default: ...]" and left "per problem ." behind
        assert not re.search(r"\w \.\s", shown), shown


def _option_rows(help_text: str) -> dict[str, str]:
    """``{--option: its row}`` of a rendered ``--help``: an option's row runs on over the
    continuation lines below it (blank name column)."""
    rows: dict[str, str] = {}
    current = None
    for line in help_text.splitlines():
        cells = line.strip("│ ").split()
        if not line.startswith("│") or not cells:
            current = None
            continue
        if re.match(r"│ [ *]? {0,3}--", line):  # an option's name, not a continuation
            current = cells[0]
            rows[current] = ""
        if current is not None:
            rows[current] += " " + " ".join(cells)
    return rows


def _plain(columns: int) -> dict[str, str | None]:
    """A plain terminal of ``columns``: with LINES too, rich takes the size as given, and
    no colour switch an earlier test's library may have set makes it a dumb terminal."""
    off = dict.fromkeys(("FORCE_COLOR", "PY_COLORS", "TTY_COMPATIBLE", "NO_COLOR", "TERM"))
    size = {"COLUMNS": str(columns), "LINES": "50", "JUPYTER_COLUMNS": str(columns)}
    return {**off, **size, "JUPYTER_LINES": "50"}


def test_the_exit_codes_in_the_help_are_the_ones_commands_use():
    top = CliRunner().invoke(app, ["--help"], env=_plain(400)).output
    flat = " ".join(top.replace("│", " ").split())
    for code, meaning in EXIT_CODES.items():
        assert f"{code} {meaning}" in flat
    assert "unfinished" in EXIT_CODES[EXIT_MACHINE]  # eval's unfinished work exits 3
    assert "correct" in EXIT_CODES[EXIT_NOTHING_CORRECT]
    for path in (ROOT / "src" / "supercoder" / "commands").glob("*.py"):
        bare = re.findall(r"typer\.Exit\(([1-9]\d*)\)", path.read_text())
        assert not bare, f"{path.name}: exit with a named code from errors.py, not {bare}"
