"""The public vocabulary: immutable values passed between stages."""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar

from supercoder.codec import (
    EXTRA,
    Json,
    JsonObject,
    decode,
    encode,
    opts,
    stored_version,
    versioned,
)
from supercoder.origin import Origin as Origin
from supercoder.origin import StrategyProvenance as StrategyProvenance  # as before: origin.py
from supercoder.origin import register_provenance as register_provenance
from supercoder.settings import ProblemSettings


class Status(enum.StrEnum):
    """Outcome of a candidate (or of one test run).

    ``infra_error`` is the machine failing, never the candidate: callers retry or
    drop it and must not score it as wrong.
    """

    OK = "ok"
    NO_ANSWER = "no_answer"
    COMPILE_ERROR = "compile_error"
    WRONG_OUTPUT = "wrong_output"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    OUTPUT_LIMIT = "output_limit"
    MEMORY_LIMIT = "memory_limit"
    INFRA_ERROR = "infra_error"

    def __str__(self) -> str:
        return self.value


NOT_ASSEMBLED = frozenset({Status.NO_ANSWER, Status.COMPILE_ERROR, Status.INFRA_ERROR})
"""THE definition of "compiled" (assembled and linked), used by every figure that says it
(``Verdict.assembled``): no answer and a build failure did not; an infrastructure failure
does not count either way as the candidate's, so it is never counted as compiled."""


@dataclass(frozen=True)
class TestCase:
    """One test: stdin bytes and the exact expected stdout.

    ``input`` may be produced lazily (large generated inputs); use ``read_input()``.
    ``hidden`` tests are used by the evaluator but never shown in prompts.
    """

    __test__ = False  # not a pytest class

    name: str
    expected: bytes
    input_bytes: bytes | None = None
    input_factory: Callable[[], bytes] | None = field(default=None, compare=False, repr=False)
    hidden: bool = False
    args: tuple[str, ...] = ()  # command-line arguments (``tests/NAME.args``); argv[0] is fixed
    # data files the run finds in its working folder (``tests/NAME.files/``): (name, bytes)
    files: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)

    def read_input(self) -> bytes:
        """The test's stdin."""
        if self.input_bytes is not None:
            return self.input_bytes
        if self.input_factory is None:
            raise ValueError(f"test {self.name} has no input")
        return self.input_factory()

    def run_input(self) -> bytes:
        """What a run of this test is given: its stdin, led by its arguments and its data
        files when it has any (``with_args``); every path that runs a test passes this
        to the sandbox."""
        return with_args(self.args, self.read_input(), self.files)


# A run's input as one byte string: the arguments (one shell-quoted line after this mark),
# then the data files placed in the run's working folder (after FILES_MARK: a count, then
# per file its name and byte length on a line each, then its bytes), then stdin. Inputs
# travel through timing, drawn inputs, digests and caches as bytes; the sandbox splits
# them (``split_run``) into argv, files and stdin, so arguments and files are part of
# every input's identity and drawn like the rest of it (the input model sees the
# arguments as a first line, and a test's one data file as its body: ``data_file_view``).
ARGS_MARK = b"\0supercoder-args\0"
FILES_MARK = b"\0supercoder-files\0"
MAX_ARGS_LINE = 64 << 10  # bytes of one test's argument line (the sandbox takes 128 KiB)
MAX_FILES = 64  # data files of one test
_FILE_NAME = re.compile(
    r"[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,99}(/[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,99}){0,3}"
)

Files = tuple[tuple[str, bytes], ...]


def is_data_file_name(name: str) -> bool:
    """A name a test's data file may have: a relative path of at most four parts, each
    of letters, digits and ``._+-`` (not starting with a dot): nothing outside the run's
    folder, no hidden or odd names."""
    return bool(_FILE_NAME.fullmatch(name))


def with_args(
    args: tuple[str, ...] | list[str],
    stdin: bytes,
    files: Files | list[tuple[str, bytes]] = (),
) -> bytes:
    """``stdin`` led by ``args`` and ``files`` (unchanged when there are none)."""
    if not args and not files:
        return stdin
    import shlex

    head = ARGS_MARK + shlex.join(args).encode() + b"\n" if args else b""
    if files:
        head += FILES_MARK + b"%d\n" % len(files)
        for name, data in sorted(files):
            head += name.encode() + b"\n" + b"%d\n" % len(data) + bytes(data)
    return head + stdin


