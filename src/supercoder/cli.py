"""The ``supercoder`` command line: parses options and delegates to plain functions.

Every command runs under one guard (:class:`GuardedGroup`): a bad input, a broken
machine, an unreadable store or an interrupt becomes a one-line error on stderr and an
exit code (2 bad input, 3 machine trouble, 130 interrupted), never a traceback.
``SUPERCODER_DEBUG=1`` re-raises unexpected errors with their traceback.
"""

from __future__ import annotations

# ruff: noqa: E402  (the Ctrl-C guard below goes first, before the slow imports)
import _signal  # the C module: no import time (``signal`` builds its enums first)
import os
import sys


def _quiet_interrupt(signum: int, _frame: object) -> None:
    """Ctrl-C while the command line is still loading: exit 130 with one line."""
    os.write(2, b"error: interrupted\n")
    os._exit(130)


# Run as the command line (not imported by a library caller): a Ctrl-C that lands while
# the modules load ends quietly; ``main`` puts Python's own handler back once it starts.
if __name__ == "__main__" or os.path.basename(sys.argv[0] if sys.argv else "") == "supercoder":
    _signal.signal(_signal.SIGINT, _quiet_interrupt)

import contextlib
import errno
import functools
import importlib
import inspect
import math
import os
import re
import signal
import sqlite3
import sys
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import click
import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup
from typer.exceptions import TyperException

from supercoder.commands.optionset import plain_defaults, show_every_default, unbounded_numbers
from supercoder.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_MACHINE,
    EXIT_NOTHING_CORRECT,
    EXIT_TERMINATED,
    SupercoderError,
    UserError,
    exit_codes_text,
    printable,
)

# OSErrors that mean "the path you named is wrong" rather than "the machine is in trouble"
_USER_ERRNOS = {
    errno.ENOENT,
    errno.EACCES,
    errno.EPERM,
    errno.EISDIR,
    errno.ENOTDIR,
    errno.EEXIST,
    errno.EROFS,
    errno.ENAMETOOLONG,
    errno.ELOOP,
}


def error_exit(exc: BaseException) -> tuple[int, str]:
    """(exit code, one-line message) for an exception escaping a command."""
    if isinstance(exc, SupercoderError):
        return exc.exit_code, str(exc)
    if isinstance(exc, Terminated):
        return EXIT_TERMINATED, f"stopped by {exc.args[0]}{_resume_hint(sys.argv[1:])}"
    if isinstance(exc, KeyboardInterrupt) or _caused_by_interrupt(exc):
        return EXIT_INTERRUPTED, f"interrupted{_resume_hint(sys.argv[1:])}"
    if isinstance(exc, sqlite3.DatabaseError):
        text = str(exc)
        if "locked" in text or "busy" in text:
            return EXIT_MACHINE, (
                f"the run store is locked by another process ({text}): wait for it to "
                "finish and rerun (finished work is kept)"
            )
        if "full" in text or "disk I/O" in text:
            return EXIT_MACHINE, (
                f"the run store cannot be written ({text}): machine trouble; free some "
                "space and rerun (finished work is kept)"
            )
        return (
            EXIT_BAD_INPUT,
            f"the SQLite store is not usable: {exc} (is --db a supercoder run store?)",
        )
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        if exc.errno in _USER_ERRNOS:
            return EXIT_BAD_INPUT, f"{exc.strerror or exc}{where}"
        return EXIT_MACHINE, (
            f"{exc.strerror or exc}{where}: machine trouble, not a problem with your input; "
            "free the space or resource and rerun (finished work is kept)"
        )
    if isinstance(exc, ImportError) and not _ours(exc):
        extra = _extra_for(sys.argv[1:])
        return EXIT_BAD_INPUT, (
            f"a dependency this command needs is missing or broken ({exc}): "
            f"pip install 'supercoder[{extra}]'"
        )
    if isinstance(exc, UnicodeError):
        return EXIT_BAD_INPUT, f"text that is not valid UTF-8 (or not encodable): {exc}"
    return (
        EXIT_NOTHING_CORRECT,
        f"unexpected {type(exc).__name__}: {exc} (a bug; SUPERCODER_DEBUG=1 shows where)",
    )


