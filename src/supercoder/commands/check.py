"""`supercoder check PROBLEM A.s [B.s ...]`: a verdict each (correct? how much faster?)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from supercoder.commands.display import print_verdict
from supercoder.commands.options import (
    CPU_LIMIT,
    MEMORY_MB,
    REWARD,
    SERVER,
    CheckOptions,
    JsonFlag,
    TimingRoundsOpt,
    note,
    reward_config,
)
from supercoder.commands.optionset import with_groups
from supercoder.errors import EXIT_MACHINE, UserError, printable, read_regular
from supercoder.problems.loading import load_problem_arg
from supercoder.toolchain.gcc import MAX_ASM_BYTES
from supercoder.verify.client import TOKEN_ENV, ServiceClient
from supercoder.verify.reward import RewardConfig, reward_evaluation, score_verdicts, verdict_json
from supercoder.verify.service import verify_together

if TYPE_CHECKING:
    from supercoder.types import Problem, Verdict


@with_groups(checks=CheckOptions)
def check(
    problem_dir: Annotated[
        Path,
        typer.Argument(
            help="Problem folder (source.c, tests/NAME.in + NAME.out), or a bundled "
            "problem's name (dp_lcs; a folder of that name here wins)."
        ),
    ],
    candidates: Annotated[
        list[Path],
        typer.Argument(
            help="Candidate x86-64 assembly files (AT&T, as gcc emits); several are "
            "checked in parallel and timed together in one session."
        ),
    ],
    as_json: JsonFlag = False,
    cpu_limit: Annotated[float, CPU_LIMIT] = 10.0,
    memory_mb: Annotated[int, MEMORY_MB] = 2048,
    server: Annotated[str | None, SERVER] = None,
    reward: Annotated[str | None, REWARD] = None,
    timing_rounds: TimingRoundsOpt = None,
    *,
    checks: CheckOptions,
) -> None:
    """Is each CANDIDATE correct on every test of PROBLEM_DIR, and how much faster than gcc -O3?

    --json prints the verdict object (one candidate), or a list of verdicts in argument
    order (several).

    Assembles and links each candidate (gcc CANDIDATE.s -lm, plus problem.json's cflags
    and ldflags), runs every test (hidden ones too) in the sandbox, compares stdout
    (exactly, or by problem.json's compare: tokens, float:TOL), and measures the speedup
    of those that pass over the -O3 baseline: CPU time, paired and interleaved, median
    per test, geometric mean over tests, bootstrap 95% CI. Several candidates are
    checked in parallel and the correct ones timed together against one stream of
    baseline runs (each keeps its own interval).

    Exit code 0 whenever the checks ran, whatever the verdicts; 3 if one could not run.

    Start from the -O3 baseline: supercoder problem baseline dp_lcs -o my.s

    --reward FORM scores each verdict under that reward as training would (the same
    function as eval, TRL, verl, serve and the environments; --timing-rounds: the
    timing budget it is measured with); without it the default, gated, is shown.

    Example: supercoder check dp_lcs my.s other.s --json
    """
    programs = _read_candidates(candidates)
    paying = (
        None
        if reward is None and timing_rounds is None
        else reward_config(
            reward or "gated",
            0.0,
            not checks.unsafe_no_sandbox,
            checks.isa_target,
            timing_rounds,
            not checks.no_time,
        )
    )
    if server is not None and paying is not None:
        raise UserError("--reward/--timing-rounds: score locally (without --server)")
    if server is not None:
        verdicts = _check_remote(
            server,
            problem_dir,
            programs,
            not checks.no_time,
            checks.unsafe_no_sandbox,
            cpu_limit,
            memory_mb,
            str(checks.isa_target),
        )
        verdicts = [_named(v, c) for v, c in zip(verdicts, candidates, strict=True)]
        _show(candidates, verdicts, as_json)
        if any(v.is_infra_failure for v in verdicts):
            raise typer.Exit(EXIT_MACHINE)
        return
    problem = load_problem_arg(problem_dir, note)
    config = checks.config(cpu_limit, memory_mb)
    if paying is not None:  # measured as the reward path measures (its timing budget)
        config = reward_evaluation(paying.with_evaluation(config))
    verdicts = verify_together(problem, programs, config)
    verdicts = [_named(v, c) for v, c in zip(verdicts, candidates, strict=True)]
    _show(candidates, verdicts, as_json, paying, problem)
    if any(v.is_infra_failure for v in verdicts):
        raise typer.Exit(EXIT_MACHINE)


def _check_remote(
    server: str,
    problem_dir: Path,
    programs: list[str],
    timed: bool,
    unsafe_no_sandbox: bool,
    cpu_limit: float,
    memory_mb: int,
    target: str,
) -> list[Verdict]:
    """``--server``: the verdicts of a verification server (``verify/client.py``)."""
    if unsafe_no_sandbox:
        raise UserError("--unsafe-no-sandbox: a verification server always uses its sandbox")
    ref = (
        {"path": str(problem_dir.resolve())} if problem_dir.is_dir() else {"name": str(problem_dir)}
    )
    with ServiceClient(server, os.environ.get(TOKEN_ENV) or None, retries=3) as client:
        return client.check(
            ref, programs, time=timed, target=target, cpu_limit=cpu_limit, memory_mb=memory_mb
        )


def _read_candidates(candidates: list[Path]) -> list[str]:
    """The candidates' assembly text (each a regular file of bounded size, bytes that are
    not UTF-8 replaced: the assembler refuses them with a line number)."""
    if not candidates:
        raise UserError("give at least one candidate .s file")
    raw = [read_regular(c, MAX_ASM_BYTES, "candidate") for c in candidates]
    return [r.decode(errors="replace") for r in raw]


def _show(
    candidates: list[Path],
    verdicts: list[Verdict],
    as_json: bool,
    paying: RewardConfig | None = None,
    problem: Problem | None = None,
) -> None:
    """The verdicts as JSON (one object, or a list in argument order; on one line when a
    check could not run) or as text, one block per candidate; with ``paying`` (--reward)
    each with that reward (``score_verdicts``)."""
    rewards: list[float | None] = [None] * len(verdicts)
    if paying is not None and problem is not None:
        rewards = score_verdicts([problem] * len(verdicts), verdicts, paying)
    if as_json:
        data = [verdict_json(v, r, paying) for v, r in zip(verdicts, rewards, strict=True)]
        broken = any(v.is_infra_failure for v in verdicts)
        typer.echo(json.dumps(data[0] if len(data) == 1 else data, indent=None if broken else 2))
        return

    for candidate, verdict, reward in zip(candidates, verdicts, rewards, strict=True):
        if len(verdicts) > 1:
            typer.echo(printable(f"== {candidate}", newlines=False))
        if verdict.is_infra_failure:  # the check itself could not run
            typer.echo(printable(f"check could not run: {verdict.message}"))
        else:
            print_verdict(verdict)
            if paying is not None and verdict.correct and verdict.speedup is not None:
                typer.echo(f"reward {reward or 0.0:.3f} under --reward {paying.spec}")


def _named(verdict, candidate: Path):
    """The verdict's build messages name the user's file, not the build's ``program.s``."""
    if "program.s" not in verdict.message:
        return verdict
    shown = printable(str(candidate), newlines=False)  # one line, whatever the name holds
    named = re.sub(r"\bprogram\.s\b", lambda _: shown, verdict.message)
    return replace(verdict, message=named)