def parse_args(text: str) -> tuple[str, ...]:
    """A test's arguments from their one shell-quoted line (``tests/NAME.args``,
    ``problem init --args``); ValueError for more than one line, NUL, or bad quoting."""
    import shlex

    line = text.removesuffix("\n")
    if "\n" in line or "\0" in line:
        raise ValueError("arguments are one shell-quoted line (no newline or NUL inside)")
    if len(line.encode(errors="replace")) > MAX_ARGS_LINE:
        raise ValueError(f"arguments are at most {MAX_ARGS_LINE >> 10} KiB")
    try:
        return tuple(shlex.split(line))
    except ValueError as e:
        raise ValueError(f"not a shell-quoted line: {e}") from e


def split_args(data: bytes) -> tuple[tuple[str, ...], bytes]:
    """(arguments, stdin) of a run's input made by ``with_args`` (its data files left
    out: ``split_run``); a line that does not parse as shell words is taken as
    whitespace-separated words."""
    args, _, stdin = split_run(data)
    return args, stdin


def split_run(data: bytes) -> tuple[tuple[str, ...], Files, bytes]:
    """(arguments, data files, stdin) of a run's input made by ``with_args``; a files
    block that does not parse (or names a file outside the run's folder) is stdin."""
    args: tuple[str, ...] = ()
    if data.startswith(ARGS_MARK):
        import shlex

        line, _, rest = data[len(ARGS_MARK) :].partition(b"\n")
        if b"\0" not in line and len(line) <= MAX_ARGS_LINE:  # else: all stdin
            text = line.decode(errors="replace")
            try:
                args = tuple(shlex.split(text))
            except ValueError:
                args = tuple(text.split())
            data = rest
    if not data.startswith(FILES_MARK):
        return args, (), data
    files = _split_files(data[len(FILES_MARK) :])
    if files is None:
        return args, (), data
    return args, files[0], files[1]


def _split_files(data: bytes) -> tuple[Files, bytes] | None:
    count, _, rest = data.partition(b"\n")
    if not count.isdigit() or int(count) > MAX_FILES:
        return None
    out = []
    for _ in range(int(count)):
        name, _, rest = rest.partition(b"\n")
        size, _, rest = rest.partition(b"\n")
        text = name.decode(errors="replace")
        if not size.isdigit() or int(size) > len(rest) or not is_data_file_name(text):
            return None
        out.append((text, rest[: int(size)]))
        rest = rest[int(size) :]
    return tuple(out), rest


def data_file_view(data: bytes) -> tuple[bytes, str | None]:
    """A run's input as the input model sees it: one whose stdin is empty and which ships
    exactly one data file is that file, after its arguments (its name returned); any
    other input as it is, its files left out (None)."""
    args, files, stdin = split_run(data)
    if len(files) == 1 and not stdin:
        return with_args(args, files[0][1]), files[0][0]
    return with_args(args, stdin), None


def from_data_file_view(data: bytes, name: str) -> bytes:
    """The inverse of ``data_file_view`` for a drawn input: its body is the file ``name``."""
    args, _, body = split_run(data)
    return with_args(args, b"", ((name, body),))


