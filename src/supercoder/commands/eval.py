"""`supercoder eval`: optimize every problem of a benchmark, verify, store, summarize."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from supercoder.commands.display import fmt_figure
from supercoder.commands.machine import current, engine_options, installs_engine
from supercoder.commands.options import (
    BENCHMARK,
    EXECUTOR,
    RUN,
    SERVER,
    DbOpt,
    JsonFile,
    ModelRunConfig,
    StrategyOptions,
    err,
)
from supercoder.commands.optionset import but, option_values, to_toml, with_config
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import EXIT_MACHINE, UserError, check_writable, printable
from supercoder.paths import atomic_write_text
from supercoder.problems.loading import kept_paths
from supercoder.runs.eval_run import ANSWERS_INDEX, run_eval, write_answers
from supercoder.runs.metrics import SHORT_REASON, geomean, problem_record
from supercoder.runs.registry import BUILDS, canonical, legacy_spec, strategy_class
from supercoder.runs.store import Store
from supercoder.runs.summary import STAT_KEYS
from supercoder.types import memorizable_reason
from supercoder.verify.client import TOKEN_ENV, RemoteVerifier, ServiceClient
from supercoder.verify.evaluate import check_config
from supercoder.verify.executors import ExecutorKind
from supercoder.verify.reward import parse_reward
from supercoder.verify.service import VerifyConfig

if TYPE_CHECKING:
    from supercoder.runs.store import RunRow
    from supercoder.runs.summary import RunSummary
    from supercoder.types import Problem


def _stored_options(options: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``--resume RUN``: the options RUN was started with, from the store (its run file;
    for a run stored before run files, what its stored identity says)."""
    name = options.get("resume")
    if name is None:
        return None

    if options.get("run") not in (None, name):
        raise UserError(f"--resume {name} and --run {options['run']}: give one run")
    store = Store(options.get("db"), read_only=True)
    try:
        kept = store.run_file(name)
        row = None if kept else next((r for r in store.runs() if r.name == name), None)
    finally:
        store.close()
    where = f"the stored run {name!r}"
    if kept:
        return where, {**_own_only(tomllib.loads(kept)), "run": name}
    if row is None:
        raise UserError(
            f"no run {name!r} in {store.path}: `supercoder leaderboard` lists the runs "
            "(--db names another store)"
        )
    return where, {**identity_options(row), "run": name}


def _own_only(data: dict[str, Any]) -> dict[str, Any]:
    """A stored run file without the options of strategies other than its own (run files
    once kept every strategy's knobs at their defaults: ``generation = 2`` of a
    best-of-n run)."""
    models = [m for m in data.get("model") or [] if legacy_spec(m) is None]
    name = canonical(data.get("strategy")) if data.get("strategy") else None
    name = name or ("best-of-n" if models else BUILDS)
    try:
        owned = {f.name for f in dataclasses.fields(strategy_class(name).Config)}
    except UserError:
        return data  # an uninstalled plugin: said in one line when the run starts
    spelled: dict[str, str] = {}
    for f in dataclasses.fields(StrategyOptions):
        spelled[f.name] = f.name
        for flag in f.metadata.get("flags") or ():
            spelled[flag.split("/")[0].removeprefix("--").replace("-", "_")] = f.name
    out = {}
    for key, value in data.items():
        field = spelled.get(key.replace("-", "_"))
        if field is None or field in owned:
            out[key] = value
    return out


def identity_options(row: RunRow) -> dict[str, Any]:
    """The eval options of a run stored before run files, from its row (model,
    benchmark and the identity ``RunConfig.identity`` stored in ``options``)."""
    o = row.options
    own = o.extra.get(str(o.strategy or ""))  # the strategy's own config, by field
    own = own if isinstance(own, Mapping) else {}
    flagged = {f.name for f in dataclasses.fields(StrategyOptions)}
    values = {
        "model": row.model.split("+"),
        "benchmark": row.benchmark,
        "samples": o.samples,
        "rounds": o.rounds,
        "temperature": o.temperature,
        "context": o.context,
        "answer": o.answer,
        "strategy": o.strategy,
        "no_time": None if o.time is None else not o.time,
        "unsafe_no_sandbox": None if o.sandbox is None else not o.sandbox,
        "isa_target": o.target,
        "reward": o.reward,
        **{k: v for k, v in own.items() if k in flagged and not isinstance(v, Mapping | list)},
    }
    return {k: v for k, v in values.items() if v is not None}