def _caused_by_interrupt(exc: BaseException) -> bool:
    """An error raised because of a Ctrl-C (a library that wraps the KeyboardInterrupt
    of an import in its own error, a cleanup that failed on the way out): the interrupt."""
    seen: set[int] = set()
    cause = exc.__cause__ or exc.__context__
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop like Ctrl-C (every cleanup runs), exit 128 + signal."""


# Commands that keep what they finished and continue where they stopped when rerun.
_RESUMABLE = {("eval",), ("optimize",), ("dataset", "build")}


def _resume_hint(argv: list[str]) -> str:
    words = tuple(a for a in argv if not a.startswith("-"))[:2]
    if words[:1] in _RESUMABLE or words in _RESUMABLE:
        if words[:1] == ("optimize",) and "--db" not in argv:
            return " (nothing was kept: optimize continues only with --db FILE)"
        if words[:1] == ("eval",):
            return (
                " (what was finished is stored; rerun the same command, or supercoder eval "
                "--resume RUN, to resume)"
            )
        return " (what was finished is stored; rerun the same command to resume)"
    if words[:1] == ("calibrate",):
        return " (nothing was stored; the previous calibration is kept)"
    return ""


# the optional extra each command needs (the first words of its command line)
_EXTRAS = {
    ("train", "verl"): "verl",
    ("train", "grpo"): "train",
    ("train", "sft"): "train",
    ("env", "openenv"): "openenv",
}


def _extra_for(argv: list[str]) -> str:
    words = tuple(a for a in argv if not a.startswith("-"))[:2]
    return _EXTRAS.get(words, "all")


def _ours(exc: ImportError) -> bool:
    """An import of supercoder's own modules failing is a bug, not a missing extra."""
    return str(exc.name or "").split(".")[0] == "supercoder"


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for `... | head`


def report_error(exc: BaseException) -> int:
    if isinstance(exc, BrokenPipeError):  # the reader went away (| head): nothing to say
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    code, message = error_exit(exc)
    first, *rest = printable(message).splitlines() or [""]
    line = Text.assemble(("error: ", "bold red"), first)
    err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)
    err.print(line)
    if rest:
        err.print("\n".join("  " + r for r in rest[:40]))
    return code


@dataclass(frozen=True)
class Lazy:
    """A command: its function ``function`` in ``supercoder/commands/<module>.py``, imported
    only when the command runs or its help is shown; ``help`` where its docstring is not."""

    module: str
    function: str
    help: str | None = None


@dataclass(frozen=True)
class Section:
    """A group of commands (``supercoder problem ...``)."""

    help: str
    commands: Mapping[str, Lazy] = field(default_factory=dict)


