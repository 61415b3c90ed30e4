"""Terminal rendering of verdicts (rich)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from supercoder.errors import printable
from supercoder.runs.metrics import long_enough
from supercoder.runs.summary import figure_text
from supercoder.types import (
    LOAD_CHANGE,
    Provenance,
    Status,
    UnseenResult,
    Verdict,
    memorizable_note,
    memorizable_reason,
)
from supercoder.verify.reward import default_reward, holds_past_cut, paper_reward

_STYLE = {Status.OK: "green", Status.INFRA_ERROR: "magenta"}


def format_speedup(value: float | None, low: float | None = None, high: float | None = None) -> str:
    if value is None:
        return "-"
    text = f"{value:.2f}x"
    if low is not None and high is not None:
        text += f" [{low:.2f}, {high:.2f}]"
    return text


def wide_console() -> Console:
    """The terminal's console, or one 160 columns wide when output is piped (rich would
    otherwise cut tables at 80 columns)."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(width=160, highlight=False)


def print_verdict(verdict: Verdict, console: Console | None = None) -> None:
    console = console or wide_console()
    style = _STYLE.get(verdict.status, "red")
    console.print(
        Text.assemble(
            (printable(verdict.problem, newlines=False), "bold"),
            ": ",
            (str(verdict.status), style),
            f"  ({verdict.tests_passed}/{verdict.tests_total} tests passed{_split(verdict)})",
        )
    )
    short = bool(verdict.speedup and verdict.correct and not long_enough(verdict))
    if short:  # what eval does with it: untimed, no figure (a start-up ratio is none)
        console.print(
            "not timed: every timed input's baseline ran under 5 ms (start-up, not the "
            "program's work): no speedup is measured (eval counts this problem untimed too)"
        )
    elif verdict.speedup:
        s = verdict.speedup
        sig = (
            "significantly faster"
            if s.significantly_faster
            else "significantly slower"
            if s.significantly_slower
            else f"not significant at ±{s.margin:.1%}"
        )
        console.print(
            f"speedup {format_speedup(s.value, s.low, s.high)} (95% CI, {sig}; "
            f"{s.tests_timed} tests timed, {s.samples} pairs)"
        )
        if verdict.paper_speedup is not None:
            console.print(
                f"paper_speedup {verdict.paper_speedup:.2f}x (the paper's protocol: mean "
                "wall-time ratio, clamped >= 1; to compare with the paper only)"
            )
    if verdict.identical_to_baseline:
        console.print("[yellow]the candidate is the baseline copied: reward 0[/]")
    if verdict.memorizable:
        why = memorizable_note(memorizable_reason(verdict.context.measurement.domain))
        console.print(
            f"[yellow]memorizable: {escape(why)}; counted apart by eval, the default "
            "reward pays 0[/]"
        )
    console.print(reward_line(verdict, short))
    if verdict.isa is not None:
        console.print(
            printable(f"{verdict.isa.summary()} (--target {verdict.isa.target})"),
            markup=False,
            highlight=False,
        )
    measured = verdict.context.measurement
    if verdict.context.provenance.baseline:
        line = f"baseline: {verdict.context.provenance.baseline}"
        console.print(printable(line), markup=False, highlight=False)
    if measured.domain:
        console.print(printable(f"domain: {measured.domain}"), markup=False, highlight=False)
    if verdict.data is not None and verdict.data.grew:
        console.print(printable(verdict.data.summary()), markup=False, highlight=False)
    if verdict.data is not None and verdict.data.tables:
        console.print(printable(verdict.data.tables_line()), markup=False, highlight=False)
    if measured.beyond_cut is not None and verdict.speedup is not None:
        console.print(printable(strata_line(verdict)), markup=False, highlight=False)
    if measured.timing:
        console.print(printable(measured.timing), markup=False, highlight=False)
    if measured.distinct_inputs:
        line = f"timed on {measured.distinct_inputs} distinct input(s)"
        console.print(line, markup=False, highlight=False)
    if verdict.message and not short:  # the meter's own words for "not timed" (said above)
        console.print(printable(verdict.message), markup=False, highlight=False)
    if verdict.tests:
        table = Table(show_edge=False)
        for col in ("test", "status", "speedup", "baseline s", "candidate s", "pairs"):
            table.add_column(col, no_wrap=True)
        table.add_column("detail", overflow="fold", min_width=20)
        for t in verdict.tests:
            low, high = t.speedup_ci or (None, None)
            table.add_row(
                Text(printable(t.name, newlines=False)),
                str(t.status),
                "-" if short else format_speedup(t.speedup, low, high),
                _sec(t.baseline_seconds),
                _sec(t.candidate_seconds),
                str(t.pairs or ""),
                Text(printable(t.detail[:300], newlines=False)),
            )
        console.print(table)
    if verdict.unseen:
        console.print(unseen_line(verdict.unseen), markup=False, highlight=False)
    where = verdict.context.provenance
    if where != Provenance():
        line = f"{where.machine.gcc} | {where.machine.cpu} | sandbox: {where.sandbox}"
        load = verdict.context.measurement.load
        if load is not None:  # the figure belongs to the machine state it was timed in
            line += f" | timed at load {load:.2f} per CPU"
            line += floor_note(where, load)
        console.print(f"[dim]{escape(printable(line, newlines=False))}[/]")