@with_config(ModelRunConfig, "opts", preset=_stored_options, machine=engine_options(workers=1))
@installs_engine
def eval_cmd(
    benchmark: Annotated[str, BENCHMARK] = "val",
    run: Annotated[str | None, but(RUN, show_default="MODEL@BENCHMARK")] = None,
    executor: Annotated[ExecutorKind, EXECUTOR] = ExecutorKind.LOCAL,
    json_out: JsonFile = None,
    db: DbOpt = None,
    server: Annotated[str | None, SERVER] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Continue the stored run RUN with the options it was started with (its "
            "run file in --db; flags given here override them).",
        ),
    ] = None,
    answers_dir: Annotated[
        Path | None,
        typer.Option(
            "--answers-dir",
            metavar="DIR",
            help="Write each problem's answer (the one the run reports) as DIR/PROBLEM.s, "
            "exactly as verified (supercoder check takes it back), and DIR/answers.json "
            "indexing them (status, speedup, interval, checks, load). With --resume RUN "
            "it writes a finished run's answers without verifying anything again.",
        ),
    ] = None,
    *,
    opts: ModelRunConfig,
) -> None:
    """Optimize and verify every problem of a benchmark; print the paper's metrics.

    --strategy evolve searches over verified programs: each generation improves the
    best ones found so far (a progress line per generation on stderr); a killed run
    continues from the store when the same command is run again.

    Results go to an SQLite store (--db); re-running the same --run resumes it: finished
    problems are skipped and no stored answer is verified again. The store keeps each
    run's options as a run file: --resume RUN continues it with no other option, and
    --config RUN.TOML reads options from such a file (TOML keys: the option names). A problem whose model
    or machine failed (server down or hung, disk full, ...) is not finished and not
    scored: rates still divide by the whole benchmark, the problem is named, and the
    exit code is 3: rerun to retry it. Ctrl-C stops at once, keeping what is stored.

    Example: supercoder eval --benchmark val --json summary.json

    Example: supercoder eval --resume compiler@val

    Example: supercoder eval --resume compiler@val --answers-dir answers/
    """
    if answers_dir is not None:
        check_writable(answers_dir / ANSWERS_INDEX, "--answers-dir")
    if json_out:
        check_writable(json_out, "--json")
    specs = opts.specs()
    settings = opts.strategy_config(specs)
    problems = _load_problems(benchmark, json_out, db)
    engine = current()  # --requests, --workers, --timing-slots
    requests = engine.requests.limit
    run_config = opts.run_config(specs, settings, benchmark, run, executor, requests)
    llms = opts.load_models(specs, requests)
    verify = _remote_verifier(server, run_config) if server else None
    if verify is not None:  # the prompts' -O3 assembly from the server: no gcc needed here
        problems = verify.client.with_baselines(problems)
    store = Store(db)
    try:
        store.check_run_name(run_config.run_name)
    except BaseException:
        store.close()
        raise
    # every option is valid now: say what the run costs, then start it
    err.print(f"{len(problems)} problem(s): {_what_it_costs(opts.no_time, bool(specs))}")
    try:
        model = llms if len(llms) != 1 else llms[0]
        kept = _run_file(opts, benchmark, engine.config, executor, server)
        result = _run_with_progress(
            problems,
            model,
            run_config,
            store,
            verify,
            on_open=lambda: store.keep_run_file(run_config.run_name, kept),
        )
    finally:
        store.close()
    print_summary(result.name, result.summary)
    if json_out:
        _write_summary(json_out, result.summary)
    if answers_dir is not None:
        index = write_answers(result.outcomes, answers_dir)
        wrote = sum(1 for e in index if e["file"])
        err.print(
            Text(printable(f"wrote {wrote} answer(s) of {len(index)} problem(s) to {answers_dir}/"))
        )
    if result.failed:
        _report_unfinished(result.name, result.failed)
        raise typer.Exit(EXIT_MACHINE)


def _run_file(opts: ModelRunConfig, benchmark, machine, executor, server) -> str:
    """The run file the store keeps for this run (``eval --resume`` reads it back; an
    older one's ``concurrency`` is ``requests``, its old name)."""
    values = {
        "benchmark": benchmark,
        **option_values(opts),
        **option_values(machine),
        "executor": executor,
        "server": server,
    }
    return to_toml(values, "supercoder eval options (eval --resume RUN reads them)")


def _remote_verifier(server: str, run_config):
    """``--server``: the run's verification (its timing, target) on a verification server."""
    if not run_config.sandbox:
        raise UserError("--unsafe-no-sandbox: a verification server always uses its sandbox")
    client = ServiceClient(server, os.environ.get(TOKEN_ENV) or None)
    client.health()  # unreachable: exit 3 now, not after the model's first answers
    config = check_config(time=run_config.time, target=run_config.target)
    budget = parse_reward(run_config.reward).rounds if run_config.time else None
    return RemoteVerifier(client, VerifyConfig(config), rounds=budget)  # the reward's budget


