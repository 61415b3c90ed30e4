"""House rules of the command layer (issue 37): a command module imports no other
command (shared pieces live in the helper modules), ``CheckConfig`` is made in one place,
and fixed choices are enums (click shows and checks them as choices)."""

from __future__ import annotations

import ast
import inspect
import typing
from enum import Enum
from pathlib import Path

import typer

from supercoder.cli import app
from tests.sourcetree import nodes, python_files

SRC = Path(__file__).resolve().parents[3] / "src" / "supercoder"
COMMANDS = SRC / "commands"
HELPERS = {"__init__", "options", "optionset", "display", "machine"}  # shared by several commands


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in nodes(path):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_no_command_module_imports_another_command():
    commands = {p.stem for p in COMMANDS.glob("*.py")} - HELPERS
    crossing = {}
    for path in COMMANDS.glob("*.py"):
        others = {
            name
            for name in _imports(path)
            if name.startswith("supercoder.commands.")
            and name.split(".")[2] in commands - {path.stem}
        }
        if others:
            crossing[path.name] = sorted(others)
    assert not crossing, crossing
    assert len(commands) > 20  # the walk saw the command files


def test_check_config_is_made_in_one_place():
    makers = []
    for path in python_files():
        for node in nodes(path):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if name == "CheckConfig":
                    makers.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert makers and {m.split(":")[0] for m in makers} == {"verify/evaluate.py"}, makers


FIXED_CHOICES = {
    "--context": {"full", "hot"},
    "--answer": {"whole", "diff"},
    "--executor": {"local", "ray"},
    "--algo": {"ppo", "grpo", "both"},
    "--transport": {"stdio", "http"},
}


def test_fixed_choices_are_enums_everywhere_they_are_taken():
    seen: dict[str, int] = {}

    def walk(command, path: str) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")
            return
        sig = inspect.signature(command.callback, eval_str=True)
        for param in command.params:
            for flag in getattr(param, "opts", ()):
                if flag in FIXED_CHOICES:
                    hint = sig.parameters[param.name].annotation
                    kinds = typing.get_args(typing.get_args(hint)[0]) or typing.get_args(hint)[:1]
                    enums = [k for k in kinds if isinstance(k, type) and issubclass(k, Enum)]
                    assert enums, (path, flag, hint)
                    assert {e.value for e in enums[0]} == FIXED_CHOICES[flag], (path, flag)
                    seen[flag] = seen.get(flag, 0) + 1

    walk(typer.main.get_command(app), "supercoder")
    assert set(seen) == set(FIXED_CHOICES), seen
    assert seen["--context"] >= 5
    # --reward is a spec (KIND[:KEY=VALUE,...]: verify.reward.parse_reward), not a choice


def test_no_literal_choice_types_in_the_source():
    hits = [p for p in SRC.rglob("*.py") if "Literal[" in p.read_text()]
    assert not hits, hits
