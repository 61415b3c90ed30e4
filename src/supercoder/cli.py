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

from supercoder.commands import analyze, bench, calibrate, core, dataset, llm, train
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

for module in (core, bench, dataset, llm, train, analyze, calibrate):
    module.register(app)


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
