"""LLM commands: ``optimize`` (one problem), ``eval`` (a benchmark), ``leaderboard``."""

from __future__ import annotations

import html
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from supercoder.errors import UserError, printable
from supercoder.store import DEFAULT_DB

if TYPE_CHECKING:
    from supercoder.summary import RunSummary

err = Console(stderr=True, markup=False, highlight=False, soft_wrap=True)

ModelOpt = Annotated[
    str, typer.Option("--model", "-m", help="compiler | openai:M | anthropic:M | hf:PATH.")
]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="OpenAI/Anthropic-compatible server URL.")
]
SamplesOpt = Annotated[
    int | None,
    typer.Option(
        "--samples",
        "-n",
        min=1,
        help="Samples per problem [default: 1; compiler: at most 64 builds tried].",
    ),
]
RoundsOpt = Annotated[
    int, typer.Option("--rounds", "-k", min=1, help="Answers per sample chain (1: no refinement).")
]
TempOpt = Annotated[float, typer.Option("--temperature", "-t", help="Sampling temperature.")]
NoTimeOpt = Annotated[bool, typer.Option("--no-time", help="Check correctness only; no timing.")]
UnsafeOpt = Annotated[
    bool, typer.Option("--unsafe-no-sandbox", help="Run candidates WITHOUT isolation (dangerous).")
]
DbOpt = Annotated[Path, typer.Option("--db", help="SQLite file of eval runs.")]
TimeoutOpt = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        help="Seconds to wait for the model server per request (a request that times out "
        "twice is given up: the problem stays unfinished, a rerun retries it).",
    ),
]
DeadlineOpt = Annotated[
    float,
    typer.Option(
        "--deadline", min=1.0, help="Seconds of model time per problem at most (all requests)."
    ),
]
ContextOpt = Annotated[
    str,
    typer.Option(
        "--context", help="full: the -O3 assembly (the paper's prompt); hot: profile-annotated "
        "(# NN.N% per hot line), cold functions elided."),
]  # fmt: skip
AnswerOpt = Annotated[
    str,
    typer.Option(
        "--answer", help="whole: the model writes the whole program; diff: SEARCH/REPLACE "
        "edit blocks against the shown assembly."),
]  # fmt: skip
BudgetOpt = Annotated[
    float | None,
    typer.Option(
        "--budget", min=0.1,
        help="compiler model: CPU seconds of build search per problem [default: 60].",
    ),
]  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("optimize")(optimize)
    app.command("eval")(eval_cmd)
    app.command("leaderboard")(leaderboard)


# --- optimize ----------------------------------------------------------------------