@dataclass(frozen=True)
class Problem:
    """A C program with tests. ``baseline_asm`` is gcc -O3 -S output (built if None)."""

    name: str
    source: str
    tests: tuple[TestCase, ...]
    baseline_asm: str | None = None
    split: str | None = None
    # problem.json, typed (``settings.py``: adding a setting is one field there), with
    # ``path``, the folder it was loaded from
    settings: ProblemSettings = field(default_factory=ProblemSettings, compare=False)

    @property
    def visible_tests(self) -> tuple[TestCase, ...]:
        return tuple(t for t in self.tests if not t.hidden)

    def source_hash(self) -> str:
        """The source's digest (with its headers', when the folder has any)."""
        text = self.source + (f"\n//headers {self.settings.headers_sha}" if self.headers else "")
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def path(self) -> str | None:
        """The folder the problem was loaded from (None for one made in memory)."""
        return self.settings.path

    @property
    def headers(self) -> bool:
        """Whether the problem folder holds headers (``*.h``) its source may include."""
        return bool(self.settings.headers_sha)

    @property
    def compile_flags(self) -> tuple[str, ...]:
        """Every compile of the C source: the cflags, then the problem folder on the quoted
        include path when it holds headers (``#include "sha.h"`` beside source.c)."""
        folder = self.settings.path
        return (*self.cflags, *(("-iquote", str(folder)) if self.headers and folder else ()))

    @property
    def units(self) -> tuple[str, ...]:
        """The program's other translation units (``problem.json`` ``units``: ``.c``
        files in the problem, compiled apart at ``-O3`` and linked with every build of
        ``source.c``, as the program's repository builds them); the answer is
        ``source.c``'s assembly."""
        return self.settings.units

    @property
    def answer_unit(self) -> str:
        """The program's file whose text is ``source.c`` when it is not main's
        (``problem.json`` ``answer_unit``: ``problem init --answer-unit vm.c`` or the
        profile's choice); "" when ``source.c`` is the unit with ``main``."""
        return self.settings.answer_unit or ""

    @property
    def answer_joined(self) -> tuple[str, ...]:
        """Further units the answer covers (``#include``d at the end of ``source.c``: a
        second ``problem init --answer-unit``)."""
        return self.settings.answer_joined

    @property
    def main_unit(self) -> str:
        """With ``answer_unit``: the unit (one of ``units``) that holds ``main``."""
        return self.settings.main_unit or ""

    @property
    def cflags(self) -> tuple[str, ...]:
        """Extra compiler flags (``problem.json`` ``cflags``): the reference, the baseline
        (gcc -O3 + these) and every build of the C source use them."""
        return split_flags(self.settings.cflags)

    @property
    def ldflags(self) -> tuple[str, ...]:
        """Extra linker flags (``problem.json`` ``ldflags``), e.g. ``-lgmp``."""
        return split_flags(self.settings.ldflags)

    @property
    def link_flags(self) -> tuple[str, ...]:
        """What every link of this problem's programs (baseline and candidates) appends:
        the cflags (``-fopenmp`` also links libgomp) then the ldflags."""
        return (*self.cflags, *self.ldflags)

    @property
    def exit_code(self) -> int:
        """The exit status of every run of this program (``problem.json`` ``exit_code``,
        0 by default): the reference's and every candidate's; another is a failure."""
        return self.settings.exit_code

    @property
    def reads_input(self) -> bool:
        """Whether the program's output depends on its input (``problem.json``
        ``reads_input``; true unless ``problem init`` found it prints the same output with
        no input as on every test, or it was given no inputs at all)."""
        return self.settings.reads_input

    @property
    def memorizable(self) -> bool:  # why, in words: ``memorizable_why``
        """A problem whose gain may be memorized: a program that reads no input (its
        expected output is one fixed text, so a candidate may print it without computing
        it), or one no input can be drawn for (``problem.json`` ``no_draw``: a fixed
        workload, every fresh draw refused, no hidden test; its visible tests are all
        there is to time, and a candidate may print their outputs; a hidden test given
        since is timed instead, as for any problem). Such problems are
        timed on their visible tests and marked ``memorizable`` in verdicts, summaries
        and reports (never counted as improved); the default training reward pays 0."""
        if not self.reads_input:
            return True
        return bool(self.settings.no_draw) and not any(t.hidden for t in self.tests)

    @property
    def memorizable_why(self) -> str:
        """Why the problem is memorizable, in words ("": it is not)."""
        if not self.reads_input:
            return MEMORIZABLE_WHY
        return f"{NO_DRAW}: {self.settings.no_draw}" if self.memorizable else ""

    @property
    def compare(self) -> str:
        """How outputs are compared (``problem.json`` ``compare``): exact by default."""
        return self.settings.compare or "exact"