def floor_note(where: Provenance, load: float) -> str:
    """Where a check ran busier than its noise floor was measured: both loads and the
    floor it was widened to (its interval covers a check at that load); "" otherwise."""
    at = where.floor_load
    if at is None or where.noise_floor is None or load - at < LOAD_CHANGE:
        return ""
    return (
        f", busier than its noise floor was measured at ({at:.2f}): the floor widened to "
        f"{where.noise_floor:.2%} for it"
    )


def strata_line(verdict: Verdict) -> str:
    """The speedup per stratum (below / past the cut the time budget makes), one line."""
    below, past = verdict.speedup, verdict.context.measurement.beyond_cut
    if below is None or past is None:
        return ""
    if not holds_past_cut(verdict):
        holds = "does NOT hold (the default reward pays 0)"
    elif past.low <= 1.0:
        holds = "holds by its estimate, not proven (its interval reaches 1.0x)"
    else:
        holds = "holds"
    return (
        f"strata: below the cut {format_speedup(below.value, below.low, below.high)}, past "
        f"it {format_speedup(past.value, past.low, past.high)}: the speedup {holds} past "
        f"the cut ({verdict.context.measurement.cut})"
    )


def _split(verdict: Verdict) -> str:
    """How the one test count divides: the tests listed below and the unseen ones."""
    if not verdict.unseen:
        return ""
    return f": {len(verdict.tests)} listed below, {verdict.unseen.count} the model never saw"


def reward_line(verdict: Verdict, short: bool = False) -> str:
    """The verdict's reward, on one line; none where no speedup was measured (a correct
    candidate checked with --no-time: nothing says what it would earn); ``short``: every
    timed test ran under the meter's floor (no speedup is shown: none is named)."""
    if not verdict.correct:
        return "reward 0.000 (not correct: every reward kind pays 0)"
    if verdict.speedup is None:
        return "reward: none (the speedup was not measured: --no-time)"
    other = paper_reward(verdict) or 0.0
    what = "its start-up ratio" if short else "the speedup above, unclamped"
    return (
        f"reward {default_reward(verdict) or 0.0:.3f} (gated, the default; "
        f"--reward paper would pay {other:.3f}: {what})"
    )


def unseen_line(unseen: UnseenResult) -> str:
    """The tests the model never saw, as one line: how many, one status, aggregates."""
    timed = (
        f"; {unseen.timed} timed, baseline {unseen.baseline_seconds:.4f}s, "
        f"candidate {unseen.candidate_seconds:.4f}s in all"
        if unseen.timed
        and unseen.baseline_seconds is not None
        and unseen.candidate_seconds is not None
        else ""
    )
    return (
        f"tests the model never saw: {unseen.count}, together {unseen.status}{timed} "
        "(one status for all of them: which one failed is never shown)"
    )


def _sec(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[], None]]:
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def fmt_figure(key: str, value: Any) -> str:
    """A run figure as the summary and the leaderboard print it (``figure_text``)."""
    return figure_text(key, value)