def optimize(
    target: Annotated[Path, typer.Argument(help="A problem folder, or a .c file with --inputs.")],
    model: ModelOpt = "compiler",
    samples: SamplesOpt = None,
    rounds: RoundsOpt = 1,
    temperature: TempOpt = 0.7,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Where to write the best .s.")
    ] = None,
    inputs: Annotated[
        Path | None, typer.Option("--inputs", help="Input files for a bare .c.")
    ] = None,
    cflags: Annotated[
        str, typer.Option("--cflags", help="Extra gcc flags for a bare .c (e.g. -fopenmp).")
    ] = "",
    ldflags: Annotated[str, typer.Option("--ldflags", help="Extra link flags for a bare .c.")] = "",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    no_time: NoTimeOpt = False,
    unsafe_no_sandbox: UnsafeOpt = False,
    base_url: BaseUrlOpt = None,
    timeout: TimeoutOpt = 300.0,
    deadline: DeadlineOpt = 1800.0,
    context: ContextOpt = "full",
    answer: AnswerOpt = "whole",
    budget: BudgetOpt = None,
) -> None:
    """Ask MODEL for faster assembly for one problem; write it only if it is faster.

    Every answer is verified (sandbox, the problem's output comparison on every test,
    then timed). The best answer is written to -o (default NAME.opt.s in the current
    folder, NAME made safe for a file name) only if it is significantly faster than
    gcc -O3 (its 95% CI lies above the practical band around 1, on a test long enough
    to time); otherwise the -O3 baseline is written and you are told no faster program
    was found, so optimize never hands back a slower program. With --no-time nothing
    can be shown faster: the best correct answer is written, marked as not timed.
    Exit code 1 when no answer was correct.

    Example: supercoder optimize src/supercoder/data/bench/dp_lcs --samples 4 -o lcs.s
    """
    from supercoder.answers import check_modes
    from supercoder.errors import check_writable, safe_slug
    from supercoder.evaluate import EvalConfig
    from supercoder.models import load_model
    from supercoder.models.deadline import Deadline
    from supercoder.strategies import Settings, make_verifier, solve
    from supercoder.verify import VerifyConfig

    check_modes(context, answer)
    model = with_budget(model, budget)
    with tempfile.TemporaryDirectory(prefix="sc-opt-") as tmp:
        problem = _load_target(target, inputs, Path(tmp), cflags, ldflags)
        path = output or Path(f"{safe_slug(problem.name)}.opt.s")
        check_writable(path, "-o")
        llm = Deadline(load_model(model, base_url=base_url, timeout=timeout), deadline)
        config = VerifyConfig(EvalConfig(sandbox=not unsafe_no_sandbox, time=not no_time))
        settings = Settings(default_samples(model, samples), rounds, temperature,
                            context=context, answer=answer)  # fmt: skip
        outcome = solve(problem, llm, settings, verify=make_verifier(config))
    best = outcome.best
    chosen = _faster_answer(outcome, no_time)
    path.write_text((chosen.candidate.asm if chosen else outcome.meta.get("baseline_asm")) or "")
    if as_json:
        typer.echo(json.dumps(_outcome_json(outcome, path, chosen), indent=2))
    else:
        _print_outcome(outcome, path, chosen, no_time)
    if best is None and outcome.attempts:  # every answer lost to machine trouble
        from supercoder.runs import dropped_reason

        err.print(Text(printable(f"not verified: {dropped_reason(outcome)}")))
        raise typer.Exit(3)
    if not (best and best.verdict.correct):
        raise typer.Exit(1)


def _faster_answer(outcome, no_time: bool):
    """The answer to hand back: the fastest of those significantly faster on a test long
    enough to time (with --no-time: the best correct one); None means the baseline."""
    from supercoder.metrics import long_enough

    best = outcome.best
    if no_time:
        return best if best and best.verdict.correct else None
    faster = [a for a in outcome.attempts if not a.dropped and a.verdict.significantly_faster
              and long_enough(a.verdict)]  # fmt: skip
    return max(faster, key=lambda a: a.verdict.speedup.value, default=None)


def with_budget(model: str, budget: float | None) -> str:
    """The model spec with ``--budget`` folded in (``compiler:budget=S``)."""
    if budget is None:
        return model
    provider, _, target = model.partition(":")
    if provider != "compiler":
        raise UserError("--budget applies to the compiler model only")
    return f"compiler:{','.join(filter(None, (target, f'budget={budget:g}')))}"


def default_samples(model: str, samples: int | None) -> int:
    """1 for a model; every build for the offline ``compiler`` (the evaluator picks)."""
    if samples is not None:
        return samples
    if model.split(":", 1)[0] == "compiler":
        from supercoder.models.compiler import default_samples as compiler_samples

        return compiler_samples(model.partition(":")[2] or None)
    return 1


def _load_target(target: Path, inputs: Path | None, tmp: Path, cflags: str = "", ldflags: str = ""):
    from supercoder.problems import is_problem_dir, load_problem

    if target.is_dir():
        return load_problem(target)
    if target.suffix != ".c" or not target.is_file():
        raise UserError(f"{target}: expected a problem folder or a .c file")
    if inputs is None:
        if is_problem_dir(target.parent) and target.name == "source.c":
            return load_problem(target.parent)
        raise UserError(f"{target}: a bare .c file needs --inputs DIR (one input file per test)")
    from supercoder.problem_init import InitOptions, init_problem

    opts = InitOptions(cflags=cflags, ldflags=ldflags)
    return load_problem(init_problem(target, inputs, tmp / target.stem, options=opts))


def _outcome_json(outcome, path: Path, chosen) -> dict[str, Any]:
    best = outcome.best
    return {
        "problem": outcome.problem,
        "written": str(path),
        "improved": chosen is not None,
        "wrote_baseline": chosen is None,
        "written_answer": {"sample": chosen.sample, "round": chosen.round} if chosen else None,
        "best": _attempt_json(best) if best else None,
        "attempts": [_attempt_json(a) for a in outcome.attempts],
    }


