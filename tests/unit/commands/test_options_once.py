"""Every long flag of the CLI is declared at one site with one help text (issue 37):
a walk over every command of ``supercoder.cli.app`` as click sees it."""

from __future__ import annotations

import collections
import importlib
import inspect
import pkgutil

import typer

import supercoder.commands as commands_package
from supercoder.cli import app


def _aliases() -> dict[int, str]:
    """``{id(OptionInfo): "module.NAME"}`` for the module-level ``Annotated`` aliases."""
    out: dict[int, str] = {}
    for info in pkgutil.iter_modules(commands_package.__path__):
        module = importlib.import_module(f"supercoder.commands.{info.name}")
        for name, value in vars(module).items():
            for meta in getattr(value, "__metadata__", ()):
                if isinstance(meta, typer.models.ParameterInfo):
                    out.setdefault(id(meta), f"{module.__name__}.{name}")
    return out


def flag_sites() -> dict[str, list[tuple[str, str, str]]]:
    """``{long flag: [(command, declaration site, help), ...]}`` over every command."""
    aliases = _aliases()
    found: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)

    def walk(command, path: list[str]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        sig = inspect.signature(command.callback, eval_str=True)
        where = inspect.unwrap(command.callback)
        for param in command.params:
            if param.param_type_name != "option" or param.name == "help":
                continue
            p = sig.parameters[param.name]
            infos = [
                m
                for m in getattr(p.annotation, "__metadata__", ())
                if isinstance(m, typer.models.OptionInfo)
            ]
            info = infos[0] if infos else None
            site = (
                getattr(info, "site", None)
                or aliases.get(id(info))
                or f"{where.__module__}.{where.__qualname__}:{p.name}"
            )
            for flag in (*param.opts, *param.secondary_opts):
                if flag.startswith("--"):
                    found[flag].append((" ".join(path), site, param.help or ""))

    walk(typer.main.get_command(app), [])
    return found


def test_the_walk_sees_every_command_and_the_shared_flags():
    sites = flag_sites()
    commands = {c for uses in sites.values() for c, _, _ in uses}
    assert {"eval", "optimize", "check", "train grpo", "dataset export", "serve"} <= commands
    assert len({c for c, _, _ in sites["--json"]}) >= 6
    assert len({c for c, _, _ in sites["--unsafe-no-sandbox"]}) >= 5


def test_no_long_flag_is_declared_twice_or_helped_two_ways():
    twice = {}
    for flag, uses in flag_sites().items():
        declared = {site for _, site, _ in uses}
        helps = {text for _, _, text in uses}
        if len(declared) > 1 or len(helps) > 1:
            twice[flag] = sorted({(c, site) for c, site, _ in uses})
    assert not twice, twice


def test_no_command_takes_one_spelling_twice():
    """A shared option brings its short flag (-o, -m, -b, -t) to every command that
    takes it: none may then shadow another option of the same command."""

    def walk(command, path: str) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}")
            return
        spellings = collections.Counter(
            flag for p in command.params for flag in (*p.opts, *getattr(p, "secondary_opts", ()))
        )
        assert all(n == 1 for n in spellings.values()), (path, spellings)

    walk(typer.main.get_command(app), "supercoder")