# why a problem is memorizable, in the one wording every command prints: the program
# may read its stdin or arguments, its output just does not change with them
MEMORIZABLE_WHY = "its output does not depend on its input"
# ... or no input the model never saw can be drawn for it (``Problem.memorizable_why``
# starts so, then says why), and what that means, said beside it
NO_DRAW = "no input can be drawn"
NO_DRAW_NOTE = (
    "timed on its visible tests like a memorizable problem: a gain may be memorized, "
    "so it is not counted as improved"
)


def memorizable_reason(domain: str) -> str:
    """Why a memorizable verdict's problem is so, from its domain line
    (``Measurement.domain``: ``memorizable: none: WHY``, ``problem show``'s ``none: WHY
    (memorizable)``)."""
    why = domain.removeprefix("memorizable: ").removeprefix("none: ")
    why = why.removesuffix(" (memorizable)")
    return why if why.startswith(NO_DRAW) else MEMORIZABLE_WHY


def memorizable_note(why: str) -> str:
    """What a memorizable problem's verdict says, after ``memorizable: ``."""
    if why.startswith(NO_DRAW):
        return f"{why}; {NO_DRAW_NOTE}"
    return (
        f"{why}, so an answer may print its output without computing it; timed on its visible tests"
    )


def split_flags(value: object) -> tuple[str, ...]:
    """Flags from problem.json: a shell-quoted string or a list of strings."""
    import shlex

    if not value:
        return ()
    if isinstance(value, str):
        return tuple(shlex.split(value))
    return tuple(str(v) for v in value)


@dataclass(frozen=True)
class Candidate:
    """A proposed assembly program and where it came from (``origin``)."""

    asm: str | None
    origin: Origin = field(default_factory=Origin, compare=False)

    @property
    def has_answer(self) -> bool:
        return bool(self.asm and self.asm.strip())


MIN_PRACTICAL_MARGIN = 0.01  # a speedup inside [0.99, 1.01] is never called significant


def practical_significance(low: float, high: float, margin: float = MIN_PRACTICAL_MARGIN) -> int:
    """THE definition of "significantly faster/slower", used everywhere the word appears.

    +1 (significantly faster) when the whole 95% CI ``[low, high]`` lies above the
    practical band ``[1 - m, 1 + m]``; -1 (significantly slower) when it lies below it;
    0 otherwise. ``m`` is ``margin`` but never less than ``MIN_PRACTICAL_MARGIN``: a
    difference smaller than the machine's check-to-check noise is not a speedup.
    """
    m = max(float(margin), MIN_PRACTICAL_MARGIN)
    if low > 1.0 + m:
        return 1
    if high < 1.0 - m:
        return -1
    return 0


@dataclass(frozen=True)
class Speedup:
    """baseline time / candidate time, with a 95% confidence interval.

    ``margin`` is the practical band's half-width in effect when it was measured (the
    machine's calibrated noise floor, at least 1%): see ``practical_significance``.
    """

    value: float
    low: float
    high: float
    samples: int
    tests_timed: int
    method: str = (
        "median paired log-ratio of CPU time, geometric mean over tests, 95% CI: bootstrap over "
        "rounds widened by the machine's between-check noise floor"
    )
    margin: float = MIN_PRACTICAL_MARGIN

    @property
    def significantly_faster(self) -> bool:
        """The whole CI lies above ``1 + margin``."""
        return practical_significance(self.low, self.high, self.margin) > 0

    @property
    def significantly_slower(self) -> bool:
        """The whole CI lies below ``1 - margin``."""
        return practical_significance(self.low, self.high, self.margin) < 0

    @property
    def significant(self) -> bool:
        """Significantly faster or significantly slower."""
        return practical_significance(self.low, self.high, self.margin) != 0