def _attempt_json(a) -> dict[str, Any]:
    return {"sample": a.sample, "round": a.round, "tries": a.tries, "origin": a.origin,
            "verdict": a.verdict.to_json()}  # fmt: skip


def _print_outcome(outcome, path: Path, chosen, no_time: bool) -> None:
    from supercoder.metrics import answer_origin

    title = printable(f"{outcome.problem}: {len(outcome.attempts)} answers verified")
    table = Table(title=Text(title))
    for col in ("sample", "round", "answer", "status", "tests", "speedup (95% CI)", "copy"):
        table.add_column(col, overflow="fold")
    for a in outcome.attempts:
        v = a.verdict
        table.add_row(str(a.sample), str(a.round), printable(answer_origin(a)), v.status.value,
                      f"{v.tests_passed}/{len(v.tests)}", _speedup_text(v),
                      "yes" if v.identical_to_baseline else "")  # fmt: skip
    console = Console(markup=False, highlight=False)
    if not console.is_terminal:
        console = Console(width=160, markup=False, highlight=False)
    console.print(table)
    typer.echo("* significantly faster (95% CI above the practical band around 1x)")
    best = outcome.best
    if chosen is not None:
        what = "not timed" if no_time else _speedup_text(chosen.verdict)
        typer.echo(printable(f"best: {answer_origin(chosen)}: {what}"))
        typer.echo(printable(f"wrote {path}"))
        return
    if best and best.verdict.correct:
        typer.echo(printable(f"no faster program was found (best: {_speedup_text(best.verdict)}); "
                             f"wrote the gcc -O3 baseline to {path}"))  # fmt: skip
        return
    why = best.verdict.message.splitlines()[0] if best and best.verdict.message else ""
    why = printable(why[:300])
    typer.echo(f"no correct answer ({best.verdict.status.value if best else 'all dropped'}) {why}")
    typer.echo(printable(f"no faster program was found; wrote the gcc -O3 baseline to {path}"))


def _speedup_text(v) -> str:
    if not v.correct:
        return "-"
    if v.speedup is None:
        return "not timed"
    sp = v.speedup
    mark = " *" if v.significantly_faster else ""
    return f"{sp.value:.3f}x [{sp.low:.3f}, {sp.high:.3f}]{mark}"


# --- eval --------------------------------------------------------------------------


def eval_cmd(
    model: ModelOpt = "compiler",
    benchmark: Annotated[
        str, typer.Option("--benchmark", "-b", help="train | val | all | a folder | a .jsonl.")
    ] = "val",
    samples: SamplesOpt = None,
    rounds: RoundsOpt = 1,
    temperature: TempOpt = 0.7,
    run: Annotated[
        str | None, typer.Option("--run", help="Run name (default MODEL@BENCH).")
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, help="Verification processes (1: in-process).")
    ] = 1,
    executor: Annotated[str, typer.Option("--executor", help="local | ray.")] = "local",
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Problems in flight (model requests).")
    ] = 4,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the summary as JSON here.")
    ] = None,
    db: DbOpt = DEFAULT_DB,
    no_time: NoTimeOpt = False,
    unsafe_no_sandbox: UnsafeOpt = False,
    base_url: BaseUrlOpt = None,
    timeout: TimeoutOpt = 300.0,
    deadline: DeadlineOpt = 1800.0,
    context: ContextOpt = "full",
    answer: AnswerOpt = "whole",
    budget: BudgetOpt = None,
) -> None:
    """Optimize and verify every problem of a benchmark; print the paper's metrics.

    Results go to an SQLite store (--db); re-running the same --run resumes it: finished
    problems are skipped and no stored answer is verified again. A problem whose model
    or machine failed (server down or hung, disk full, ...) is not finished and not
    scored: rates still divide by the whole benchmark, the problem is named, and the
    exit code is 3: rerun to retry it. Ctrl-C stops at once, keeping what is stored.

    Example: supercoder eval --benchmark val --json summary.json
    """
    from supercoder.answers import check_modes
    from supercoder.errors import check_writable
    from supercoder.models import load_model
    from supercoder.problems import load_benchmark
    from supercoder.store import RunSpec, Store
    from supercoder.strategies import Settings

    if json_out:
        check_writable(json_out, "--json")
    check_modes(context, answer)
    model = with_budget(model, budget)
    problems = load_benchmark(benchmark)
    spec = RunSpec(
        model=model, benchmark=benchmark,
        settings=Settings(default_samples(model, samples), rounds, temperature,
                          context=context, answer=answer),
        time=not no_time, sandbox=not unsafe_no_sandbox, name=run, workers=workers,
        executor=executor, concurrency=concurrency, deadline=deadline,
    )  # fmt: skip
    llm = load_model(model, base_url=base_url, concurrency=concurrency, timeout=timeout)
    store = Store(db)
    try:
        result = _run_with_progress(problems, llm, spec, store)
    finally:
        store.close()
    print_summary(result.name, result.summary)
    if json_out:
        json_out.write_text(json.dumps(result.summary.to_json(), indent=2, default=str) + "\n")
        err.print(f"summary written to {json_out}")
    if result.failed:
        for name, why in sorted(result.failed.items()):
            err.print(Text.assemble(("unfinished ", "yellow"), printable(f"{name}: {why}")))
        err.print(
            Text(
                printable(
                    f"{len(result.failed)} problem(s) unfinished, not scored: "
                    f"rerun with --run {result.name} to retry them"
                )
            )  # fmt: skip
        )
        raise typer.Exit(3)


