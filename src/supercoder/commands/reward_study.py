"""`supercoder reward study RUN`: which reward form and timing budget give a GRPO group a
trustworthy signal, predicted from the samples stored with a run's verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from supercoder.commands.options import SEED, DbOpt, JsonFile
from supercoder.errors import UserError
from supercoder.paths import atomic_write_text
from supercoder.training.reward_study import (
    DEFAULT_BUDGETS,
    DEFAULT_FORMS,
    MAX_IDENTICAL_PAID,
    RESAMPLES,
    UNCERTAIN_GATE,
    UNCERTAIN_SPREAD,
    Study,
    groups_from_store,
    study,
)
from supercoder.verify.reward import MAX_ROUNDS, parse_reward


def reward_study(
    run: Annotated[
        str | None,
        typer.Argument(help="The stored run (its name; the only one in --db if omitted)."),
    ] = None,
    db: DbOpt = None,
    form: Annotated[
        list[str] | None,
        typer.Option(
            "--form",
            help="A reward spec to study (repeatable; as --reward takes it: gated, paper, "
            "log, binary[:threshold=T], percentile[:pool=P]).",
            show_default=", ".join(DEFAULT_FORMS),
        ),
    ] = None,
    budgets: Annotated[
        str,
        typer.Option(
            "--budgets",
            help="Timing budgets to compare: rounds of pairs per completion, comma-separated.",
        ),
    ] = ",".join(str(b) for b in DEFAULT_BUDGETS),
    resamples: Annotated[
        int,
        typer.Option(min=20, max=5000, help="Simulated pairs of measurements per group."),
    ] = RESAMPLES,
    seed: Annotated[int, SEED] = 0,
    json_out: JsonFile = None,
) -> None:
    """Which reward and timing budget to train with, predicted from a stored run.

    Every verdict keeps its raw paired timing samples; for each reward form and each
    timing budget (rounds of pairs per completion) the study simulates, per group (a
    problem's completions in the run), two independent measurements of every completion
    and pays both through the rewards' one definition. It prints: agreement, the share of
    GRPO advantage signs two measurements agree on (a coin is 50%); flat, the share of
    groups with no spread (no gradient); copy and identical, how often a copy of the
    baseline or a program identical to it is paid; CPU-s, timing per completion; and the
    setting it would train with, and why. Nothing is run in the sandbox: seconds.

    Example: supercoder eval --benchmark train --strategy builds -S builds=legacy --run b
    then: supercoder reward study b --json study.json
    """
    try:
        chosen = [int(b) for b in budgets.split(",") if b.strip()]
    except ValueError:
        raise UserError(f"--budgets {budgets!r}: rounds, comma-separated (4,6,10)") from None
    if not chosen or any(not 2 <= b <= MAX_ROUNDS for b in chosen):
        raise UserError(f"--budgets: each between 2 and {MAX_ROUNDS} rounds")
    forms = [parse_reward(f) for f in (form or DEFAULT_FORMS)]  # a bad spec: one line
    name, groups = groups_from_store(str(db) if db else None, run)
    if not groups:
        raise UserError(f"run {name!r} has no finished problems to study")
    result = study(groups, forms, chosen, resamples, seed)
    show(result, name)
    if json_out is not None:
        atomic_write_text(Path(json_out), json.dumps({"run": name, **result.to_json()}, indent=2))


def show(result: Study, name: str) -> None:
    """The study's table and recommendation on stdout."""
    console = Console(width=120)
    table = Table(
        title=f"reward study of {name}: {result.groups} groups, {result.completions} "
        f"completions, {result.resamples} resamples"
    )
    cols = (
        "form",
        "rounds",
        "agreement",
        "flat",
        "copy",
        "identical",
        "on gate",
        "CPU-s",
        "signal",
    )
    for col in cols:
        table.add_column(col, justify="left" if col == "form" else "right")
    for r in result.rows:
        table.add_row(
            r.form,
            str(r.budget),
            ("-" if r.agreement is None else f"{r.agreement:.1%} +-{100 * r.half_width:.0f}")
            + ("?" if r.uncertain else ""),
            f"{r.sparsity:.1%}",
            f"{r.copy_paid:.0%}",
            f"{r.identical_paid:.1%}",
            f"{r.on_gate:.0%}",
            f"{r.cpu_s:.2f}",
            f"{r.signal:.2f}",
        )
    console.print(table)
    console.print(f"recommended: {result.why}", highlight=False)
    console.print(
        f"(signal = (1 - flat) x (2 x agreement - 1); identical paid at most "
        f"{MAX_IDENTICAL_PAID:.0%}; +-: 95% range of the agreement one pair of checks shows; "
        f"? = uncertain, the study cannot promise +-10 points: that range is wider than "
        f"+-{100 * UNCERTAIN_SPREAD:.0f}, or more than {UNCERTAIN_GATE:.0%} of the "
        f"timed completions sit on the form's gate; "
        f"study: {result.seconds:.1f} CPU-s)",
        highlight=False,
    )
    if result.cannot_predict:
        shown = "; ".join(result.cannot_predict[:5])
        more = len(result.cannot_predict) - 5
        console.print(
            f"cannot predict for {len(result.cannot_predict)}: {shown}"
            + (f" (+{more} more)" if more > 0 else ""),
            highlight=False,
        )