def _load_problems(benchmark: str, json_out: Path | None, db: Path | None) -> list[Problem]:
    """The benchmark's problems; --json and --db may not name one of their files."""
    problems = load_benchmark(benchmark)
    for out, what in ((json_out, "--json"), (db, "--db")):
        if out is not None:
            check_writable(out, what, kept_paths(problems))
    return problems


# Seconds a problem takes with --no-time and the build search (its first builds
# checked on every test until one is correct), measured on a busy 2-core machine.
NO_TIME_SECONDS = (2, 5)


def _what_it_costs(no_time: bool, llm: bool = False) -> str:
    if no_time:
        low, high = NO_TIME_SECONDS
        wait = ", plus the model's time to answer" if llm else ""
        return f"correctness only (--no-time), about {low}-{high} seconds a problem{wait}"
    return (
        "the model's answers built, checked and timed: this takes minutes "
        "(--no-time checks correctness only, much faster); Ctrl-C stops, a rerun resumes"
    )


def _write_summary(path: Path, summary: RunSummary) -> None:
    """``--json``: the run's summary (``RunSummary.to_json``), written atomically."""
    atomic_write_text(path, json.dumps(summary.to_json(), indent=2, default=str) + "\n")
    err.print(f"summary written to {path}")


def _report_unfinished(name: str, failed: dict[str, str]) -> None:
    """The problems left unfinished, each with why, and how to retry them."""
    for problem, why in sorted(failed.items()):
        err.print(Text.assemble(("unfinished ", "yellow"), printable(f"{problem}: {why}")))
    err.print(
        Text(
            printable(
                f"{len(failed)} problem(s) unfinished, not scored: rerun with --run {name} "
                f"to retry them (or: supercoder eval --resume {shlex.quote(name)}, no other "
                "option needed)"
            )
        )
    )


def _run_with_progress(problems, llm, run_config, store, verify=None, on_open=None):
    """On a terminal, a live bar (done/total, elapsed, ETA, running geomean); otherwise
    one line per finished problem on stderr: name, status, speedup [CI], seconds."""
    tally = _Tally(run_config.concurrency)

    class EtaColumn(ProgressColumn):
        """The tally's ETA (from the work done), redrawn as the bar refreshes."""

        def render(self, task) -> Text:
            return Text(tally.eta_text(), style="progress.remaining")

    columns = (
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        EtaColumn(),
    )
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task(run_config.run_name, total=len(problems))

        def on_start(todo: int, skipped: int) -> None:
            if on_open is not None:  # the run is open (new, or the same settings)
                on_open()
            tally.start(todo)
            if skipped:
                err.print(f"resuming {run_config.run_name}: {skipped} problem(s) already done")
            # the bar counts this invocation's problems only (the ETA is the tally's)
            progress.update(task, total=todo, completed=0)

        def on_problem(name: str, outcome) -> None:
            line = tally.add(name, outcome)
            if not err.is_terminal:
                err.print(Text(printable(line)), soft_wrap=True)
            desc = escape(printable(f"{run_config.run_name} ({tally.status()})"))
            progress.update(task, advance=1, description=desc)

        def on_generation(step) -> None:
            err.print(Text(printable(step.line())), soft_wrap=True)

        return run_eval(
            problems,
            llm,
            run_config,
            store,
            on_start=on_start,
            on_begin=tally.begin,
            on_problem=on_problem,
            on_progress=on_generation,
            verify=verify,
        )