def _run_with_progress(problems, llm, spec, store):
    """On a terminal, a live bar (done/total, elapsed, ETA, running geomean); otherwise
    one line per finished problem on stderr: name, status, speedup [CI], seconds."""
    from rich.markup import escape
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from supercoder.runs import run_eval

    tally = _Tally()
    columns = ("{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               "ETA", TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task(spec.run_name, total=len(problems))

        def on_start(todo: int, skipped: int) -> None:
            if skipped:
                err.print(f"resuming {spec.run_name}: {skipped} problem(s) already done")
            progress.update(task, completed=skipped)

        def on_problem(name: str, outcome) -> None:
            line = tally.add(name, outcome)
            if not err.is_terminal:
                err.print(Text(printable(line)), soft_wrap=True)
            desc = escape(printable(f"{spec.run_name} ({tally.status()})"))
            progress.update(task, advance=1, description=desc)

        return run_eval(problems, llm, spec, store, on_start=on_start, on_problem=on_problem)


class _Tally:
    """Running figures of an eval for its progress display."""

    def __init__(self) -> None:
        self.correct = self.unfinished = 0
        self.speedups: list[float] = []

    def add(self, name: str, outcome) -> str:
        from supercoder.metrics import problem_record

        if outcome is None or outcome.best is None:
            self.unfinished += 1
            return f"{name}  unfinished"
        r = problem_record(outcome)
        assert r is not None  # outcome.best is set
        self.correct += r.correct
        if r.timed is not False and r.speedup:
            self.speedups.append(r.speedup)
        ci, timed = r.speedup_ci, r.timed
        if timed is None:
            speed = "not timed"
        elif timed is False:
            speed = "untimed (every test under 5 ms)"
        else:
            speed = f"{r.speedup:.3f}x" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
        speed += " improved" if r.improved else ""
        return f"{name}  {r.status}  {speed}  {r.seconds:.1f}s"

    def status(self) -> str:
        from supercoder.metrics import geomean

        geo = geomean(self.speedups)
        text = f"{self.correct} correct, geomean {geo:.3f}x" if geo else f"{self.correct} correct"
        return text + (f", {self.unfinished} unfinished" if self.unfinished else "")


def print_summary(name: str, summary: RunSummary, console: Console | None = None) -> None:
    from supercoder.summary import STAT_KEYS

    console = console or Console(markup=False, highlight=False)
    s, paper, ctx = summary, summary.paper, summary.context
    title = f"{name}: {s.problems} problems, {ctx.get('model')}"
    table = Table(title=Text(printable(title, newlines=False)))
    table.add_column("metric")
    table.add_column("ours", justify="right")
    table.add_column("paper protocol", justify="right")
    rows = [("compilation_rate", s.compilation_rate, paper.compilation_rate),
            ("accuracy", s.accuracy, paper.accuracy)]  # fmt: skip
    rows += [(f"{k}_speedup", getattr(s.speedups, k), getattr(paper.speedups, k))
             for k in STAT_KEYS]  # fmt: skip
    for key, ours, theirs in (*rows, ("fast_1.1", s.fast_1_1, paper.fast_1_1)):
        table.add_row(key, _fmt(key, ours), _fmt(key, theirs))
    for key in ("accuracy_excluding_copies", "baseline_copies"):
        table.add_row(key, _fmt(key, getattr(s, key)), "")
    for key in ("improved", "significant_speedups", "significant_slowdowns", "problems_untimed",
                "infra_dropped", "problems_dropped"):  # fmt: skip
        table.add_row(key, str(getattr(s, key)), "")
    tokens = s.prompt_tokens + s.completion_tokens
    table.add_row("tokens / cost", f"{tokens} / ${s.cost_usd:.4f}", "")
    console.print(table)
    unscored = summary.unscored_problems or []
    if unscored:
        names = ", ".join(unscored[:20]) + (
            f" and {len(unscored) - 20} more" if len(unscored) > 20 else ""
        )
        console.print(Text(printable(f"not scored (counted as failures): {names}")))
    console.print(
        f"samples={ctx.get('samples')} rounds={ctx.get('rounds')} timed={ctx.get('timed')} "
        f"gcc: {ctx.get('gcc')} cpu: {ctx.get('cpu')}",
        highlight=False,
        soft_wrap=True,
    )


def _fmt(key: str, value: Any) -> str:
    if value is None:
        return "n/a"
    if "rate" in key or key in (
        "accuracy",
        "fast_1.1",
        "accuracy_excluding_copies",
        "baseline_copies",
    ):
        return f"{value:.1f}%"
    return f"{value:.3f}x"


# --- leaderboard -------------------------------------------------------------------


def leaderboard(
    db: DbOpt = DEFAULT_DB,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Also write an HTML page.")
    ] = None,
) -> None:
    """Every stored eval run side by side (figures recomputed from the stored answers).

    Example: supercoder leaderboard --html leaderboard.html
    """
    from supercoder.store import leaderboard_rows

    if not db.is_file():
        raise UserError(f"{db}: no eval runs yet (run supercoder eval first, or pass --db)")
    rows = leaderboard_rows(db)
    table = Table(title=Text(printable(f"leaderboard ({db})")))
    cols = ("run", "model", "problems", "compile", "accuracy", "avg", "median", "geomean",
            "fast_1.1", "paper avg", "cost", "done")  # fmt: skip
    for col in cols:
        table.add_column(col)
    for r in rows:
        s = r["summary"]
        table.add_row(
            printable(r["name"]), printable(r["model"]), *_board_cells(s),
            _fmt("x", s.paper.speedups.avg), f"${s.cost_usd:.2f}", "yes" if r["finished"] else "no",
        )  # fmt: skip
    console = Console(markup=False, highlight=False)
    if not console.is_terminal:
        console = Console(width=160, markup=False, highlight=False)
    console.print(table)
    if html_out:
        html_out.write_text(leaderboard_html(rows))
        err.print(f"wrote {html_out}")