class LazyGroup(TyperGroup):
    """A command group whose commands (``table``) are imported when one is asked for by
    name: ``supercoder check`` loads ``commands/check.py`` and what it imports, no other
    command's. ``commands`` (what a walk of the whole tree reads: the reference, help
    checks) loads them all."""

    table: Mapping[str, Lazy | Section] = {}

    def __init__(self, *args: Any, table: Mapping[str, Lazy | Section] | None = None, **kw: Any):
        super().__init__(*args, **kw)
        if table is not None:
            self.table = table

    @property
    def commands(self) -> dict[str, click.Command]:  # type: ignore[override]
        for name in self.table:
            self._load(name)
        return self._commands

    @commands.setter
    def commands(self, value: Mapping[str, click.Command]) -> None:
        self._commands = dict(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._commands[name or cmd.name or ""] = cmd

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self._commands, *(n for n in self.table if n not in self._commands)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self._commands or cmd_name not in self.table:
            return self._commands.get(cmd_name)
        return self._load(cmd_name)

    def _load(self, name: str) -> click.Command:
        if name not in self._commands:
            self._commands[name] = _build(name, self.table[name])
        return self._commands[name]


def _build(name: str, entry: Lazy | Section) -> click.Command:
    """The click command of one table entry (a command's built once per process)."""
    if isinstance(entry, Section):
        return LazyGroup(name=name, help=entry.help, no_args_is_help=True, table=entry.commands)
    return _command(name, entry)


@functools.cache
def _command(name: str, entry: Lazy) -> click.Command:
    module = importlib.import_module(f"supercoder.commands.{entry.module}")
    one = typer.Typer(add_completion=False)
    add(one, name, getattr(module, entry.function), entry.help)
    command = typer.main.get_command(one)
    plain_defaults(command)
    return command


class GuardedGroup(LazyGroup):
    """The root command group: turns every escaping error into a clean exit; every
    option under it prints its default plainly (``optionset.plain_defaults``)."""

    def invoke(self, ctx: click.Context):
        from supercoder.sandbox.tempclean import clean_stale_temp

        clean_stale_temp()
        try:
            return super().invoke(ctx)
        except (
            typer.Exit,
            typer.Abort,
            TyperException,
            click.exceptions.Exit,
            click.ClickException,
            click.exceptions.Abort,
        ):
            raise  # usage errors and explicit exits: typer/click print them
        except (Exception, KeyboardInterrupt) as e:
            if os.environ.get("SUPERCODER_DEBUG") and not isinstance(e, SupercoderError):
                raise
            raise typer.Exit(report_error(e)) from e


app = typer.Typer(
    name="supercoder",
    cls=GuardedGroup,
    help=(
        "Assembly superoptimization with LLMs, verified in a sandbox.\n\n"
        "Start with: supercoder check PROBLEM_DIR CANDIDATE.s  (is it correct? how much faster?)\n"
        "or: supercoder eval --benchmark val  (optimize every bundled val problem).\n\n"
        + exit_codes_text()
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


_HARD_LINE = re.compile(r"^(Example:|Examples:|\s|[-*] |\d+\. )")


def reflow(doc: str | None) -> str | None:
    """A docstring as help text: each paragraph's wrapped lines joined into one, so that
    the help wraps evenly at any width (piped: 80 columns); lines that start an example,
    a list item or an indented block keep their own line."""
    if not doc:
        return doc
    paragraphs = []
    for para in inspect.cleandoc(doc).split("\n\n"):
        lines: list[str] = []
        for line in para.splitlines():
            if lines and not _HARD_LINE.match(line):
                lines[-1] = f"{lines[-1]} {line.strip()}"
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def add(where: typer.Typer, name: str, command, help: str | None = None) -> None:
    """Register ``command`` as ``name`` under ``where``, its help paragraphs reflowed;
    every number option must declare its range (``unbounded_numbers``: a number outside
    it is refused at parse time, exit 2) and is refused when not finite (``nan``,
    ``inf``: no option means them)."""
    command.__doc__ = reflow(command.__doc__)
    show_every_default(command)
    unbounded = unbounded_numbers(command)
    if unbounded:  # the one rule: every number option says which numbers can work
        raise TypeError(f"{name}: number options without a range (min=/max=): {unbounded}")

    @functools.wraps(command)
    def checked(*args, **kwargs):
        for key, value in kwargs.items():
            if isinstance(value, float) and not math.isfinite(value):
                option = "--" + key.replace("_", "-")
                raise UserError(f"{option}: {value} is not a number this option can take")
        return command(*args, **kwargs)

    where.command(name, help=help)(checked)


# Every command, and the file it lives in (src/supercoder/commands/<module>.py): a command
# is its file's function, imported when it runs (``supercoder check`` loads no other).
COMMANDS: dict[str, Lazy | Section] = {
    "check": Lazy("check", "check"),
    "optimize": Lazy("optimize", "optimize"),
    "eval": Lazy("eval", "eval_cmd"),
    "leaderboard": Lazy("leaderboard", "leaderboard"),
    "analyze": Lazy(
        "analyze",
        "analyze",
        "Name the transformation kinds (the paper's nine, and lookup_table: a data table "
        "the answer adds, its size, and whether its index derives from the input) a "
        "candidate applies to its baseline, with evidence; or for every verified candidate "
        "of an eval run (--run).",
    ),
    "report": Lazy("report", "report", "Write a self-contained HTML page for an eval run."),
    "calibrate": Lazy("calibrate", "calibrate"),
    "serve": Lazy("serve", "serve"),
    "mcp": Lazy("mcp", "mcp"),
    "version": Lazy("version", "version", "Print the supercoder version and toolchain context."),
    "problem": Section(
        "Create and inspect problem folders.",
        {
            "init": Lazy("problem_init", "problem_init"),
            "profile": Lazy("problem_profile", "profile_cmd"),
            "baseline": Lazy("problem_baseline", "baseline_cmd"),
            "show": Lazy("problem_show", "show_cmd"),
            "llm-generator": Lazy("problem_llm_generator", "llm_generator_cmd"),
        },
    ),
    "bench": Section(
        "Benchmarks: list, test coverage, fuzzed tests, token counts.",
        {
            "list": Lazy(
                "bench_list",
                "list_",
                "Problems with split, tags, test counts, size, baseline time.",
            ),
            "coverage": Lazy(
                "bench_coverage", "coverage", "Line/branch coverage of each problem's tests (gcov)."
            ),
            "fuzz": Lazy(
                "bench_fuzz", "fuzz", "Add fuzzed differential tests (fuzz/, used as hidden tests)."
            ),
            "tokens": Lazy(
                "bench_tokens",
                "tokens",
                "Prompt and answer tokens per problem (full/hot, whole/diff).",
            ),
        },
    ),
    "dataset": Section(
        "Datasets in the SuperCoder schema: build from CodeNet, import, export.",
        {
            "build": Lazy(
                "dataset_build", "build", "Build the benchmark from a Project CodeNet download."
            ),
            "import": Lazy(
                "dataset_import",
                "import_",
                "Import the published SuperCoder dataset as problem folders.",
            ),
            "export": Lazy(
                "dataset_export",
                "export",
                "Write a benchmark as SuperCoder-schema Parquet or JSONL.",
            ),
            "export-trace": Lazy(
                "dataset_export_trace",
                "export_trace",
                "An evolve run's parent -> improved-child pairs (SFT, GRPO).",
            ),
        },
    ),
    "train": Section(
        "Fine-tune a model on the speedup reward: TRL (GRPO, SFT) on one machine, verl on Ray.",
        {
            "grpo": Lazy("train_grpo", "grpo"),
            "sft": Lazy("train_sft", "sft"),
            "verl": Lazy("train_verl", "verl"),
        },
    ),
    "reward": Section(
        "Rewards for RL: which form and timing budget give a GRPO group a trustworthy signal.",
        {"study": Lazy("reward_study", "reward_study")},
    ),
    "env": Section(
        "Environments for RL trainers: refinement episodes over OpenEnv.",
        {"openenv": Lazy("env_openenv", "openenv")},
    ),
}
GuardedGroup.table = COMMANDS


@app.callback()
def _root() -> None:
    # the root group's own callback: nothing to do before a command (its help is app's)
    pass


def _terminate(signum: int, _frame) -> None:
    raise Terminated(signal.Signals(signum).name)


def _utf8_streams() -> None:
    """Under an ASCII locale (``LC_ALL=C``, no UTF-8 mode) a name typed as UTF-8 (a run
    ``rün``) would stop any line that shows it: stdout and stderr write UTF-8 instead,
    the bytes the terminal sent (what came in as undecodable bytes goes out as them)."""
    import codecs

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, LookupError, ValueError, TypeError):
            if codecs.lookup(stream.encoding or "utf-8").name == "ascii":
                stream.reconfigure(encoding="utf-8", errors="surrogateescape")


def main() -> None:
    code: int = 0
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C: KeyboardInterrupt
    _utf8_streams()
    for sig in (signal.SIGTERM, signal.SIGHUP):  # stop as Ctrl-C does: cleanups run
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, _terminate)
    try:
        app()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except (Exception, KeyboardInterrupt) as e:  # outside a command, or SUPERCODER_DEBUG
        if os.environ.get("SUPERCODER_DEBUG") and not isinstance(e, SupercoderError):
            traceback.print_exc()  # what SUPERCODER_DEBUG=1 promises
        code = report_error(e)
    leave(code)


def leave(code: int) -> None:
    """Exit now. Threads still waiting on a hung model server would keep the interpreter
    alive at exit (it joins them): when any is left, skip that wait (stores are committed).
    This process's temp folders go first (threads stopped midway may hold some). A Ctrl-C
    or SIGTERM that lands during this cleanup waits for it, then sets the exit code (130,
    143) of a command that had ended well; it never leaves a traceback. An interrupted
    command (130, 143) ends at once with its code: no interpreter finalization."""
    from supercoder.sandbox.tempclean import clean_own_temp

    caught: list[int] = []
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in stops:
        with contextlib.suppress(ValueError, OSError):  # only the main thread may
            signal.signal(sig, lambda signum, _frame: caught.append(signum))
    with contextlib.suppress(Exception, KeyboardInterrupt):
        clean_own_temp()
    for sig in stops:  # from here a signal ends the process at once, quietly
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_DFL)
    if caught and code == 0:
        code = EXIT_INTERRUPTED if caught[0] == signal.SIGINT else EXIT_TERMINATED
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()]
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED) or any(not t.daemon for t in others):
        # interrupted: end now with the code. The interpreter's own exit would run
        # library finalizers that may raise the signal again (a Ctrl-C that landed inside
        # a native library's import ended train sft killed by SIGINT, status -2)
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()