class _Tally:
    """Running figures of an eval for its progress display: per problem its wall time
    from start to end (``concurrency`` problems run at once, so these overlap), and the
    run's elapsed time with an ETA from the work done (``eta_seconds``)."""

    def __init__(self, concurrency: int = 1) -> None:
        self.correct = self.unfinished = self.done = self.todo = self.memorizable = 0
        self.speedups: list[float] = []
        self.concurrency = max(1, concurrency)
        self.began = time.monotonic()
        self.running: dict[str, float] = {}  # problem -> when it started (monotonic)
        self.walls: list[float] = []  # wall seconds of the problems finished

    def begin(self, name: str) -> None:
        self.running[name] = time.monotonic()

    def eta_seconds(self, now: float | None = None) -> float | None:
        """Seconds left, from the work done: the mean wall time of the problems finished
        so far in this invocation is what each problem costs; the problems running have
        done part of theirs (their age), those not started all of it; the work left is
        shared by the problems that run at once. None before a problem has finished."""
        if not self.walls:
            return None
        now = time.monotonic() if now is None else now
        cost = sum(self.walls) / len(self.walls)
        left = max(0, self.todo - self.done)
        running = [now - t for t in self.running.values()][:left]
        work = sum(max(cost - age, 0.0) for age in running)
        work += max(0, left - len(running)) * cost
        return work / max(1, min(self.concurrency, left)) if left else 0.0

    def eta_text(self) -> str:
        eta = self.eta_seconds()
        if self.todo and self.done >= self.todo:
            return ""
        return "ETA after the first problem" if eta is None else f"ETA {_clock(eta)}"

    def start(self, todo: int) -> None:
        self.todo, self.began = todo, time.monotonic()
        self.concurrency = max(1, min(self.concurrency, todo))  # at most one per problem

    def progress(self) -> str:
        elapsed = time.monotonic() - self.began
        left = max(0, self.todo - self.done)
        seconds = self.eta_seconds()
        eta = f", ETA {_clock(seconds)}" if seconds is not None and left else ""
        return f"[{self.done}/{self.todo}, {_clock(elapsed)} elapsed{eta}]"

    def add(self, name: str, outcome) -> str:
        self.done += 1
        started = self.running.pop(name, None)
        if started is not None:
            self.walls.append(time.monotonic() - started)
        if outcome is None or outcome.best is None:
            self.unfinished += 1
            return f"{name}  unfinished  {self.progress()}"
        r = problem_record(outcome)
        assert r is not None  # outcome.best is set
        self.correct += r.correct
        # only measured figures: an unmeasured problem is never a 1.000x in the geomean
        if r.speedup is not None and not r.memorizable and (r.timed or not r.correct):
            self.speedups.append(r.speedup)
        self.memorizable += r.memorizable
        ci = r.speedup_ci
        if r.timed and r.speedup is not None:
            speed = f"{r.speedup:.3f}x" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            load = outcome.best.checked.context.measurement.load
            speed += f" at load {load:.2f}/CPU" if load is not None else ""
        elif r.correct:
            why = r.timed_reason.removeprefix("not timed").strip(" :")
            if why.startswith(SHORT_REASON):  # as check says it: no figure beside it
                why = SHORT_REASON
            speed = f"not timed: {why}" if why else "not timed"
        else:
            late = _timeout_note(outcome.best.verdict) if r.status == "timeout" else ""
            speed = f"1.0x (no correct answer{late})"
        speed += " improved" if r.improved else ""
        why = memorizable_reason(outcome.best.checked.context.measurement.domain)
        speed += f" memorizable ({why}; counted apart)" if r.memorizable else ""
        speed += " (baseline)" if r.baseline_copy else ""
        wall = f"{r.wall_seconds:.1f}s wall" if r.wall_seconds is not None else f"{r.seconds:.1f}s"
        at_once = f", {self.concurrency} at once" if self.concurrency > 1 else ""
        note = f"  ({r.search_note})" if r.search_note else ""
        return f"{name}  {r.status}  {speed}{note}  {wall}{at_once}  {self.progress()}"

    def status(self) -> str:
        geo = geomean(self.speedups)
        text = f"{self.correct} correct, geomean {geo:.3f}x" if geo else f"{self.correct} correct"
        text += f", {self.memorizable} memorizable" if self.memorizable else ""
        return text + (f", {self.unfinished} unfinished" if self.unfinished else "")


def _timeout_note(verdict) -> str:
    """Where the best answer that timed out ran past its limit: the visible test and how
    long it ran against the limit, or that it was a hidden test or a drawn input (never
    which, nor its data)."""
    first = next((t for t in verdict.tests if t.status.value == "timeout"), None)
    if first is not None:
        return f": test {first.name}: {first.detail}" if first.detail else f": test {first.name}"
    message = verdict.message or ""
    if "drawn input" in message:
        return ": it ran past its time limit on a drawn input (its data is never shown)"
    if "ran past" in message:
        limit = message.split("ran past the ", 1)[1].split(" limit", 1)[0]
        return f": one of the tests the model never saw ran past the {limit} limit"
    return ""


