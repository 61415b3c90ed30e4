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
from dataclasses import dataclass, field, fields, replace
from typing import Any

from supercoder.types import Status, check_format_version

# The summary's JSON format: ``format_version`` in ``RunSummary.to_json()`` (``eval --json``
# and the run store's ``runs.summary``). A change to the keys bumps it and adds a line
# here; ``from_json`` reads every earlier version.
#   1: before versioning (no ``format_version`` key); read as 1 (keys it lacks read as
#      0 / None).
#   2: ``format_version``.
SUMMARY_FORMAT_VERSION = 2

STAT_KEYS = ("avg", "median", "p25", "p75", "max", "std", "geomean")


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
    """One problem's figures (see the module docstring), from its chosen attempt."""

    status: str
    speedup: float
    speedup_ci: tuple[float, float] | None
    paper_speedup: float
    timed: bool | None
    improved: bool
    origin: str
    sample: int
    round: int
    tests_passed: int
    tests_total: int
    cpu_seconds: float
    seconds: float

    @property
    def correct(self) -> bool:
        return self.status == Status.OK.value

    def to_json(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["speedup_ci"] = list(self.speedup_ci) if self.speedup_ci else None
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ProblemRecord:
        ci = d.get("speedup_ci")
        known = {f.name: d.get(f.name) for f in fields(cls)}
        return cls(**{**known, "speedup_ci": (ci[0], ci[1]) if ci else None})


@dataclass(frozen=True)
class PaperFigures:
    """The figures under the paper's protocol (see the module docstring)."""

    compilation_rate: float
    accuracy: float
    speedups: Distribution
    fast_1_1: float

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
    compilation_rate: float
    accuracy: float
    accuracy_excluding_copies: float
    baseline_copies: float
    speedups: Distribution
    fast_1_1: float
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
    )

    def with_unscored(self, names: Iterable[str]) -> RunSummary:
        return replace(self, unscored_problems=tuple(names))

    def to_json(self) -> dict[str, Any]:
        """The summary as ``eval --json`` writes it and the run store keeps it."""
        d: dict[str, Any] = {"format_version": SUMMARY_FORMAT_VERSION}
        d.update({k: getattr(self, k) for k in self._COUNTS})
        d.update(self.speedups.to_json())
        d["fast_1.1"] = self.fast_1_1
        d.update({k: getattr(self, k) for k in self._SIGNIFICANCE})
        d["paper"] = self.paper.to_json()
        d.update(
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
        )
        d["per_problem"] = {p: r.to_json() for p, r in self.per_problem.items()}
        d["context"] = dict(self.context)
        if self.unscored_problems is not None:
            d["unscored_problems"] = list(self.unscored_problems)
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
            "significant_speedups": self.significant_speedups,
            "significant_slowdowns": self.significant_slowdowns,
            "problems_untimed": self.problems_untimed,
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
