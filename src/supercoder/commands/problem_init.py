"""`supercoder problem init prog.c --inputs DIR`: a problem folder from C and inputs.

Its options come in four groups (``commands/optionset.py``), each a frozen dataclass
whose ``Fields:`` are its flags' help: ``BuildOptions`` (how the program is built),
``CompareOptions`` (how outputs are compared), ``TestsOptions`` (the tests and their
runs) and ``DrawOptions`` (where the timed inputs come from); ``init_config`` makes the
``InitConfig`` of ``problems/init.py`` from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from supercoder.commands.options import (
    BASE_URL,
    CFLAGS,
    FORCE,
    INPUTS,
    LDFLAGS,
    MODEL,
    OUT,
    SPLIT,
    TIMEOUT,
    generator_llm,
)
from supercoder.commands.optionset import flags, with_groups
from supercoder.errors import UserError
from supercoder.problems.init import InitConfig, create_from_sources
from supercoder.problems.outputs import Rule, RuleKind, parse_field_spec
from supercoder.problems.sources import with_build_flags
from supercoder.prompting.inputgen import write_pair
from supercoder.types import MEMORIZABLE_WHY, NO_DRAW, NO_DRAW_NOTE

if TYPE_CHECKING:
    from collections.abc import Callable

    from supercoder.problems.init import InitReport


@dataclass(frozen=True)
class BuildOptions:
    """How the program is built: an option group of ``problem init``.

    Fields:
        cflags: extra gcc flags of the C program.
        ldflags: extra link flags of the C program.
        include: an include folder of the build (as gcc -I DIR; repeatable): what the
            program includes from it is copied into the problem.
        define: a define (as gcc -D NAME[=VALUE]; repeatable).
        join: build the further .c files as one translation unit with SOURCE
            (#included at its end) instead of apart: the answer then covers all of them.
        answer_unit: the .c file whose assembly is the answer (e.g. vm.c, where an
            interpreter's dispatch loop is): the model rewrites that unit, the others
            (main's included) are linked as gcc -O3 builds them. Repeat it to cover more
            units (joined into one: their static names must not clash). Default: the
            unit a profile of the -O3 build says the time goes in, else main's.
    """

    cflags: str = field(default="", metadata=flags(CFLAGS))
    ldflags: str = field(default="", metadata=flags(LDFLAGS))
    include: list[Path] | None = field(default=None, metadata=flags("-I", "--include"))
    define: list[str] | None = field(default=None, metadata=flags("-D", "--define"))
    join: bool = False
    answer_unit: list[str] | None = field(
        default=None, metadata=flags("--answer-unit", shown="the profile's hot unit")
    )

    def __post_init__(self) -> None:
        if self.answer_unit and self.join:
            raise UserError(
                "--answer-unit names one unit of a program built apart; --join makes one "
                "unit of them all (give one or the other)"
            )

    def compiler_flags(self) -> str:
        """--cflags with the include folders and defines (``sources.with_build_flags``)."""
        return with_build_flags(self.cflags, self.include or (), self.define or ())


@dataclass(frozen=True)
class CompareOptions:
    """How outputs are compared: an option group of ``problem init`` (``rules()``: the
    ``problem.json`` ``compare_rules`` its flags declare).

    Fields:
        compare: output comparison: exact, tokens or float:TOL.
        ignore_line: leave every output line this regex matches (a search) out of every
            comparison: a line with the program's own clock, e.g. --ignore-line 'Time:'
            (repeatable; problem.json compare_rules).
        mask: mask every match of this regex (each group's span, if it has groups) in
            both outputs before comparing: a pointer, --mask '0x[0-9a-f]+' (repeatable).
        ignore_field: leave the N-th whitespace-separated field (1 is the first) of each
            line REGEX matches (every line without REGEX@) out of every comparison, e.g.
            --ignore-field 'Ptr_Comp@2' (repeatable).
        tolerance: compare the N-th field of each line REGEX matches as a number within
            TOL (absolute or relative), e.g. --tolerance 'Result@2:1e-6' (repeatable).
    """

    compare: str = "exact"
    ignore_line: list[str] | None = field(
        default=None, metadata=flags("--ignore-line", metavar="REGEX")
    )
    mask: list[str] | None = field(default=None, metadata=flags("--mask", metavar="REGEX"))
    ignore_field: list[str] | None = field(
        default=None, metadata=flags("--ignore-field", metavar="[REGEX@]N")
    )
    tolerance: list[str] | None = field(
        default=None, metadata=flags("--tolerance", metavar="[REGEX@]N:TOL")
    )

    def rules(self) -> tuple[Rule, ...]:
        """The comparison rules the options declare (``compare_rules``)."""
        return compare_rules(self.ignore_line, self.mask, self.ignore_field, self.tolerance)


@dataclass(frozen=True)
class TestsOptions:
    """The tests and their runs: an option group of ``problem init``.

    Fields:
        hidden: folder of hidden-test inputs.
        split: the split recorded in problem.json.
        timeout: CPU seconds per reference run.
        exit_code: the exit status the program's runs end with by design (part of the
            answer: every candidate must exit with it too).
        args: command-line arguments of every run, one shell-quoted line: --args '5 -q'
            for every input, --args NAME='5 -q' for test NAME only (repeatable; without
            --inputs each NAME= makes a test NAME on empty stdin). Stored as
            tests/NAME.args; a NAME.args file beside an input works too. argv[0] is the
            same fixed name (./program) in every run.
        files: a data file the program reads by name (a folder: its files), shipped
            with every test (tests/NAME.files/) and placed in the working folder of every
            run: --args input.dat --files input.dat, or --files input.dat=data/large.dat
            (repeatable). A file the arguments name that exists here is shipped without
            it; a NAME.files/ folder beside an input is that test's. /dev/stdin is the
            run's stdin.
        stderr: compare what the program writes on stderr too, for a program that
            prints its result there: every build links a unit that makes its stderr the
            pipe its stdout is (as 2>&1 does), so both are compared in the order written.
    """

    __test__ = False  # not a pytest class

    hidden: Path | None = None
    split: str | None = field(default=None, metadata=flags(SPLIT))
    timeout: float = field(default=20.0, metadata=flags(TIMEOUT))
    exit_code: int = field(default=0, metadata=flags("--exit-code", min=0, max=255))
    args: list[str] | None = None
    files: list[Path] | None = field(default=None, metadata=flags("--files", metavar="[NAME=]PATH"))
    stderr: bool = False


@dataclass(frozen=True)
class DrawOptions:
    """Where the timed inputs come from: an option group of ``problem init``.

    Fields:
        constraint: a constraint of the input, as a statement gives it (repeatable):
            '1<=N<=200000', 'A_i<=10^9', '1<=A_i<=N', '|S|<=10^5', 'N=2^k' (a power of
            two), 'N=2^K' (two to the power of K, declared before it). Names map onto the
            inferred model's numbers in reading order (plain names: numbers outside
            repeats; A_i: repeated ones; |S|: words); init prints the mapping. Drawn
            inputs never pass them.
        generator: a Python input generator (generate(seed, size) -> str, optional SIZES
            list), copied in as gen.py: the timed inputs are drawn from it (run in the
            sandbox). Without one, init infers an input model from the inputs.
        validator: a Python input validator (reads one input on stdin, exits 0 when it
            is valid, as contest judges' validators do), copied in as validate.py: every
            input given must pass it, and a drawn input it rejects is never timed.
        llm_generator: ask the LLM --model names to write a generator and a validator
            from the C source and the inputs; kept (llm_gen.py, llm_validate.py) only if
            every input passes the validator and the reference runs cleanly on the
            generator's draws, else init says why they were dropped.
        show_all: keep every input visible. By default, where no input the model has
            not seen can be drawn (a handful of values, a domain too small to time), init
            keeps the largest inputs hidden so checks time inputs the model never saw.
        model: the model --llm-generator asks.
        base_url: its server's URL.
    """

    constraint: list[str] | None = None
    generator: Path | None = None
    validator: Path | None = None
    llm_generator: bool = False
    show_all: bool = False
    model: str | None = field(default=None, metadata=flags(MODEL, shown="none"))
    base_url: str | None = field(default=None, metadata=flags(BASE_URL, shown="the provider's"))

    def asker(self) -> Callable[[list[dict[str, str]]], str] | None:
        """The model --llm-generator asks (refused up front when it cannot be), or None."""
        return generator_llm(self.llm_generator, self.model, self.base_url, self.generator)


def init_config(
    building: BuildOptions,
    comparing: CompareOptions,
    tests: TestsOptions,
    draws: DrawOptions,
    force: bool = False,
) -> InitConfig:
    """The ``InitConfig`` the option groups make (progress lines on stderr)."""
    return InitConfig(
        force=force,
        hidden_dir=tests.hidden,
        cflags=building.compiler_flags(),
        ldflags=building.ldflags,
        compare=comparing.compare,
        compare_rules=comparing.rules(),
        split=tests.split,
        timeout=tests.timeout,
        exit_code=tests.exit_code,
        stderr=tests.stderr,
        generator=draws.generator,
        constraints=tuple(draws.constraint or ()),
        args=tuple(tests.args or ()),
        join=building.join,
        validator=draws.validator,
        files=tuple(tests.files or ()),
        show_all=draws.show_all,
        answer_unit=(building.answer_unit or [""])[0],
        also_answer=tuple((building.answer_unit or [])[1:]),
        hot_unit=profiled_hot_unit,
        undrawable=undrawable,
        progress=lambda line: typer.echo(line, err=True),
    )


@with_groups(building=BuildOptions, comparing=CompareOptions, tests=TestsOptions, draws=DrawOptions)
def problem_init(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="The C program (reads stdin, writes stdout), then any further .c files "
            "its build compiles (each its own translation unit, linked together; --join "
            "makes them one).",
            metavar="SOURCE [MORE.c]...",
        ),
    ],
    inputs: Annotated[Path | None, INPUTS] = None,
    out: Annotated[Path | None, OUT] = None,
    force: Annotated[bool, FORCE] = False,
    *,
    building: BuildOptions,
    comparing: CompareOptions,
    tests: TestsOptions,
    draws: DrawOptions,
) -> None:
    """Make a problem folder from SOURCE and its test inputs.

    Expected outputs come from running the -O3 reference build (gcc -O3 + --cflags,
    linked with --ldflags; twice, in the sandbox): a program whose two runs differ is
    refused as non-deterministic. Official answers found beside the inputs (Kattis .ans,
    CodeNet output_N.txt, NAME.out, out1 beside in1) are compared with the reference
    output and every disagreement is reported; init lists which files became inputs.
    The build may be given as the program's repository documents it: further .c files
    (compiled apart and linked, as the repository does; the answer is the assembly of
    the unit the profile says the time goes in, or --answer-unit's, the others linked as
    gcc -O3 builds them; --join: one unit), include folders (-I DIR, or -I in
    --cflags), quoted includes of .h or .c files: what it includes is copied into the
    problem and the flags are rewritten to point inside it. Nothing is left behind if init fails. A program that prints
    nothing on stdout is refused (outputs are compared on stdout). A program whose
    output does not depend on its input (or given no --inputs) is marked
    memorizable (problem.json "reads_input": false).

    Example: supercoder problem init sum.c --inputs inputs/ -o problems/sum --constraint 'N<=200000'
    Example: supercoder problem init perft.c --args d4=4 --args d5=5 -o problems/perft
    Example: supercoder problem init par.c --inputs kattis/par --cflags -fopenmp --compare float:1e-6
    Example: supercoder problem init bench.c --args 20 --ignore-line 'Time:' -o problems/bench
    Example: supercoder problem init crc.c --args 'data.bin' --files data.bin -o problems/crc
    Example: supercoder problem init main.c vm.c chunk.c --answer-unit vm.c --inputs scripts/ -o clox
    Example: supercoder problem init kernels/atax/atax.c utilities/polybench.c -I utilities -DLARGE_DATASET -DPOLYBENCH_DUMP_ARRAYS -DPOLYBENCH_DUMP_TARGET=stdout -o atax
    """
    ask = draws.asker()
    opts = init_config(building, comparing, tests, draws, force)
    report = create_from_sources(sources, inputs, out, opts)
    if opts.compare_rules:
        rules = ", ".join(r.describe() for r in opts.compare_rules)
        typer.echo(f"outputs compared after leaving out: {rules} (problem.json compare_rules)")
    pair = None
    if ask is not None and report.reads_input:
        typer.echo(f"asking {draws.model} for a generator and a validator...", err=True)
        pair = write_pair(report.folder, ask, str(draws.model))
    _print_report(report, given_inputs=inputs is not None or bool(tests.args), pair=pair)


def compare_rules(
    ignore_line: list[str] | None,
    mask: list[str] | None,
    ignore_field: list[str] | None,
    tolerance: list[str] | None,
) -> tuple[Rule, ...]:
    """The comparison rules the options declare, in the order: lines, masks, fields,
    tolerances; a one-line error naming the bad one."""
    rules: list[Rule] = []
    try:
        rules += [Rule(RuleKind.IGNORE_LINE, r) for r in ignore_line or ()]
        rules += [Rule(RuleKind.MASK, r) for r in mask or ()]
        rules += [parse_field_spec(f, with_tolerance=False) for f in ignore_field or ()]
        rules += [parse_field_spec(f, with_tolerance=True) for f in tolerance or ()]
    except ValueError as e:
        raise UserError(f"comparison rule: {e}") from e
    return tuple(rules)


def undrawable(folder: Path) -> str | None:
    """None where a check of the problem in ``folder`` draws a fresh input from some
    source (``verify.unseen``: one check's draws, seed 0); else why each source but the
    input model (init says why that one cannot) gives none, in one line."""
    from supercoder.problems.loading import load_problem
    from supercoder.verify.unseen import DRAWS, draw_from_sources

    found = draw_from_sources(load_problem(folder), DRAWS, seed=0)
    if found.tests:
        return None
    return "; ".join(d for d in found.dropped if not d.startswith("model:"))


def profiled_hot_unit(folder: Path) -> tuple[str, str] | None:
    """Where a multi-unit program's time goes (``prompting.profiling.hot_unit``)."""
    from supercoder.prompting.profiling import hot_unit as profile_units

    return profile_units(folder)


def _print_report(report: InitReport, given_inputs: bool, pair=None) -> None:
    """What init found and made: warnings on stderr, then the inputs found, the files
    copied in, where the timed inputs come from, the folder made, and (a program that
    reads no input) why it is memorizable."""
    for line in report.disagreements:
        typer.echo(f"warning: {line}", err=True)
    if report.disagreements:
        typer.echo(
            f"warning: the reference disagrees with {len(report.disagreements)} official answer(s); "
            "the reference output was kept as the expected output",
            err=True,
        )
    for line in report.warnings:
        typer.echo(f"warning: {line}", err=True)
    for line in report.found:
        typer.echo(line)
    for line in report.moved:
        typer.echo(f"copied into the problem: {line}")
    if report.headers:
        typer.echo(f"files copied into the problem: {', '.join(report.headers)}")
    if pair is not None:
        typer.echo(pair.line())
    if pair is not None and pair.kept:
        typer.echo(
            "timed inputs: drawn for every check from the generator the model wrote "
            "(llm_gen.py), each passing its validator (llm_validate.py)"
        )
    elif report.timed:
        typer.echo(report.timed)
    if report.answer:
        typer.echo(report.answer)
    if report.domain:
        typer.echo(f"domain: {report.domain}")
    if report.kept_hidden and report.short:
        typer.echo(
            f"note: {report.short}; the largest input(s) ({', '.join(report.kept_hidden)}) "
            "are kept hidden (hidden/): a check whose draws all run under 5 ms times them, "
            "and the model never sees them; --show-all keeps every input visible"
        )
    elif report.kept_hidden:
        typer.echo(
            f"note: no input the model has not seen can be drawn ({report.stale}): the "
            f"largest input(s) ({', '.join(report.kept_hidden)}) are kept hidden (hidden/): "
            "checks time them and the model never sees them; --show-all keeps every "
            "input visible"
        )
    elif report.no_draw:
        typer.echo(
            f"note: {NO_DRAW}: {report.no_draw}; no input can be kept hidden (one input, "
            "every one under 5 ms, "
            f'or --show-all): {NO_DRAW_NOTE} (problem.json "no_draw"; verdicts, eval and '
            "reports mark it memorizable, the default training reward pays 0 on it). For "
            "a figure on inputs the model never sees, give hidden ones (--hidden DIR), "
            "more inputs, a --generator or wider --constraint bounds"
            + (
                '; every test runs under 5 ms of reference CPU (problem.json "too_small": '
                "true): no speedup can be timed on it until one runs longer"
                if report.too_small
                else ""
            )
        )
    elif report.too_small and not report.reads_input:
        typer.echo(
            "note: every test runs under 5 ms of reference CPU (problem.json "
            '"too_small": true), and its tests are timed as given (the output does not '
            "depend on the input): no speedup can be timed on it; give a test that runs "
            "longer (a larger argument or input). If a larger one runs no longer, gcc -O3 "
            "has removed the repeated work and there is nothing left to time"
        )
    elif report.too_small and "every drawn input gets the same output" not in report.domain:
        typer.echo(too_small_note(report.domain))
    elif report.stale and not report.hidden:
        typer.echo(
            f"note: checks may be untimed: no input the model has not seen can be drawn "
            f"({report.stale}), only mutations of the inputs are left to try, and no input "
            "can be kept hidden (one input, or every one under 5 ms); give more or larger "
            "inputs (--inputs), hidden ones (--hidden DIR), a --generator, or wider "
            "--constraint bounds"
        )
    tests = (
        f"{report.layout} layout: {report.visible} visible, {report.hidden} hidden tests"
        if given_inputs
        else "no inputs: one test, run on empty stdin"
    )
    typer.echo(f"created {report.folder} ({tests})")
    if not report.reads_input:
        typer.echo(
            f"note: {MEMORIZABLE_WHY} (it printed the same output "
            + ("with empty stdin as on every input" if given_inputs else "on empty stdin")
            + '; problem.json "reads_input": false): the problem is memorizable, a candidate '
            "could print the expected output without computing it. It is timed on its visible "
            "tests, verdicts, eval and reports mark it memorizable and count it apart, the "
            "default training reward pays 0 on it; the build search optimizes it as usual."
        )
        typer.echo(f"note: {report.sizes}")


_REFUSED_LARGER = re.compile(r"growth stopped at ([^ ]+) \((runtime_error|wrong_output|timeout)")


def too_small_note(domain: str) -> str:
    """init's note on a problem whose whole input domain runs under the meter's floor:
    what to give, unless the program itself fails on larger inputs (its domain line says
    growth stopped on a failure): then no input can be larger, and the note says so."""
    head = (
        "note: the whole input domain runs under 5 ms of reference CPU (problem.json "
        '"too_small": true): no speedup can be timed on it; '
    )
    refused = _REFUSED_LARGER.search(domain)
    if refused:
        return head + (
            f"the program itself fails on inputs larger than {refused.group(1)} the largest "
            f"seen ({refused.group(2)}): its own bounds (fixed arrays, a size it checks) "
            "keep every input this short, so only a build with larger bounds can be timed"
        )
    return head + (
        "give larger inputs, declare larger constraints (--constraint) or a generator "
        "with larger SIZES"
    )
