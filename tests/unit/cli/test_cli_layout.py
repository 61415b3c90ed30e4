"""One file per command, named for it, and cli.py lists them all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from supercoder.cli import app

COMMANDS = Path(__file__).resolve().parents[3] / "src" / "supercoder" / "commands"
HELPERS = {"__init__", "options", "display", "optionset", "machine"}  # shared by several commands


def leaf_commands() -> dict[str, Callable]:
    """'check' -> its function, 'bench list' -> ..., for every command cli.py registers."""
    found: dict[str, Callable] = {}

    def walk(typer_app: typer.Typer, path: tuple[str, ...]) -> None:
        for cmd in typer_app.registered_commands:
            found[" ".join((*path, cmd.name or cmd.callback.__name__))] = cmd.callback
        for group in typer_app.registered_groups:
            walk(group.typer_instance, (*path, group.name))

    walk(app, ())
    return found


def test_every_command_lives_in_the_file_named_for_it():
    for name, cmd in leaf_commands().items():
        module = cmd.__module__
        assert module == "supercoder.commands." + name.replace(" ", "_").replace("-", "_"), (
            name,
            module,
        )


def test_every_command_file_is_a_command():
    files = {p.stem for p in COMMANDS.glob("*.py")} - HELPERS
    assert files == {n.replace(" ", "_").replace("-", "_") for n in leaf_commands()}