@dataclass(frozen=True)
class TestResult:
    __test__ = False

    name: str
    status: Status
    detail: str = ""
    speedup: float | None = None
    speedup_ci: tuple[float, float] | None = None
    baseline_seconds: float | None = None
    candidate_seconds: float | None = None
    baseline_wall_seconds: float | None = None
    candidate_wall_seconds: float | None = None
    pairs: int = 0
    timed: bool = False
    # raw paired CPU seconds (user+sys) in run order: pair i is (baseline_samples[i],
    # candidate_samples[i]); every timed test keeps them so a stored verdict can be re-analysed
    baseline_samples: tuple[float, ...] = ()
    candidate_samples: tuple[float, ...] = ()
    sample_rounds: tuple[int, ...] = ()  # the meter's round of each pair (bootstrap unit)


@dataclass(frozen=True)
class IsaUse:
    """Which CPUs a program runs on (``toolchain/isa.py`` decodes its object code).

    Fields:
        extensions: the ISA extensions its instructions need beyond x86-64's baseline
            (``AVX2``, ``BMI2``, ...; ``UNKNOWN``: bytes the decoder could not read).
        level: the lowest x86-64 level with every one of them (``x86-64``,
            ``x86-64-v2``, ``-v3``, ``-v4``); None when no level has them all.
        target: the ``--target`` it was built and checked for.
        examples: for each extension, the first instruction that needs it (stored as an
            object).
    """

    extensions: tuple[str, ...] = ()
    level: str | None = "x86-64"
    target: str = "native"
    examples: tuple[tuple[str, str], ...] = field(default=(), metadata=opts(as_object=True))

    def summary(self) -> str:
        """One phrase: ``needs AVX2, FMA: runs on x86-64-v3`` or the baseline."""
        if not self.extensions:
            return "needs nothing beyond x86-64: runs on any x86-64 CPU"
        runs = f"runs on {self.level}" if self.level else "in no x86-64 level"
        return f"needs {', '.join(self.extensions)}: {runs}"


@dataclass(frozen=True)
class DataSize:
    """The data a candidate's program holds against the baseline's (``toolchain/sections.py``:
    ``.rodata``, ``.data``, ``.bss`` and their kin, in the linked binaries). Stored as
    ``baseline_bytes``, ``candidate_bytes``, ``threshold_bytes`` and the derived
    ``added_bytes`` and ``grew``.

    Fields:
        baseline: the baseline program's data bytes.
        candidate: the candidate program's data bytes.
        threshold: added bytes above which the verdict flags the growth (``grew``).
        tables: each lookup table the answer adds, named in one line (any size).
    """

    baseline: int = field(default=0, metadata=opts(key="baseline_bytes"))
    candidate: int = field(default=0, metadata=opts(key="candidate_bytes"))
    threshold: int = field(default=512, metadata=opts(key="threshold_bytes"))
    # every lookup table the answer adds (``analysis``: a data object it indexes at run
    # time), whatever its size, each in one line: name, bytes, section, index
    tables: tuple[str, ...] = field(default=(), metadata=opts(omit_default=True))

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("added_bytes", "grew")

    @property
    def added(self) -> int:
        return self.candidate - self.baseline

    @property
    def grew(self) -> bool:
        """The candidate adds more data than ``threshold``: a table or a memo."""
        return self.added > self.threshold

    def summary(self) -> str:
        """One line for a reviewer: how much data the answer adds, and what it may mean."""
        return (
            f"data: the answer adds {self.added:,} bytes of data (.rodata/.data/.bss: "
            f"{self.candidate:,} against the baseline's {self.baseline:,}): a table or "
            "memo, which pays only where it covers the whole input domain; see "
            "`supercoder analyze` for where it is read"
        )

    def derived_json(self) -> dict[str, object]:
        return {"added_bytes": self.added, "grew": self.grew}

    def tables_line(self) -> str:
        """The tables the answer adds, in one line ("" when none)."""
        if not self.tables:
            return ""
        return (
            f"tables: the answer adds {len(self.tables)} lookup table(s): "
            + "; ".join(self.tables)
            + " (paid only where the speedup holds past the cut; a trainer may choose not "
            "to pay tables: RewardConfig(pay_tables=False))"
        )