RUN_FILES_TEXT = """## Run files: `--config RUN.TOML`, `eval --resume RUN`

Every command with a `--config` option reads option values from a TOML run file. A key
names an option by its long flag without the dashes (`max-tokens-per-problem`, `target`)
or by its field (`max_tokens`, `isa_target`), dashes or underscores alike; a repeatable
option takes an array; a `[GROUP]` table may hold the options of one option group
(`[opts]`, `[checks]`: the group's parameter name). Flags given on the command line
override the file. An unknown key or a value the flag would refuse is refused in one line.

```toml
# eval.toml: supercoder eval --config eval.toml
benchmark = "val"
model = ["openai:gpt-4o"]
samples = 4
no-time = true
[checks]
target = "x86-64-v3"
```

`eval` keeps each run's options in its store as such a file: `supercoder eval --resume
RUN` continues RUN with no other option (a run stored before run files continues from its
stored settings; give `--base-url` again for those)."""


def reference_markdown() -> str:
    """``docs/cli.md``: every command, argument and option with its default and help,
    from the app itself (``tests/unit/cli/test_cli_reference.py`` fails when the file is stale).
    Regenerate: ``python -c "from supercoder.cli import reference_markdown as r;
    print(r(), end='')" > docs/cli.md``."""
    root = typer.main.get_command(app)
    lines = [
        "# Command-line reference",
        "",
        "Generated from the code (`supercoder.cli.reference_markdown`; a test fails when "
        "this file is stale). Every command, its arguments and options, each with its "
        "default.",
        "",
        exit_codes_text(),
        "",
        RUN_FILES_TEXT,
        "",
    ]

    def walk(command: Any, path: list[str]) -> None:
        if hasattr(command, "commands"):  # a group (typer's own click: duck-typed)
            for name in sorted(command.commands):
                walk(command.commands[name], [*path, name])
            return
        lines.extend(_command_reference(command, path))

    walk(root, ["supercoder"])
    return "\n".join(lines).rstrip() + "\n"


