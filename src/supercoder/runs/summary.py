"""The typed results of an eval run: every summary figure as a frozen value with its JSON.

``metrics.summarize`` computes a ``RunSummary`` (per problem a ``ProblemRecord``; the
speedup statistics a ``Distribution``; the paper protocol's figures ``PaperFigures``);
``to_json()`` is exactly what ``eval --json`` writes and the run store keeps, and
``from_json()`` reads one back (keys an older summary lacks read as 0 / None).
``BatchStats`` is the same vocabulary for a batch of verdicts (training logs). The
definitions of the figures live in ``metrics``; these classes only carry them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from supercoder.types import Status, check_format_version

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
SUMMARY_FORMAT_VERSION = 4

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

    avg: float | None = None
    median: float | None = None
    p25: float | None = None
    p75: float | None = None
    max: float | None = None
    std: float | None = None
    geomean: float | None = None

    def to_json(self) -> dict[str, float | None]:
        return {f"{k}_speedup": getattr(self, k) for k in STAT_KEYS}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Distribution:
        return cls(**{k: d.get(f"{k}_speedup") for k in STAT_KEYS})


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
        search_note: what the ``compiler`` model's build search left undone when its
            budget ran out (``budget spent: 18 unscreened, 42 unbuilt; rerun with
            --budget N``), '' when nothing was.
        timed_reason: why it is not timed, in words ("" when timed).
        memorizable: the program reads no input (an answer may print its output without
            computing it); its speedup is counted apart from the headline figures.
        isa_level: the lowest x86-64 level the chosen answer runs on (None: not built,
            stored before targets, or in no level: see ``extensions``).
        extensions: the ISA extensions the chosen answer needs (``toolchain/isa.py``).
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

    @property
    def correct(self) -> bool:
        return self.status == Status.OK.value

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["speedup_ci"] = list(self.speedup_ci) if self.speedup_ci else None
        d["extensions"] = list(self.extensions)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ProblemRecord:
        ci = d.get("speedup_ci")
        known = {f.name: d[f.name] for f in fields(cls) if f.name in d}
        required = {f.name: None for f in fields(cls) if f.default is MISSING}
        timed = d.get("timed")
        if not isinstance(timed, bool):  # format < 4: null when nothing was timed
            known["timed_reason"] = known.get("timed_reason") or "not timed"
        return cls(
            **{
                **required,
                **known,
                "timed": timed is True,
                "speedup_ci": (ci[0], ci[1]) if ci else None,
                "extensions": tuple(d.get("extensions") or ()),
            }
        )


@dataclass(frozen=True)
class PaperFigures:
    """The figures under the paper's protocol (see the module docstring)."""

    compilation_rate: float | None
    accuracy: float | None
    speedups: Distribution
    fast_1_1: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "compilation_rate": self.compilation_rate,
            "accuracy": self.accuracy,
            **self.speedups.to_json(),
            "fast_1.1": self.fast_1_1,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PaperFigures:
        return cls(
            d.get("compilation_rate", 0.0),
            d.get("accuracy", 0.0),
            Distribution.from_json(d),
            d.get("fast_1.1", 0.0),
        )


@dataclass(frozen=True)
class RunSummary:
    """A run's summary (every definition in the module docstring). ``unscored_problems``
    (the benchmark's problems without a verdict) is set by ``runs.run_eval`` only."""

    problems: int
    problems_scored: int
    problems_dropped: int
    attempts: int
    infra_dropped: int
    compilation_rate: float | None
    accuracy: float | None
    accuracy_excluding_copies: float | None
    baseline_copies: float | None
    speedups: Distribution
    fast_1_1: float | None
    significant_speedups: int
    significant_slowdowns: int
    problems_untimed: int
    improved: int
    paper: PaperFigures
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    per_problem: Mapping[str, ProblemRecord] = field(default_factory=dict)
    context: Mapping[str, Any] = field(default_factory=dict)
    unscored_problems: tuple[str, ...] | None = None
    timed_share: float | None = None
    problems_memorizable: int = 0
    memorizable_improved: int = 0
    memorizable_geomean_speedup: float | None = None

    @property
    def complete(self) -> bool:
        """Every problem of the benchmark has a score (none lost to machine trouble)."""
        return not self.unscored_problems and self.problems_scored >= self.problems

    _COUNTS = (
        "problems",
        "problems_scored",
        "problems_dropped",
        "attempts",
        "infra_dropped",
        "compilation_rate",
        "accuracy",
        "accuracy_excluding_copies",
        "baseline_copies",
    )
    _SIGNIFICANCE = (
        "significant_speedups",
        "significant_slowdowns",
        "problems_untimed",
        "improved",
        "problems_memorizable",
        "memorizable_improved",
    )

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

    def to_json(self) -> dict[str, Any]:
        """The summary as ``eval --json`` writes it and the run store keeps it."""
        d: dict[str, Any] = {"format_version": SUMMARY_FORMAT_VERSION}
        d.update({k: getattr(self, k) for k in self._COUNTS})
        d.update(self.speedups.to_json())
        d["fast_1.1"] = self.fast_1_1
        d["timed_share"] = self.timed_share
        d.update({k: getattr(self, k) for k in self._SIGNIFICANCE})
        d["memorizable_geomean_speedup"] = self.memorizable_geomean_speedup
        d["paper"] = self.paper.to_json()
        d.update(
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
        )
        d["per_problem"] = {p: r.to_json() for p, r in self.per_problem.items()}
        d["isa_levels"] = self.isa_levels()
        d["level_needed"] = self.level_needed()
        d["context"] = dict(self.context)
        if self.unscored_problems is not None:
            d["unscored_problems"] = list(self.unscored_problems)
        d["complete"] = self.complete
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RunSummary:
        """A stored summary read back (keys an older summary lacks read as 0 / None)."""
        check_format_version("summary", d, SUMMARY_FORMAT_VERSION)
        ints = {
            k: d.get(k, 0)
            for k in (
                *cls._COUNTS,
                *cls._SIGNIFICANCE,
                "prompt_tokens",
                "completion_tokens",
                "cost_usd",
            )
        }
        unscored = d.get("unscored_problems")
        return cls(
            **ints,
            speedups=Distribution.from_json(d),
            fast_1_1=d.get("fast_1.1", 0.0),
            timed_share=d.get("timed_share"),
            memorizable_geomean_speedup=d.get("memorizable_geomean_speedup"),
            paper=PaperFigures.from_json(d.get("paper") or {}),
            per_problem={
                p: ProblemRecord.from_json(r) for p, r in (d.get("per_problem") or {}).items()
            },
            context=dict(d.get("context") or {}),
            unscored_problems=tuple(unscored) if unscored is not None else None,
        )

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