def _board_cells(s: RunSummary) -> tuple[str, ...]:
    """A run's problems, compile, accuracy, avg, median, geomean and fast_1.1 cells."""
    return (str(s.problems), _fmt("compilation_rate", s.compilation_rate),
            _fmt("accuracy", s.accuracy), _fmt("x", s.speedups.avg), _fmt("x", s.speedups.median),
            _fmt("x", s.speedups.geomean), _fmt("fast_1.1", s.fast_1_1))  # fmt: skip


def leaderboard_html(rows: list[dict[str, Any]]) -> str:
    """A self-contained page: the table, then a histogram of log2 speedups per run."""
    from supercoder.report.html import speedup_plot

    head = "<tr>" + "".join(f"<th>{c}</th>" for c in ("run", "model", "problems", "compile",
                            "accuracy", "avg", "median", "geomean", "fast_1.1")) + "</tr>"  # fmt: skip
    body, plots = [], []
    for r in rows:
        s = r["summary"]
        cells = (r["name"], r["model"], *_board_cells(s))
        body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        speeds = [p.speedup for p in s.per_problem.values() if p.timed is not False]
        plots.append(f"<h2>{html.escape(r['name'])}</h2>{speedup_plot(speeds)}")
    style = "body{font-family:sans-serif}td,th{padding:2px 8px;border-bottom:1px solid #ddd}"
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>supercoder leaderboard</title>"
        f"<style>{style}</style></head><body><h1>supercoder leaderboard</h1>"
        f"<table>{head}{''.join(body)}</table>{''.join(plots)}</body></html>\n"
    )