def _command_reference(command: Any, path: list[str]) -> list[str]:
    args = [p for p in command.params if p.param_type_name == "argument"]
    usage = " ".join([*path, "[OPTIONS]", *(p.name.upper() for p in args if p.name)])
    summary = (command.help or "").strip().split("\n\n")[0].replace("\n", " ")
    out = [f"## `{' '.join(path)}`", "", summary, "", f"`{usage}`", ""]
    out += ["| argument or option | default | what |", "| --- | --- | --- |"]
    for p in command.params:
        if p.name == "help":
            continue
        names = " / ".join(f"`{n}`" for n in (*p.opts, *p.secondary_opts))
        if p.param_type_name == "argument":
            names = f"`{(p.name or '').upper()}`"
        default = "required" if p.required else _default_text(p)
        what = " ".join(str(getattr(p, "help", "") or "").split()).replace("|", "\\|")
        out.append(f"| {names} | {default.replace('|', chr(92) + '|')} | {what} |")
    return [*out, ""]


def _default_text(p: Any) -> str:
    shown = getattr(p, "show_default", None)
    if isinstance(shown, str):
        return shown
    value = p.default
    if value is None or isinstance(value, bool):
        return {None: "none", True: "on", False: "off"}[value]
    if isinstance(value, list | tuple):
        value = ", ".join(str(getattr(v, "value", v)) for v in value)
    return str(getattr(value, "value", value))
