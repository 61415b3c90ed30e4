"""`supercoder problem profile PROBLEM`: where the -O3 baseline spends its instructions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from supercoder.commands.options import BUDGET, JsonFlag, SandboxOpt, note
from supercoder.commands.optionset import but
from supercoder.errors import UserError
from supercoder.problems.loading import load_problem_arg
from supercoder.prompting.hotspots import find_hotspots, to_json
from supercoder.prompting.profiling import profile_problem
from supercoder.toolchain.baseline import baseline_asm


def profile_cmd(
    problem_dir: Annotated[
        Path, typer.Argument(help="Problem folder, or a bundled problem's name (dp_lcs).")
    ],
    as_json: JsonFlag = False,
    budget: Annotated[float, but(BUDGET, min=1.0)] = 120.0,
    top: Annotated[int, typer.Option("--top", min=1, help="Hot lines to list.")] = 15,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Profile again.")] = False,
    unsafe_no_sandbox: SandboxOpt = False,
) -> None:
    """Share of executed instructions per assembly line, loop and function of the baseline.

    Runs the gcc -O3 baseline (assembled with line info) under valgrind's cachegrind in
    the sandbox, on the VISIBLE tests only, smallest input first, until --budget
    seconds are spent (tests not reached are listed). Cached per baseline and tests.

    Example: supercoder problem profile dp_lcs
    """
    problem = load_problem_arg(problem_dir, note)
    if not problem.visible_tests:
        raise UserError(f"{problem_dir}: no visible tests to profile on")
    asm = baseline_asm(problem)
    prof = profile_problem(
        problem, budget_seconds=budget, isolation=not unsafe_no_sandbox, use_cache=not no_cache
    )
    hot = find_hotspots(prof, asm)
    data = to_json(prof, hot, asm, top=top)
    if as_json:
        typer.echo(json.dumps({"problem": problem.name, **data}, indent=2))
        return
    _print_profile(problem.name, data)


def _print_profile(name: str, data: dict) -> None:
    p = data["profile"]
    console = Console(width=max(110, Console().width))
    console.print(
        f"{name}: {data['instructions']:,} instructions in the program's code "
        f"({data['outside_instructions']:,} in libraries), {len(p['tests'])} visible "
        f"test(s) profiled in {p['seconds']:.1f}s",
        highlight=False,
    )
    if p["gave_up"]:
        console.print(f"gave up: {p['gave_up']}; not profiled: {', '.join(p['skipped'])}")
    for title, rows in (("functions", data["functions"]), ("loops", data["loops"])):
        table = Table("name", "function", "lines", "share", "instructions", title=title)
        for s in rows:
            table.add_row(
                s["name"],
                s.get("function", ""),
                f"{s['lines'][0]}-{s['lines'][1]}",
                f"{100 * s['share']:.1f}%",
                f"{s['count']:,}",
            )
        console.print(table)
    table = Table("line", "share", "instructions", title="hottest lines")
    table.add_column("text", no_wrap=True)
    for ln in data["lines"]:
        table.add_row(str(ln["line"]), f"{100 * ln['share']:.1f}%", f"{ln['count']:,}", ln["text"])
    console.print(table)
