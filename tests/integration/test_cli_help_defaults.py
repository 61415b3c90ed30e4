"""Every option of every command shows its default in ``--help``, read as a user's
terminal renders it: in a fresh interpreter (a process: hence here, not in tests/unit)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from supercoder.cli import reference_markdown
from tests.unit.cli.test_cli_reference import ROOT, _option_rows, _plain

HELPS = """
import json, sys
from typer.testing import CliRunner
from supercoder.cli import app
plain = json.loads(sys.argv[1])
out = {}
for args, columns in json.loads(sys.argv[2]):
    env = {**plain, "COLUMNS": str(columns), "JUPYTER_COLUMNS": str(columns)}
    shown = CliRunner().invoke(app, [*args, "--help"], env=env)
    out[" ".join(args) + f"@{columns}"] = [shown.exit_code, shown.output]
print(json.dumps(out))
"""


def _helps(wanted: list[tuple[list[str], int]]) -> dict[str, list]:
    """Each ``--help`` rendered in a fresh interpreter: what a user's terminal shows, not
    what an earlier test's library left behind in this process (rich's terminal state)."""
    unset = {*_plain(0), "TERMINAL_WIDTH", "GITHUB_ACTIONS", "_TYPER_FORCE_DISABLE_TERMINAL"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    plain = {k: v for k, v in _plain(0).items() if v is not None and k != "COLUMNS"}
    done = subprocess.run(
        [sys.executable, "-c", HELPS, json.dumps(plain), json.dumps(wanted)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_option_line_shows_its_default_plainly():
    """Each option of every command says ``[default: ...]`` (or ``[required]``) in
    ``--help``, written as it is: typer prints a worded default (``none``, ``off``,
    ``120``) in parentheses unless ``optionset.plain_defaults`` is applied."""
    commands = re.findall(r"^## `supercoder (.+?)`", reference_markdown(), re.M)
    assert {"eval", "problem init", "train verl", "serve", "report"} <= set(commands)
    helps = _helps([(c.split(), 300) for c in commands] + [(["optimize"], 80)])
    for command in commands:
        code, output = helps[f"{command}@300"]
        assert code == 0, output
        rows = _option_rows(output)
        if command in ("eval", "optimize", "check"):
            assert {"--no-time", "--unsafe-no-sandbox"} <= rows.keys()
        assert "--help" in rows, (command, output)
        for option, row in rows.items():
            if option == "--help":
                continue
            assert "[default: " in row or "[required]" in row, (command, option, row)
            assert "[default: (" not in row, (command, option, row)
    optimize = _option_rows(helps["optimize@80"][1])
    assert "[default: 120]" in optimize["--budget"]  # the build search's budget, not "none"
    assert "[default: none: --strategy builds]" in optimize["--model"]
    assert "[default: off]" in optimize["--json"]
