"""``supercoder calibrate``: measure this machine's between-check timing noise."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from supercoder.commands.machine import with_engine
from supercoder.commands.options import JsonFlag, SandboxOpt
from supercoder.engine import current
from supercoder.errors import InfraError, UserError
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.timing.calibration import estimate_calibration, load_calibration, save_calibration
from supercoder.timing.intervals import Z95
from supercoder.timing.meter import MeterConfig
from supercoder.timing.slots import slot_count
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import machine
from supercoder.types import machine_load
from supercoder.verify.evaluate import check_config, evaluate

if TYPE_CHECKING:
    from supercoder.timing.calibration import Calibration

DEFAULT_PROBLEMS = (
    "bit_sos_naive",
    "str_zfunc",
    "bit_max_xor_pair",
    "mat_gauss_mod",
    "graph_toposort",
    "num_modpow",
)


@dataclass(frozen=True)
class CalibrateConfig:
    """What ``supercoder calibrate`` measures.

    Fields:
        problems: bundled problems whose baseline is checked against itself.
        checks: identical-program checks per problem.
        sandbox: run in the sandbox (False only with ``--unsafe-no-sandbox``).
    """

    problems: tuple[str, ...] = DEFAULT_PROBLEMS
    checks: int = 4
    sandbox: bool = True


def identical_checks(
    config: CalibrateConfig, progress: Callable[[str], None] = lambda _: None
) -> list[tuple[str, float, float]]:
    """(problem, estimate, sampling sd of its log) of identical-program checks, the
    meter's noise floor switched off so only what one check sees is in the sd; as
    many checks at once as there are timing slots (every slot busy, as in a batch)."""
    config_eval = check_config(sandbox=config.sandbox, meter=MeterConfig(noise_floor=0.0))
    jobs = []
    for name in config.problems:
        if not (BUNDLED_ROOT / name).is_dir():
            raise UserError(f"{name}: not a bundled problem (see: supercoder bench list)")
        problem = load_problem(BUNDLED_ROOT / name)
        jobs += [(problem, baseline_asm(problem), i) for i in range(config.checks)]
    jobs.sort(key=lambda j: j[2])  # round-robin over problems: no problem's checks bunch up

    def one(job) -> tuple[str, float, float]:
        problem, asm, i = job
        v = evaluate(problem, asm, config_eval)
        if v.is_infra_failure or v.speedup is None:
            raise InfraError(f"calibration check of {problem.name} could not run: {v.message}")
        sp = v.speedup
        progress(
            f"{problem.name} check {i + 1}/{config.checks}: "
            f"{sp.value:.4f} [{sp.low:.4f}, {sp.high:.4f}]"
        )
        return problem.name, sp.value, (math.log(sp.high) - math.log(sp.low)) / (2 * Z95)

    engine = current()  # one check per timing slot; Ctrl-C stops at once
    return engine.thread_map(one, jobs, engine.slots)


@with_engine(skip=("requests", "workers"))
def calibrate(
    problems: Annotated[
        list[str] | None,
        typer.Argument(help="Bundled problems to check (default: six short ones)."),
    ] = None,
    checks: Annotated[int, typer.Option(min=2, help="Identical-program checks per problem.")] = 4,
    show: Annotated[
        bool, typer.Option("--show", help="Print the stored calibration; measure nothing.")
    ] = False,
    as_json: JsonFlag = False,
    unsafe_no_sandbox: SandboxOpt = False,
) -> None:
    """Measure how much two checks of the SAME program differ on this machine.

    Checks the -O3 baseline of a few bundled problems against itself (the
    truth is exactly 1.00) CHECKS times each, then stores in the cache, with
    the machine context, two figures the meter uses on this machine:

    noise_floor: the spread of the log speedup between checks beyond what
    one check's bootstrap sees; added to every confidence interval.

    margin: the practical band [1 - m, 1 + m] (95th percentile of
    |estimate - 1|, at least 1%); "significantly faster" means the whole
    CI lies above 1 + m.

    The checks run as many at once as there are timing slots
    (SUPERCODER_TIMING_SLOTS, default one per physical core), so the floor is
    what timing sees with every slot busy; it is stored with the slot count and
    used only while at most that many slots time at once.

    Without a calibration the meter uses the built-in defaults (floor 0.5%).
    Re-run it when the machine or its load changes. About a minute on an
    idle machine.

    Example: supercoder calibrate --checks 5
    """
    if show:
        cal = load_calibration()
        typer.echo(json.dumps(cal.to_json(), indent=2) if as_json else _describe(cal))
        return
    config = CalibrateConfig(tuple(problems or DEFAULT_PROBLEMS), checks, not unsafe_no_sandbox)
    echo = (lambda _: None) if as_json else typer.echo

    if not as_json:
        typer.echo(
            f"{len(config.problems) * checks} identical-program checks, {slot_count()} at a "
            "time: about a minute on an idle machine (Ctrl-C stops; nothing is stored then)"
        )
    checks = identical_checks(config, echo)
    cal = estimate_calibration(checks, machine(), slots=slot_count(), load=machine_load())
    path = save_calibration(cal)
    typer.echo(
        json.dumps({**cal.to_json(), "path": str(path)})
        if as_json
        else f"{_describe(cal)}\nstored in {path}"
    )


def _describe(c: Calibration) -> str:
    where = (
        f"measured on {c.checks} identical-program checks, {c.slots} timing slot(s) busy"
        + (f", at load {c.load:.2f} per CPU" if c.load is not None else "")
        if c.measured
        else "built-in default"
    )
    return (
        f"noise floor {c.noise_floor * 100:.2f}% (sd of log speedup between checks), "
        f"practical margin ±{c.margin * 100:.1f}% ({where})"
    )
