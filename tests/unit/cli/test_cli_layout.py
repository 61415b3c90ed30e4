"""One file per command, named for it, and cli.py lists them all."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

import typer

from supercoder.cli import COMMANDS, Lazy, Section, app

COMMAND_FILES = Path(__file__).resolve().parents[3] / "src" / "supercoder" / "commands"
HELPERS = {"__init__", "options", "display", "optionset", "machine"}  # shared by several commands


def leaf_commands() -> dict[str, Callable]:
    """'check' -> its function, 'bench list' -> ..., for every command cli.py registers."""
    found: dict[str, Callable] = {}

    def walk(table: Mapping[str, Lazy | Section], path: tuple[str, ...]) -> None:
        for name, entry in table.items():
            if isinstance(entry, Section):
                walk(entry.commands, (*path, name))
                continue
            module = importlib.import_module(f"supercoder.commands.{entry.module}")
            found[" ".join((*path, name))] = getattr(module, entry.function)

    walk(COMMANDS, ())
    return found


def test_the_app_is_the_table():
    """What the command line offers is what the table lists, every command built."""
    root = typer.main.get_command(app)
    assert set(root.commands) == set(COMMANDS)
    assert set(root.commands["problem"].commands) == set(COMMANDS["problem"].commands)


def test_every_command_lives_in_the_file_named_for_it():
    for name, cmd in leaf_commands().items():
        module = cmd.__module__
        assert module == "supercoder.commands." + name.replace(" ", "_").replace("-", "_"), (
            name,
            module,
        )


def test_every_command_file_is_a_command():
    files = {p.stem for p in COMMAND_FILES.glob("*.py")} - HELPERS
    assert files == {n.replace(" ", "_").replace("-", "_") for n in leaf_commands()}


def test_a_command_alone_reads_the_shared_option_texts():
    """Commands load one at a time (``cli.COMMANDS``): each command module whose options
    include a shared flag imports ``commands.options``, where it is declared, so its help
    is the same whether or not another command was loaded first."""
    from supercoder.commands.optionset import declared
    from tests.unit.project.test_architecture import import_graph, reachable

    graph = import_graph()
    for name, fn in leaf_commands().items():
        command = typer.main.get_command(app)
        for word in name.split():
            command = command.commands[word]
        flags = {o for p in command.params for o in p.opts if o.startswith("--")}
        if any(declared(f) is not None for f in flags) and f"{name}" != "version":
            assert "supercoder.commands.options" in reachable(graph, fn.__module__), name


def test_an_error_caused_by_a_ctrl_c_is_the_interrupt():
    """A library that wraps the KeyboardInterrupt of an import in its own error (as
    transformers' lazy modules do under ``train sft``) still ends as an interrupt."""
    from supercoder.cli import error_exit

    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as e:
            raise RuntimeError("Failed to import transformers.trainer") from e
    except RuntimeError as wrapped:
        assert error_exit(wrapped) == (130, "interrupted")
    assert error_exit(RuntimeError("plain"))[0] == 1
