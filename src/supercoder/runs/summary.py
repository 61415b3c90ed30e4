"""The typed results of an eval run: every summary figure as a frozen value with its JSON.

``metrics.summarize`` computes a ``RunSummary`` (per problem a ``ProblemRecord``; the
speedup statistics a ``Distribution``; the paper protocol's figures ``PaperFigures``);
``to_json()`` (the codec's ``encode``) is exactly what ``eval --json`` writes and the run
store keeps, and ``from_json()`` (``decode``) reads one back, of any earlier format (keys
an older summary lacks read as 0 / None; format 3's untimed problems migrate).
``RunContext`` is how a run was made (the store's ``runs.context``, the summary's
``context``).
``BatchStats`` is the same vocabulary for a batch of verdicts (training logs). The
definitions of the figures live in ``metrics``; these classes only carry them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from supercoder.codec import EXTRA, Json, JsonObject, decode, encode, opts, versioned
from supercoder.types import Machine, Status

# The summary's JSON format: ``format_version`` in ``RunSummary.to_json()`` (``eval --json``
# and the run store's ``runs.summary``). A change to the keys bumps it and adds a line
# here; ``from_json`` reads every earlier version.
#   1: before versioning (no ``format_version`` key); read as 1 (keys it lacks read as
#      0 / None).
#   2: ``format_version``.
#   3: ``fast_1.1`` over the whole benchmark (was: over the timed problems), every rate
#      null when no problem was scored; ``timed_share``, ``complete``; per problem
#      ``checks``, ``baseline_copy``, ``wall_seconds`` (a copy's ``speedup_ci`` is set).
#   4: per problem ``timed`` is true/false (was: null when nothing was timed) with
#      ``timed_reason``, and ``memorizable``; ``speedup``/``speedup_ci`` are null when the
#      answer is correct but its speedup was not measured (was: 1.0 beside ``timed``
#      false); ``problems_memorizable``, ``memorizable_improved``,
#      ``memorizable_geomean_speedup`` (memorizable problems are out of the headline
#      speedups); ``problems_untimed`` counts every correct unmeasured problem.
#   5: ``reward_form`` (the run's reward spec, ``eval --reward``) and ``mean_reward`` (its
#      mean over the scored problems' answers; null where it could not be paid).
#   6: per problem ``tables`` (each lookup table the chosen answer adds, named) and
#      ``beyond_cut`` (its speedup past the time budget's cut, null where none) with
#      ``holds_past_cut``; ``problems_with_tables``, ``not_holding_past_cut``.
SUMMARY_FORMAT_VERSION = 6

STAT_KEYS = ("avg", "median", "p25", "p75", "max", "std", "geomean")
# figures that are percentages of the benchmark's problems (the rest: speedups or counts)
RATE_KEYS = frozenset(
    {
        "compilation_rate",
        "accuracy",
        "accuracy_excluding_copies",
        "baseline_copies",
        "fast_1.1",
        "timed_share",
    }
)
COUNT_KEYS = frozenset(
    {
        "problems",
        "problems_scored",
        "problems_dropped",
        "problems_untimed",
        "attempts",
        "infra_dropped",
        "improved",
        "significant_speedups",
        "significant_slowdowns",
        "problems_memorizable",
        "memorizable_improved",
        "problems_with_tables",
        "not_holding_past_cut",
    }
)


def figure_text(key: str, value: Any) -> str:
    """A summary figure as a page shows it, with its unit: rates ``48.0%``, speedups
    ``1.204x``, counts ``13``; ``n/a`` when there is none. ``key`` as in ``to_json``
    (``paper.`` prefixed keys are the paper protocol's)."""
    if value is None or isinstance(value, bool):
        return "n/a" if value is None else str(value)
    base = key.removeprefix("paper.")
    if base in RATE_KEYS:
        return f"{float(value):.1f}%"
    if base in COUNT_KEYS:
        return str(int(value))
    if base.endswith("_speedup") or base == "speedup":
        return f"{float(value):.3f}x"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Distribution:
    """avg/median/p25/p75/max/std (population)/geomean of per-problem speedups."""

    # stored as ``avg_speedup``, ``median_speedup``, ... in the object that holds it
    avg: float | None = field(default=None, metadata=opts(key="avg_speedup"))
    median: float | None = field(default=None, metadata=opts(key="median_speedup"))
    p25: float | None = field(default=None, metadata=opts(key="p25_speedup"))
    p75: float | None = field(default=None, metadata=opts(key="p75_speedup"))
    max: float | None = field(default=None, metadata=opts(key="max_speedup"))
    std: float | None = field(default=None, metadata=opts(key="std_speedup"))
    geomean: float | None = field(default=None, metadata=opts(key="geomean_speedup"))


@dataclass(frozen=True)
class ProblemRecord:
    """One problem's figures, from its chosen attempt (``metrics`` defines each).

    Fields:
        status: the chosen attempt's status (``ok``, ``wrong_output``, ...).
        speedup: its measured speedup over gcc -O3 (1.0 for a copy; 1.0 when no answer
            is correct: the baseline stands); None when correct but not measured.
        speedup_ci: the measured 95% CI [low, high] of a timed correct answer (a copy's
            too), None otherwise.
        paper_speedup: the paper protocol's per-problem figure.
        timed: whether the chosen answer's speedup was measured on tests long enough
            to time (always true or false).
        improved: significantly faster (CI above the practical band), timed, and not
            memorizable.
        origin: what produced the chosen answer (a build, or model sample/round).
        sample, round: which attempt was chosen.
        tests_passed, tests_total: of the chosen attempt.
        cpu_seconds: CPU seconds of the candidates' runs in the sandbox (checks and
            timing), summed over its attempts; building and generation not included.
        seconds: generation + verification seconds summed over its attempts (they
            overlap with other problems' when several run at once).
        checks: independent checks behind ``speedup``: 2 re-checked afresh, 1 single,
            0 no figure.
        baseline_copy: the chosen answer is the gcc -O3 baseline itself.
        wall_seconds: wall-clock seconds from the problem's start to its end (None when
            not recorded).
        search_note: what the search left undone when its budget ran out, as its
            answers' provenance says (``StrategyProvenance.budget_note``; the build
            search's ``budget spent: 18 unscreened, 42 unbuilt; rerun with --budget
            N``), '' when nothing was.
        timed_reason: why it is not timed, in words ("" when timed).
        memorizable: the program reads no input (an answer may print its output without
            computing it); its speedup is counted apart from the headline figures.
        isa_level: the lowest x86-64 level the chosen answer runs on (None: not built,
            stored before targets, or in no level: see ``extensions``).
        extensions: the ISA extensions the chosen answer needs (``toolchain/isa.py``).
        tables: each lookup table the chosen answer adds, named (``DataSize.tables``).
        beyond_cut: its speedup on the draws past the cut the reference's time budget
            makes in the domain (None: no such draws).
        holds_past_cut: that speedup holds there (``reward.holds_past_cut``); the
            default reward pays nothing that does not.
    """

    status: str
    speedup: float | None
    speedup_ci: tuple[float, float] | None
    paper_speedup: float
    timed: bool
    improved: bool
    origin: str
    sample: int
    round: int
    tests_passed: int
    tests_total: int
    cpu_seconds: float
    seconds: float
    checks: int = 1
    baseline_copy: bool = False
    wall_seconds: float | None = None
    search_note: str = ""
    timed_reason: str = ""
    memorizable: bool = False
    isa_level: str | None = None
    extensions: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    beyond_cut: float | None = None
    holds_past_cut: bool = True

    @property
    def correct(self) -> bool:
        return self.status == Status.OK.value


@dataclass(frozen=True)
class PaperFigures:
    """The figures under the paper's protocol (see the module docstring)."""

    compilation_rate: float | None = 0.0
    accuracy: float | None = 0.0
    speedups: Distribution = field(default_factory=Distribution, metadata=opts(flatten=True))
    fast_1_1: float | None = field(default=0.0, metadata=opts(key="fast_1.1"))


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """How a run was made (``runs/eval_run.py`` ``run_context``): the store's
    ``runs.context`` and the summary's ``context``, one flat object.

    Fields:
        machine: where and when (``types.Machine``; its keys in the object itself).
        model: the model spec.
        benchmark: the problem set.
        problems_in_benchmark: how many problems it holds.
        samples: answers asked per problem.
        rounds: rounds of refinement.
        strategy: the strategy's name.
        temperature: the sampling temperature.
        timed: speedups were measured (False: ``--no-time``).
        sandbox: answers ran in the sandbox.
        target: the ISA target.
        executor: where verifications ran.
        workers: parallel verifications.
        reward: the reward spec the summary pays (None: ``gated``).
        extra: keys a writer added that no field names, kept as stored.
    A field left at None was not said (a run stored before it, or a JSON run file); the
    context is an open object, so a value of another shape reads as not said.
    """

    OMIT_DEFAULTS: ClassVar[bool] = True
    LENIENT: ClassVar[bool] = True

    machine: Machine = field(default_factory=Machine, metadata=opts(flatten=True))
    model: str | None = None
    benchmark: str | None = None
    problems_in_benchmark: int | None = None
    samples: int | None = None
    rounds: int | None = None
    strategy: str | None = None
    temperature: float | None = None
    timed: bool | None = None
    sandbox: bool | None = None
    target: str | None = None
    executor: str | None = None
    workers: int | None = None
    reward: str | None = None
    extra: Mapping[str, Json] = field(default_factory=dict, metadata=EXTRA, hash=False)


def _timed_known(d: JsonObject) -> JsonObject:
    """Summary format 3 -> 4: a problem's ``timed`` was null when nothing was timed (now
    false, with why)."""
    per = d.get("per_problem")
    if not isinstance(per, dict):
        return d
    fixed = {}
    for name, r in per.items():
        if isinstance(r, dict) and not isinstance(r.get("timed"), bool):
            r = {**r, "timed": False, "timed_reason": r.get("timed_reason") or "not timed"}
        fixed[name] = r
    return {**d, "per_problem": fixed}


@versioned(SUMMARY_FORMAT_VERSION, name="summary", migrations={3: _timed_known})
@dataclass(frozen=True)
class RunSummary:
    """A run's summary (every definition in the module docstring). ``unscored_problems``
    (the benchmark's problems without a verdict) is set by ``runs.run_eval`` only."""

    problems: int = 0
    problems_scored: int = 0
    problems_dropped: int = 0
    attempts: int = 0
    infra_dropped: int = 0
    compilation_rate: float | None = 0.0
    accuracy: float | None = 0.0
    accuracy_excluding_copies: float | None = 0.0
    baseline_copies: float | None = 0.0
    speedups: Distribution = field(default_factory=Distribution, metadata=opts(flatten=True))
    fast_1_1: float | None = field(default=0.0, metadata=opts(key="fast_1.1"))
    significant_speedups: int = 0
    significant_slowdowns: int = 0
    problems_untimed: int = 0
    improved: int = 0
    paper: PaperFigures = field(default_factory=PaperFigures)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    per_problem: Mapping[str, ProblemRecord] = field(default_factory=dict)
    context: RunContext = field(default_factory=RunContext)
    # said only by ``runs.run_eval`` (left out of the JSON when not said)
    unscored_problems: tuple[str, ...] | None = field(
        default=None, metadata=opts(omit_default=True)
    )
    timed_share: float | None = None
    problems_memorizable: int = 0
    memorizable_improved: int = 0
    memorizable_geomean_speedup: float | None = None
    problems_with_tables: int = 0  # correct chosen answers that add a lookup table
    not_holding_past_cut: int = 0  # ... whose speedup does not hold past the cut
    reward_form: str | None = None
    mean_reward: float | None = None

    @property
    def complete(self) -> bool:
        """Every problem of the benchmark has a score (none lost to machine trouble)."""
        return not self.unscored_problems and self.problems_scored >= self.problems

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("isa_levels", "level_needed", "complete")

    def isa_levels(self) -> dict[str, int]:
        """Correct chosen answers by the lowest x86-64 level they run on, lowest level
        first (``none``: in no level; answers stored before targets are not counted)."""
        order = ("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "none")
        found = [
            r.isa_level or "none"
            for r in self.per_problem.values()
            if r.correct and (r.isa_level or r.extensions)
        ]
        return {level: found.count(level) for level in order if level in found}

    def level_needed(self) -> str | None:
        """The lowest x86-64 level every correct chosen answer runs on (``none``: some
        answer is in no level; None: nothing known, e.g. runs stored before targets)."""
        levels = list(self.isa_levels())
        return levels[-1] if levels else None

    def with_unscored(self, names: Iterable[str]) -> RunSummary:
        return replace(self, unscored_problems=tuple(names))

    def derived_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "isa_levels": self.isa_levels(),
            "level_needed": self.level_needed(),
            "complete": self.complete,
        }
        return out

    def to_json(self) -> JsonObject:
        """The summary as ``eval --json`` writes it and the run store keeps it (``encode``)."""
        return encode(self)  # type: ignore[return-value]

    @classmethod
    def from_json(cls, d: Mapping[str, object]) -> RunSummary:
        """A stored summary of any format read back (``decode``: keys an older summary
        lacks read as 0 / None); a newer format is a ``UserError``."""
        return decode(cls, d)

    def headline(self) -> dict[str, float | int | None]:
        """The figures a page shows, by their ``to_json`` key (``paper.`` for the paper's)."""
        s, p = self.speedups, self.paper.speedups
        return {
            "problems": self.problems,
            "problems_scored": self.problems_scored,
            "compilation_rate": self.compilation_rate,
            "accuracy": self.accuracy,
            "accuracy_excluding_copies": self.accuracy_excluding_copies,
            "avg_speedup": s.avg,
            "median_speedup": s.median,
            "geomean_speedup": s.geomean,
            "fast_1.1": self.fast_1_1,
            "timed_share": self.timed_share,
            "significant_speedups": self.significant_speedups,
            "significant_slowdowns": self.significant_slowdowns,
            "problems_untimed": self.problems_untimed,
            "problems_memorizable": self.problems_memorizable,
            "memorizable_geomean_speedup": self.memorizable_geomean_speedup,
            "paper.avg_speedup": p.avg,
            "paper.geomean_speedup": p.geomean,
        }


@dataclass(frozen=True)
class BatchStats:
    """What a batch of verdicts looked like: for per-step training logs."""

    count: int
    correct_rate: float
    compile_rate: float
    answer_rate: float
    mean_speedup: float | None
    infra_failures: int

    def to_metrics(self, prefix: str = "supercoder/") -> dict[str, float]:
        out = {
            "correct_rate": self.correct_rate,
            "compile_rate": self.compile_rate,
            "answer_rate": self.answer_rate,
            "infra_failures": float(self.infra_failures),
        }
        if self.mean_speedup is not None:
            out["mean_speedup"] = self.mean_speedup
        return {prefix + k: v for k, v in out.items()}
