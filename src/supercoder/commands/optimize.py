"""``supercoder optimize``: one problem, best-of-N (and refinement), every answer verified;
it writes an answer only if it is significantly faster than gcc -O3."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from supercoder.codec import encode
from supercoder.commands.machine import engine_options, installs_engine
from supercoder.commands.options import (
    CFLAGS,
    DB,
    INPUTS,
    LDFLAGS,
    OUTPUT,
    RUN,
    JsonFlag,
    ModelRunConfig,
    err,
    note,
)
from supercoder.commands.optionset import but, with_config
from supercoder.errors import (
    EXIT_MACHINE,
    EXIT_NOTHING_CORRECT,
    InfraError,
    UserError,
    check_writable,
    printable,
    safe_slug,
)
from supercoder.models.deadline import Deadline
from supercoder.paths import atomic_write_text, temp_prefix
from supercoder.problems.init import InitConfig, init_problem
from supercoder.problems.loading import is_problem_dir, kept_paths, load_problem, load_problem_arg
from supercoder.runs.dispatch import search
from supercoder.runs.eval_run import dropped_reason, run_eval
from supercoder.runs.metrics import answer_origin, long_enough, search_note
from supercoder.runs.store import Store
from supercoder.runs.strategies import make_verifier
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import program_isa
from supercoder.types import MEMORIZABLE_WHY, load_change, memorizable_reason


@with_config(ModelRunConfig, "opts", machine=engine_options())
@installs_engine
def optimize(
    target: Annotated[Path, typer.Argument(help="A problem folder, or a .c file with --inputs.")],
    output: Annotated[Path | None, but(OUTPUT, show_default="NAME.opt.s")] = None,
    inputs: Annotated[Path | None, INPUTS] = None,
    cflags: Annotated[str, CFLAGS] = "",
    ldflags: Annotated[str, LDFLAGS] = "",
    as_json: JsonFlag = False,
    db: Annotated[Path | None, but(DB, show_default="none: nothing kept")] = None,
    run: Annotated[str | None, but(RUN, show_default="optimize:NAME@MODEL")] = None,
    *,
    opts: ModelRunConfig,
) -> None:
    """Ask MODEL for faster assembly for one problem; write it only if it is faster.

    --strategy evolve improves the best verified programs generation after generation
    (--samples answers in all; one progress line per generation on stderr); its answer
    is re-checked fresh and written only if significantly faster, as below.

    Every answer is verified (sandbox, the problem's output comparison on every test,
    then timed). The best answer is written to -o (default NAME.opt.s in the current
    folder, NAME made safe for a file name) only if it is significantly faster than
    gcc -O3 (its 95% CI lies above the practical band around 1, on a test long enough
    to time); otherwise the -O3 baseline is written and you are told no faster program
    was found, so optimize never hands back a slower program. With --no-time nothing
    can be shown faster: the best correct answer is written, marked as not timed.
    Exit code 1 when no answer was correct.

    Example: supercoder optimize dp_lcs --samples 4 -o lcs.s
    """
    specs = opts.specs()
    settings = opts.strategy_config(specs)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("opt")) as tmp:
        problem = _load_target(target, inputs, Path(tmp), cflags, ldflags)
        path = output or Path(f"{safe_slug(problem.name)}.opt.s")
        check_writable(path, "-o", kept_paths(problem))
        llms = [Deadline(m, opts.deadline) for m in opts.load_models(specs)]
        if not as_json:
            err.print(printable(_starting(problem.name, specs, opts.no_time), newlines=False))
        outcome = _search(problem, target, specs, llms, settings, opts, db, run)
    chosen = _faster_answer(outcome, opts.no_time)
    note = search_note(outcome)
    isa = _write_answer(path, problem, outcome, chosen, note, opts)
    if as_json:
        data = {**_outcome_json(outcome, path, chosen, note), "isa": encode(isa)}
        data["memorizable"] = problem.memorizable
        typer.echo(json.dumps(data, indent=2))
    else:
        _print_outcome(outcome, path, chosen, opts.no_time)
        if note:
            typer.echo(printable(f"the search's {note}"))
        typer.echo(printable(f"{path}: {isa.summary()} (--target {isa.target})"))
    _exit_for(outcome)


def _starting(name: str, specs: list[str], no_time: bool) -> str:
    """The line that says what optimize is about to do and how long it takes."""
    how = (
        "correctness only (--no-time)"
        if no_time
        else "answers built, checked and timed: this takes minutes (about 2-3 "
        "with the build search; --no-time is faster); Ctrl-C stops"
    )
    return f"optimizing {name} with {'+'.join(specs) or 'the build search'}: {how}"


def _search(problem, target, specs, llms, settings, opts: ModelRunConfig, db, run):
    """Every answer of the strategy, verified (journaled in the run store ``db`` when one
    is given), with the problem's -O3 baseline kept beside them (written when no answer
    is faster)."""
    config = opts.verify_config()
    if db is not None:
        name = run or f"optimize:{problem.name}@{opts.run_model(specs, settings)}"
        run_config = opts.run_config(specs, settings, str(Path(target).resolve()), name=name)
        outcome = _stored_search(problem, llms, run_config, db, config, _progress)
    else:
        outcome = search(
            problem, llms, settings, verify=make_verifier(config), on_progress=_progress
        )
    if outcome.meta.baseline_asm is None:
        outcome = replace(outcome, meta=replace(outcome.meta, baseline_asm=baseline_asm(problem)))
    return outcome


def _write_answer(path: Path, problem, outcome, chosen, note: str, opts: ModelRunConfig):
    """Write the chosen answer to ``path``, else the -O3 baseline with a comment saying
    why (the build search's note), a memorizable problem's answer with one saying its
    speedup is on the visible tests; what the written program needs of the CPU."""
    written = chosen.candidate.asm if chosen else outcome.meta.baseline_asm
    isa = _written_isa(chosen, written or "", opts.isa_target, not opts.unsafe_no_sandbox)
    if chosen is None and note:  # the answer file says why it may be the baseline
        written = f"{_note_header(outcome)}{written or ''}"
    if problem.memorizable:  # its speedup is on the visible tests: a comment, not code
        written = f"# supercoder: {memorizable_line(problem.memorizable_why)}\n{written or ''}"
    atomic_write_text(path, written or "")
    return isa


def _exit_for(outcome) -> None:
    """Exit 3 when every answer was lost to machine trouble (saying why), 1 when no
    answer was correct; return otherwise."""
    best = outcome.best
    if best is None and outcome.attempts:  # every answer lost to machine trouble
        err.print(Text(printable(f"not verified: {dropped_reason(outcome)}")))
        raise typer.Exit(EXIT_MACHINE)
    if not (best and best.verdict.correct):
        raise typer.Exit(EXIT_NOTHING_CORRECT)


def _progress(step) -> None:
    """The evolutionary search's line per generation, on stderr."""
    err.print(Text(printable(step.line())), soft_wrap=True)


def _stored_search(problem, llms, run_config, db, config, progress):
    """The search journaled in the run store ``db`` (``run_config``: the run's identity,
    its target and deadline among it): a killed ``optimize`` continues when run again."""
    store = Store(db)
    try:
        result = run_eval(
            [problem],
            llms if len(llms) != 1 else llms[0],
            run_config,
            store,
            verify=make_verifier(config),
            on_progress=progress,
        )
    finally:
        store.close()
    if result.failed:
        raise InfraError(f"{problem.name}: {result.failed[problem.name]} (rerun to continue)")
    return result.outcomes[0]


def _faster_answer(outcome, no_time: bool):
    """The answer to hand back: the chosen answer when it is significantly faster on a
    test long enough to time, as re-checked afresh (``strategies.confirm_best``: the
    figure that picked it is not the one that proves it); with --no-time the best correct
    one; None means the baseline."""
    best = outcome.best
    if no_time:
        return best if best and best.verdict.correct else None
    if best is None or best.dropped or not long_enough(best.verdict):
        return None
    return best if best.verdict.significantly_faster else None


def _written_isa(chosen, written: str, target, sandbox: bool):
    """What the written program needs: its verdict's scan, or (the baseline) a scan of it."""
    if chosen is not None and chosen.verdict.isa is not None:
        return chosen.verdict.isa

    return program_isa(written, target, isolation=sandbox)


def _load_target(target: Path, inputs: Path | None, tmp: Path, cflags: str = "", ldflags: str = ""):
    if target.is_dir() or (not target.exists() and target.suffix != ".c"):
        return load_problem_arg(target, note)  # a folder, or a bundled problem's name
    if target.suffix != ".c" or not target.is_file():
        raise UserError(f"{target}: expected a problem folder or a .c file")
    if inputs is None:
        if is_problem_dir(target.parent) and target.name == "source.c":
            return load_problem(target.parent)
        raise UserError(f"{target}: a bare .c file needs --inputs DIR (one input file per test)")

    opts = InitConfig(cflags=cflags, ldflags=ldflags)
    return load_problem(init_problem(target, inputs, tmp / target.stem, options=opts))


def _outcome_json(outcome, path: Path, chosen, note: str = "") -> dict[str, Any]:
    best = outcome.best
    return {
        "problem": outcome.problem,
        "written": str(path),
        "search_note": note,
        "improved": chosen is not None,
        "wrote_baseline": chosen is None,
        "written_answer": {"sample": chosen.sample, "round": chosen.round} if chosen else None,
        "best": _attempt_json(best) if best else None,
        "attempts": [_attempt_json(a) for a in outcome.attempts],
    }


def _attempt_json(a) -> dict[str, Any]:
    return {
        "sample": a.sample,
        "round": a.round,
        "tries": a.tries,
        "origin": a.origin.to_json(),
        "verdict": a.verdict.to_json(),
    }


def _print_outcome(outcome, path: Path, chosen, no_time: bool) -> None:
    title = printable(f"{outcome.problem}: {len(outcome.attempts)} answer(s) verified")
    table = Table(title=Text(title))
    columns = (
        "sample",
        "round",
        "answer",
        "status",
        "tests",
        "speedup (95% CI)",
        "copy",
        "runs on",
    )
    for col in columns:
        table.add_column(col, overflow="fold")
    for a in outcome.attempts:
        v = a.verdict
        table.add_row(
            str(a.sample),
            str(a.round),
            printable(answer_origin(a)),
            v.status.value,
            f"{v.tests_passed}/{v.tests_total}",
            _speedup_text(v),
            "yes" if v.identical_to_baseline else "",
            _level(v),
        )
    console = Console(markup=False, highlight=False)
    if not console.is_terminal:
        console = Console(width=160, markup=False, highlight=False)
    console.print(table)
    searched = _tried_table(outcome)
    if searched is not None:
        console.print(searched)
    if any(a.verdict.correct and a.verdict.significantly_faster for a in outcome.attempts):
        typer.echo("* significantly faster (95% CI above the practical band around 1x)")
    best = outcome.best
    if chosen is not None:
        what = "not timed" if no_time else _speedup_text(chosen.verdict)
        typer.echo(printable(f"best: {answer_origin(chosen)}: {what}"))
        for line in () if no_time else confirmation_lines(chosen.verdict):
            typer.echo(printable(line))
        typer.echo(printable(f"wrote {path}"))
        return
    if best and best.verdict.correct:
        typer.echo(
            printable(
                f"no faster program was found (best: {_speedup_text(best.verdict)}); "
                f"wrote the gcc -O3 baseline to {path}"
            )
        )
        return
    why = best.verdict.message.splitlines()[0] if best and best.verdict.message else ""
    why = printable(why[:300])
    typer.echo(
        printable(
            f"no correct answer ({best.verdict.status.value if best else 'all dropped'}) {why}"
        )
    )
    typer.echo(printable(f"no faster program was found; wrote the gcc -O3 baseline to {path}"))


def _note_header(outcome) -> str:
    """The line the answer file starts with to say what the search left undone (its
    answers' provenance says it: ``StrategyProvenance.note_header``)."""
    kept = (a.origin.provenance for a in outcome.attempts if a.origin.provenance is not None)
    return next((head for p in kept if (head := p.note_header())), "")


def _tried_table(outcome, limit: int = 200) -> Table | None:
    """What the search tried (its answers' provenance says it:
    ``StrategyProvenance.tried``; the build search: each build's label, how far it got,
    its speedup); None when no answer says."""
    kept = (a.origin.provenance for a in outcome.attempts if a.origin.provenance is not None)
    tried = next((t for p in kept if (t := p.tried()) is not None and t.rows), None)
    if tried is None:
        return None
    table = Table(title=Text(printable(tried.title)))
    table.add_column(tried.what, no_wrap=True, overflow="ellipsis", max_width=72)
    table.add_column("status", no_wrap=True, min_width=15)
    table.add_column("speedup (95% CI)", no_wrap=True, min_width=22)
    table.add_column("detail", no_wrap=True, overflow="ellipsis", max_width=30)
    for row in tried.rows[:limit]:
        ci, speed = row.ci, row.speedup
        text = "-" if speed is None else f"{speed:.3f}x"
        if ci and ci[0] is not None and ci[1] is not None:
            text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
        detail = row.detail.splitlines()[0][:80] if row.detail else ""
        table.add_row(printable(row.label), printable(row.status), text, printable(detail))
    if len(tried.rows) > limit:
        table.caption = f"and {len(tried.rows) - limit} more (--json lists them all)"
    return table


def _level(v) -> str:
    """The lowest x86-64 level the answer runs on (``-``: not built)."""
    if v.isa is None:
        return "-"
    return v.isa.level or "no level: " + ",".join(v.isa.extensions)


def memorizable_line(why: str) -> str:
    """The comment a memorizable problem's answer file starts with."""
    return (
        f"memorizable: {why or MEMORIZABLE_WHY}, so its speedup is measured on its "
        "visible tests (a program printing the expected output would pass them)"
    )


def confirmation_lines(v) -> list[str]:
    """How the reported figure was measured: its own check (re-checked afresh apart from
    the check that picked it, ``strategies.confirm_best``), that first figure, and the
    machine's load at each, marked when they differ (``types.load_change``)."""
    m = v.context.measurement
    at = f" at load {m.load:.2f} per CPU" if m.load is not None else ""
    if m.checks < 2 or m.first_check is None:
        return [f"  this figure is the answer's own check{at}"] if at else []
    first = m.first_check
    then = f" at load {m.first_check_load:.2f}" if m.first_check_load is not None else ""
    lines = [
        f"  this figure is the answer's own confirming check{at}, apart from the check "
        f"that picked it ({first.value:.3f}x [{first.low:.3f}, {first.high:.3f}]{then})"
    ]
    note = load_change(m.first_check_load, m.load)
    if note:
        lines.append(f"  note: {note}")
    sp = v.speedup
    if sp is not None and (sp.high < first.low or sp.low > first.high):
        lines.append(
            f"  note: the two checks disagree beyond both intervals ({first.value:.3f}x "
            f"then, {sp.value:.3f}x now): the machine's state changed between them (both "
            "drew the problem's sizes); the figure above is the later one, and "
            "`supercoder check` gives one for the machine as it is"
        )
    return lines


def _speedup_text(v) -> str:
    if not v.correct:
        return "-"
    if v.speedup is None:
        return "not timed"
    if not long_enough(v):  # as check and eval say it: a start-up ratio is no figure
        return "not timed (every timed input's baseline ran under 5 ms)"
    sp = v.speedup
    mark = " *" if v.significantly_faster else ""
    why = memorizable_reason(v.context.measurement.domain)
    memo = f" (memorizable: {why}, timed on its visible tests)" if v.memorizable else ""
    return f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}]{mark}{memo}"
