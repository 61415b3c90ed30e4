"""The ``supercoder`` command line: parses options and delegates to plain functions.

Every command runs under one guard (:class:`GuardedGroup`): a bad input, a broken
machine, an unreadable store or an interrupt becomes a one-line error on stderr and an
exit code (2 bad input, 3 machine trouble, 130 interrupted), never a traceback.
``SUPERCODER_DEBUG=1`` re-raises unexpected errors with their traceback.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
import threading

import click
import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup
from typer.exceptions import TyperException

from supercoder.commands import (
    analyze,
    bench_coverage,
    bench_fuzz,
    bench_list,
    bench_tokens,
    calibrate,
    check,
    dataset_build,
    dataset_export,
    dataset_import,
    eval,
    leaderboard,
    optimize,
    problem_init,
    problem_profile,
    report,
    train_grpo,
    train_sft,
    train_verl,
    version,
)
from supercoder.errors import SupercoderError, printable

EXIT_BAD_INPUT, EXIT_MACHINE, EXIT_INTERRUPTED = 2, 3, 130
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
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "interrupted (what was finished is stored; rerun to resume)"
    if isinstance(exc, sqlite3.DatabaseError):
        full = "full" in str(exc) or "disk I/O" in str(exc)
        return (
            EXIT_MACHINE if full else EXIT_BAD_INPUT,
            f"the SQLite store is not usable: {exc} (is --db a supercoder run store?)",
        )
    if isinstance(exc, OSError):
        where = f" ({exc.filename})" if exc.filename else ""
        code = EXIT_BAD_INPUT if exc.errno in _USER_ERRNOS else EXIT_MACHINE
        return code, f"{exc.strerror or exc}{where}"
    if isinstance(exc, UnicodeError):
        return EXIT_BAD_INPUT, f"text that is not valid UTF-8 (or not encodable): {exc}"
    return 1, f"unexpected {type(exc).__name__}: {exc} (a bug; SUPERCODER_DEBUG=1 shows where)"


def report_error(exc: BaseException) -> int:
    code, message = error_exit(exc)
    first, *rest = printable(message).splitlines() or [""]
    line = Text.assemble(("error: ", "bold red"), first)
    err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)
    err.print(line)
    if rest:
        err.print("\n".join("  " + r for r in rest[:40]))
    return code


class GuardedGroup(TyperGroup):
    """The root command group: turns every escaping error into a clean exit."""

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
        "Exit codes: 0 done, 1 done but nothing correct / unfinished work, 2 bad input, "
        "3 machine trouble, 130 interrupted."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def group(name: str, help: str) -> typer.Typer:
    sub = typer.Typer(help=help, no_args_is_help=True)
    app.add_typer(sub, name=name)
    return sub


# Every command, and the file it lives in (src/supercoder/commands/<file>.py).
app.command("check")(check.check)
app.command("optimize")(optimize.optimize)
app.command("eval")(eval.eval_cmd)
app.command("leaderboard")(leaderboard.leaderboard)
app.command(
    "analyze",
    help="Name the transformation kinds (paper's nine) a candidate applies to its baseline, "
    "with evidence; or for every verified candidate of an eval run (--run).",
)(analyze.analyze)
app.command("report", help="Write a self-contained HTML page for an eval run.")(report.report)
app.command("calibrate")(calibrate.calibrate)
app.command("version", help="Print the supercoder version and toolchain context.")(version.version)

problem = group("problem", "Create and inspect problem folders.")
problem.command("init")(problem_init.problem_init)
problem.command("profile")(problem_profile.profile_cmd)

bench = group("bench", "Benchmarks: list, test coverage, fuzzed tests, token counts.")
bench.command("list", help="Problems with split, tags, test counts, size, baseline time.")(
    bench_list.list_
)
bench.command("coverage", help="Line/branch coverage of each problem's tests (gcov).")(
    bench_coverage.coverage
)
bench.command("fuzz", help="Add fuzzed differential tests (fuzz/, used as hidden tests).")(
    bench_fuzz.fuzz
)
bench.command("tokens", help="Prompt and answer tokens per problem (full/hot, whole/diff).")(
    bench_tokens.tokens
)

dataset = group("dataset", "Datasets in the SuperCoder schema: build from CodeNet, import, export.")
dataset.command("build", help="Build the benchmark from a Project CodeNet download.")(
    dataset_build.build
)
dataset.command("import", help="Import the published SuperCoder dataset as problem folders.")(
    dataset_import.import_
)
dataset.command("export", help="Write a benchmark as SuperCoder-schema Parquet or JSONL.")(
    dataset_export.export
)

train = group(
    "train",
    "Fine-tune a model on the speedup reward: TRL (GRPO, SFT) on one machine, verl on Ray.",
)
train.command("grpo")(train_grpo.grpo)
train.command("sft")(train_sft.sft)
train.command("verl")(train_verl.verl)


def main() -> None:
    code: int = 0
    try:
        app()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except (Exception, KeyboardInterrupt) as e:  # outside a command (parsing, startup)
        code = report_error(e)
    leave(code)


def leave(code: int) -> None:
    """Exit now. Threads still waiting on a hung model server would keep the interpreter
    alive at exit (it joins them): when any is left, skip that wait (stores are committed)."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and t.is_alive()]
    if any(not t.daemon for t in others):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()