def print_summary(name: str, summary: RunSummary, console: Console | None = None) -> None:
    """The run's figures (ours beside the paper protocol's), then what they leave out:
    nothing measured, problems not scored, build searches cut short, the x86-64 levels
    of the correct answers, and how the run was made."""
    console = console or Console(markup=False, highlight=False)
    console.print(_figures_table(name, summary))
    for line in _summary_notes(summary):
        console.print(Text(printable(line)))
    ctx = summary.context
    console.print(
        f"strategy={ctx.strategy or 'best-of-n'} target={ctx.target or 'native'} "
        f"samples={ctx.samples} "
        f"rounds={ctx.rounds} timed={ctx.timed} "
        f"gcc: {ctx.machine.gcc or None} cpu: {ctx.machine.cpu or None}",
        highlight=False,
        soft_wrap=True,
    )


def _figures_table(name: str, summary: RunSummary) -> Table:
    """Every figure of the run, ours and the paper protocol's; a figure of what was not
    measured (nothing timed: --no-time, or every test too short) reads so, never 0."""
    s, paper = summary, summary.paper
    title = f"{name}: {s.problems} problems, {s.context.model}"
    table = Table(title=Text(printable(title, newlines=False)))
    table.add_column("metric")
    table.add_column("ours", justify="right")
    table.add_column("paper protocol", justify="right")
    rows = [
        ("compilation_rate", s.compilation_rate, paper.compilation_rate),
        ("accuracy", s.accuracy, paper.accuracy),
    ]
    rows += [
        (f"{k}_speedup", getattr(s.speedups, k), getattr(paper.speedups, k)) for k in STAT_KEYS
    ]
    # nothing timed (--no-time, or every test too short): no figure of what was not measured
    unmeasured = not s.timed_share
    none = "not measured" if unmeasured else ""
    for key, ours, theirs in (*rows, ("fast_1.1", s.fast_1_1, paper.fast_1_1)):
        if key == "fast_1.1" and unmeasured:
            table.add_row(key, none, none)
        else:
            table.add_row(key, fmt_figure(key, ours), fmt_figure(key, theirs))
    for key in ("accuracy_excluding_copies", "baseline_copies", "timed_share"):
        shown = none if key == "timed_share" and unmeasured else fmt_figure(key, getattr(s, key))
        table.add_row(key, shown, "")
    for key in (
        "improved",
        "significant_speedups",
        "significant_slowdowns",
        "problems_untimed",
        "infra_dropped",
        "problems_dropped",
    ):
        timing = key in ("improved", "significant_speedups", "significant_slowdowns")
        table.add_row(key, none if timing and unmeasured else str(getattr(s, key)), "")
    if s.problems_memorizable:
        geo = fmt_figure("geomean_speedup", s.memorizable_geomean_speedup)
        table.add_row(
            "memorizable (apart)",
            f"{s.problems_memorizable}: geomean {geo}, {s.memorizable_improved} improved",
            "",
        )
    if s.problems_with_tables or s.not_holding_past_cut:
        table.add_row(
            "tables / past the cut",
            f"{s.problems_with_tables} answer(s) add a lookup table; "
            f"{s.not_holding_past_cut} speedup(s) do not hold past the time budget's cut",
            "",
        )
    tokens = s.prompt_tokens + s.completion_tokens
    table.add_row("tokens / cost", f"{tokens} / ${s.cost_usd:.4f}", "")
    return table


def _summary_notes(summary: RunSummary) -> list[str]:
    """The lines under the figures: nothing measured, problems not scored, build searches
    that ran out, the lowest x86-64 level of the correct answers."""
    s, lines = summary, []
    if not s.timed_share and s.problems_scored:
        timed = s.context.timed
        why = "--no-time" if timed is False else "no test long enough to time"
        lines.append(
            f"no speedup was measured ({why}): the speedup figures, fast_1.1 and the "
            "significance counts are not measured, not zero"
        )
    unscored = s.unscored_problems or []
    if unscored:
        more = f" and {len(unscored) - 20} more" if len(unscored) > 20 else ""
        lines.append(
            f"INCOMPLETE: {len(unscored)} of {s.problems} problem(s) not scored "
            f"(machine trouble, no answer or interrupted): {', '.join(unscored[:20])}{more}; "
            "the rates divide by the whole benchmark, so they count as not done until a "
            "rerun scores them"
        )
    short = {p: r.search_note for p, r in s.per_problem.items() if r.search_note}
    lines += [f"{problem}: the search's {note}" for problem, note in list(short.items())[:20]]
    if len(short) > 20:
        lines.append(f"and {len(short) - 20} more problem(s) whose search ran out of budget")
    levels = s.isa_levels()
    if levels:
        runs_on = ", ".join(f"{level}: {n}" for level, n in levels.items())
        lines.append(f"correct answers by the lowest x86-64 level they run on: {runs_on}")
    return lines


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"
