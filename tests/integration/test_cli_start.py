"""The CLI starts fast: ``import supercoder.cli`` loads no command, and a command loads
its own file and what it needs, not every other command's (``cli.COMMANDS``)."""

from __future__ import annotations

import subprocess
import sys


def test_a_command_loads_only_its_own_module():
    """``import supercoder.cli`` imports no command; running one imports only its file
    (``supercoder version`` never loads the eval machinery)."""
    code = (
        "import sys; import supercoder.cli as c; "
        "before = {m for m in sys.modules if m.startswith('supercoder.commands.')}; "
        "sys.argv = ['supercoder', 'version']\n"
        "try: c.app()\nexcept SystemExit: pass\n"
        "after = {m for m in sys.modules if m.startswith('supercoder.')}; "
        "print(sorted(before)); print('supercoder.runs.strategies' in after, "
        "'supercoder.commands.version' in after)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, second = out.stdout.splitlines()[-2:]
    assert first == "['supercoder.commands.optionset']", out.stdout  # the options' machinery only
    assert second == "False True", out.stdout