# The verdict's JSON format: ``format_version`` in ``Verdict.to_json()``. A change to the
# keys bumps it and adds a line here; ``from_json`` reads every earlier version.
#   1: before versioning (no ``format_version`` key); read as 1.
#   2: ``format_version``; the context names the supercoder version, the meter protocol,
#      the noise floor and margin in force and the date.
#   3: ``tests`` lists the visible tests only; the hidden and generated ones are reported
#      together under ``unseen`` (``UnseenResult``: how many, one status, aggregate times);
#      ``tests_total`` counts both.
#   4: ``isa`` (``IsaUse``: the extensions the candidate needs, its lowest
#      x86-64 level, the target it was checked for; null when it was not built).
#   5: ``data`` (``DataSize``: the candidate's data bytes against the baseline's,
#      and whether it grew past the threshold; null when it was not built).
# Every change so far only added keys (a missing one reads as its default), so no version
# needs a migration; the context, an open object in every version, is typed
# (``VerdictContext``) and gained ``samples`` (the timed draws' raw pairs) within
# format 5, which older readers ignore.
VERDICT_FORMAT_VERSION = 5


@dataclass(frozen=True)
class UnseenResult:
    """The tests the model never saw (hidden and generated), reported together.

    A per-test status of a secret input is an oracle (a candidate can encode bits of the
    input in its failure mode), so a verdict says of these tests only how many there were
    and one status: ``ok``, or the most severe failure class among them, never which test
    failed, its input, expected output, what the candidate printed, its exit code or its
    time. Only aggregates of the timing are kept.

    Fields:
        count: how many hidden and generated tests the candidate ran on.
        status: ``Status.OK`` when it passed all of them, else one failure class.
        timed: how many of them enter the aggregate speedup (0 when not timed).
        baseline_seconds: the baseline's fastest run, summed over the timed ones.
        candidate_seconds: the candidate's fastest run, summed over the timed ones.
        long_enough: the meter found some of them long enough to time (None: not timed).
    """

    count: int
    status: Status
    timed: int = 0
    baseline_seconds: float | None = None
    candidate_seconds: float | None = None
    long_enough: bool | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.OK


@dataclass(frozen=True, kw_only=True)
class Machine:
    """Where and when a verdict was measured (``toolchain/gcc.py`` ``machine_context``).

    Fields:
        supercoder: the supercoder version (package metadata).
        date: when, UTC, ISO 8601.
        gcc: the gcc that built the baseline.
        cpu: the CPU model.
        cores: the machine's logical CPUs.
        kernel: the kernel release.
        python: the Python version.
    """

    OMIT_DEFAULTS: ClassVar[bool] = True
    LENIENT: ClassVar[bool] = True  # an open object in every format: a bad value is a default

    supercoder: str = ""
    date: str = ""
    gcc: str = ""
    cpu: str = ""
    cores: int = 0
    kernel: str = ""
    python: str = ""


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """How a verdict was measured: the machine and the protocol in force.

    Fields:
        machine: where and when (``Machine``; its keys stored in the context itself).
        meter: the meter protocol's id (``timing/meter.py`` ``PROTOCOL``).
        noise_floor: the machine's calibrated between-check noise floor in force
            (widened where the check ran busier than the floor was measured:
            ``timing.calibration.floor_at_load``).
        floor_load: the load per CPU that floor was measured at.
        margin: the practical band's half-width in force.
        stop: the meter's stop rule, when not the default.
        interval: what the interval is over, when not the tests (drawn inputs).
        sandbox: ``bubblewrap``, or ``none (unsafe)``.
        target: the ``--target`` the candidate was built and checked for.
        baseline: a note on the baseline, when the problem carried a ``baseline.s`` that
            is not the reader's own gcc -O3 build (not used: rebuilt); "" otherwise.
    """

    OMIT_DEFAULTS: ClassVar[bool] = True
    LENIENT: ClassVar[bool] = True  # an open object in every format: a bad value is a default

    machine: Machine = field(default_factory=Machine, metadata=opts(flatten=True))
    meter: str = ""
    noise_floor: float | None = None
    floor_load: float | None = None
    margin: float | None = None
    stop: str = ""
    interval: str = ""
    sandbox: str = ""
    target: str = ""
    baseline: str = ""


