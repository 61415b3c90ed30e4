"""The engine's limits on the command line: one declaration, one meaning, every command
that shares the machine; the old spelling ``--concurrency`` still reads (no command is
run to its end here: the options are read off the typer app, or refused at parsing)."""

from __future__ import annotations

import click
import typer
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.engine import cpu_count, every_cpu_but_one

LIMITS = ("--requests", "--workers", "--timing-slots")


def _commands() -> dict[str, click.Command]:
    root = typer.main.get_command(app)
    out: dict[str, click.Command] = {}

    def walk(cmd: click.Command, path: tuple[str, ...]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, (*path, name))
        if not getattr(cmd, "commands", None):
            out[" ".join(path)] = cmd

    walk(root, ())
    return out


def _option(cmd: click.Command, flag: str) -> click.Parameter | None:
    return next((p for p in cmd.params if p.param_type_name == "option" and flag in p.opts), None)


def test_each_limit_has_one_help_text_wherever_it_appears():
    found: dict[str, dict[str, str]] = {flag: {} for flag in LIMITS}
    for name, cmd in _commands().items():
        for flag in LIMITS:
            option = _option(cmd, flag)
            if option is not None:
                found[flag][name] = option.help or ""
    assert {"eval", "optimize"} <= set(found["--requests"])
    assert {
        "eval",
        "optimize",
        "serve",
        "mcp",
        "dataset import",
        "dataset build",
        "bench coverage",
        "train grpo",
    } <= set(found["--workers"])
    assert {"eval", "optimize", "calibrate", "serve", "mcp"} <= set(found["--timing-slots"])
    for flag, helps in found.items():
        assert len(set(helps.values())) == 1, (flag, helps)
    assert found["--workers"]["eval"].startswith("Verification workers")


def test_each_command_keeps_its_default_worker_count():
    commands = _commands()
    defaults = {
        name: option.default
        for name, cmd in commands.items()
        if (option := _option(cmd, "--workers")) is not None
    }
    assert defaults["eval"] == 1
    assert defaults["train grpo"] == 2
    assert defaults["dataset import"] == cpu_count()
    assert defaults["bench coverage"] == defaults["dataset build"] == every_cpu_but_one()
    assert defaults["serve"] is None and defaults["mcp"] is None  # the engine's own


def test_concurrency_is_the_old_name_of_requests_in_flags_and_run_files(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(app, ["eval", "--concurrency", "0"])
    assert bad.exit_code == 2 and "--requests" in bad.output  # one option, two spellings
    run_file = tmp_path / "run.toml"
    run_file.write_text("concurrency = 0\n")  # a run file stored with the old name
    refused = runner.invoke(app, ["eval", "--config", str(run_file)])
    assert refused.exit_code == 2 and "concurrency" in refused.output
    assert "not an option" not in refused.output  # it names requests, out of range