@dataclass(frozen=True)
class PairedSamples:
    """One timed input's raw paired CPU seconds (user+sys), unnamed (an input the model
    never saw: which one is not said): pair i is ``(baseline[i], candidate[i])``, measured
    in the meter's round ``rounds[i]``."""

    baseline: tuple[float, ...] = ()
    candidate: tuple[float, ...] = ()
    rounds: tuple[int, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Measurement:
    """What a verdict's timing did.

    Fields:
        checks: how many checks measured it (2: re-checked apart from its selection).
        first_check: the first check's speedup, when re-checked.
        pairs: timed pairs over every timed input.
        measure: what was measured (``cpu time (user+sys), wait4``).
        timing: how the speedup was measured, or why it was not (untimed).
        timed_inputs: where the timed inputs came from (``model``, ``validator``, ...).
        domain: the input domain and its source in one line.
        timed_sizes: which sizes were drawn (and the reference's CPU on them).
        dropped_sources: each input source dropped before the one used, with why.
        distinct_inputs: how many distinct inputs the speedup was timed on.
        cut: where the reference's time budget (not the problem's bounds) cuts the
            input domain, in words ("": it does not, or nothing was drawn past it).
        beyond_cut: the speedup on the draws past that cut (their own stratum; the
            verdict's ``speedup`` is the one below it); None where not measured.
        samples: the raw paired samples of the timed draws, one per input, unnamed (the
            visible tests keep theirs in ``TestResult``).
        load: the machine's load when it was timed: the 1-minute load average per
            logical CPU, read as the timing ended (``machine_load``).
        first_check_load: the load when the first check was timed, when re-checked
            (``load_change`` says when the two figures come from a busier or quieter
            machine).
    """

    OMIT_DEFAULTS: ClassVar[bool] = True
    LENIENT: ClassVar[bool] = True  # an open object in every format: a bad value is a default

    checks: int = 1
    first_check: Speedup | None = None
    pairs: int = 0
    measure: str = ""
    timing: str = ""
    timed_inputs: str = ""
    domain: str = ""
    timed_sizes: str = ""
    dropped_sources: tuple[str, ...] = ()
    distinct_inputs: int = 0
    cut: str = ""
    beyond_cut: Speedup | None = None
    samples: tuple[PairedSamples, ...] = ()
    load: float | None = None
    first_check_load: float | None = None


LOAD_CHANGE = 0.5  # load per CPU between two checks that marks their figures as apart


def machine_load() -> float | None:
    """The 1-minute load average per logical CPU now (None where there is none)."""
    import os

    try:
        return round(os.getloadavg()[0] / (os.cpu_count() or 1), 2)
    except OSError:
        return None


def load_change(then: float | None, now: float | None) -> str:
    """A note when two figures were timed on a machine loaded differently (their loads
    per CPU ``then`` and ``now`` differ by ``LOAD_CHANGE`` or more): which was busier,
    so the figures are read apart, not compared as equals; "" otherwise."""
    if then is None or now is None or abs(now - then) < LOAD_CHANGE:
        return ""
    how = "busier" if now > then else "quieter"
    return (
        f"the machine was {how} at this check than at the first (load {then:.2f} -> "
        f"{now:.2f} per CPU): the two figures are not from the same machine state"
    )


@dataclass(frozen=True, kw_only=True)
class VerdictContext:
    """A verdict's ``context``: its provenance and its measurement, stored as one flat
    object (the keys older readers know), read and written by the codec only.

    Fields:
        provenance: how and where it was measured (``Provenance``).
        measurement: what its timing did (``Measurement``).
        extra: keys a writer added that no field names (a plugin's), kept as stored.
    """

    provenance: Provenance = field(default_factory=Provenance, metadata=opts(flatten=True))
    measurement: Measurement = field(default_factory=Measurement, metadata=opts(flatten=True))
    extra: Mapping[str, Json] = field(default_factory=dict, metadata=EXTRA, hash=False)

    def measured(self, **changes: object) -> VerdictContext:
        """This context with ``changes`` to its measurement."""
        return replace(self, measurement=replace(self.measurement, **changes))


@versioned(VERDICT_FORMAT_VERSION, name="verdict")
@dataclass(frozen=True)
class Verdict:
    """Everything the evaluator concluded about one candidate on one problem.

    ``tests`` are the visible tests, one by one; the tests the model never saw are
    ``unseen``, reported together (``UnseenResult``). Verdicts stored before format 3
    may name hidden tests in ``tests`` (with their status only). Its JSON (``to_json``,
    the codec's) adds derived keys for readers: ``correct``, ``speedup`` and
    ``speedup_ci`` (the ``speedup_detail``'s), the significance flags, ``timed_tests``,
    ``tests_passed`` and ``tests_total``; reading ignores them."""

    problem: str
    status: Status
    tests: tuple[TestResult, ...] = ()
    speedup: Speedup | None = field(default=None, metadata=opts(key="speedup_detail"))
    paper_speedup: float | None = None
    identical_to_baseline: bool = False
    message: str = ""
    context: VerdictContext = field(default_factory=VerdictContext, compare=False)
    cpu_seconds_spent: float = 0.0
    unseen: UnseenResult | None = None
    isa: IsaUse | None = None
    memorizable: bool = False  # the problem reads no input (``Problem.memorizable``)
    data: DataSize | None = None  # the candidate's data against the baseline's

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = (
        "correct",
        "speedup",
        "speedup_ci",
        "significantly_faster",
        "significantly_slower",
        "timed_tests",
        "tests_passed",
        "tests_total",
    )

    @property
    def correct(self) -> bool:
        return self.status is Status.OK

    @property
    def tests_passed(self) -> int:
        """Visible tests passed, plus the unseen ones, which count only all together."""
        unseen = self.unseen.count if self.unseen and self.unseen.passed else 0
        return sum(1 for t in self.tests if t.status is Status.OK) + unseen

    @property
    def tests_total(self) -> int:
        return len(self.tests) + (self.unseen.count if self.unseen else 0)

    @property
    def is_infra_failure(self) -> bool:
        return self.status is Status.INFRA_ERROR

    @property
    def assembled(self) -> bool:
        """The candidate assembled and linked ("compiled"; see ``NOT_ASSEMBLED``)."""
        return self.status not in NOT_ASSEMBLED

    @property
    def significantly_faster(self) -> bool:
        """Correct, not a copy of the baseline, and the speedup's CI lies above the
        practical band (``Speedup.significantly_faster``)."""
        sp = self.speedup
        return bool(
            self.correct and not self.identical_to_baseline and sp and sp.significantly_faster
        )

    @property
    def significantly_slower(self) -> bool:
        sp = self.speedup
        return bool(
            self.correct and not self.identical_to_baseline and sp and sp.significantly_slower
        )

    @property
    def timed_tests(self) -> tuple[str, ...]:
        """Names of the tests whose timings enter the aggregate speedup."""
        return tuple(t.name for t in self.tests if t.timed)

    def derived_json(self) -> dict[str, object]:
        sp = self.speedup
        return {
            "correct": self.correct,
            "speedup": sp.value if sp else None,
            "speedup_ci": [sp.low, sp.high] if sp else None,
            "significantly_faster": self.significantly_faster,
            "significantly_slower": self.significantly_slower,
            "timed_tests": list(self.timed_tests),
            "tests_passed": self.tests_passed,
            "tests_total": self.tests_total,
            "cpu_seconds_spent": round(self.cpu_seconds_spent, 4),
        }

    def to_json(self) -> JsonObject:
        """The codec's JSON of this verdict (``encode``)."""
        return encode(self)  # type: ignore[return-value]

    @classmethod
    def from_json(cls, d: Mapping[str, object]) -> Verdict:
        """The codec's reading (``decode``) of this or an earlier format version: derived
        keys are recomputed, unknown ones ignored; a newer format is a ``UserError``."""
        return decode(cls, d)


def check_format_version(what: str, d: Mapping[str, object], current: int) -> int:
    """The ``format_version`` of a stored ``what`` (1 when it has none: written before
    versioning); a version newer than ``current`` is refused with a ``UserError``
    (``codec.stored_version``)."""
    return stored_version(what, d, current)
