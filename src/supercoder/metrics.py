"""Summary metrics of an eval run: the paper's figures, ours and theirs side by side.

Per problem, the *chosen* attempt is the best one (``strategies.rank``: correct first,
then most tests passed, then speedup; a baseline copy counts as 1.0x). Infrastructure
failures are dropped, never scored: a problem whose every attempt was dropped is left
out of every rate (``problems_dropped``). Rates are percentages of counted problems;
given ``total`` (the benchmark's size), of the whole benchmark instead: a problem not
scored (dropped, unfinished) then counts as not correct and 1.0x, and ``problems`` is
``total`` (``problems_scored`` the ones with a verdict).

- ``compilation_rate``: % problems where some attempt assembles and links;
- ``accuracy``: % problems whose chosen attempt passes every test (a copy of the
  baseline counts, as in the paper; ``accuracy_excluding_copies`` does not count it;
  ``baseline_copies`` is the % of problems whose chosen attempt is such a copy);
- per-problem speedup: the chosen attempt's measured speedup if it is correct (1.0 for
  a copy), else 1.0, as the paper does. Over problems: ``avg_speedup``,
  ``median_speedup``, ``p25_speedup``, ``p75_speedup``, ``max_speedup``,
  ``std_speedup`` (population std), ``geomean_speedup``. None when nothing was timed
  (``--no-time``). Ours is the paired CPU-time estimate, *not* clamped: a slower
  correct answer reads below 1;
- ``fast_1.1``: % of timed problems whose chosen attempt is correct, not a copy, has a
  speedup >= 1.1 **and** is significantly faster (so noise cannot count);
- ``significant_speedups`` / ``significant_slowdowns``: number of timed problems whose
  chosen correct non-copy attempt is significantly faster / slower;
- ``problems_untimed``: problems none of whose tests runs long enough to time (every
  baseline run under the meter's ``min_test_seconds``, 5 ms): their figures would
  measure process start-up, so they are ``timed: false`` and stay out of the speedup
  figures, ``fast_1.1`` and the significance counts (they still count for
  ``compilation_rate`` and ``accuracy``, and in the paper-protocol column, which
  reproduces the paper's rule);
- ``per_problem``: per problem its ``status``, ``speedup`` and ``speedup_ci`` (the
  chosen attempt's), ``paper_speedup``, ``timed`` (None when no attempt was timed),
  ``improved`` (significantly faster, and timed), ``origin`` (what produced the chosen
  answer: the build for the ``compiler`` model, e.g. ``gcc -O3 -march=native``),
  ``sample``/``round``, ``tests_passed``/``tests_total``, ``cpu_seconds`` (CPU time
  spent verifying and timing its attempts) and ``seconds`` (generation + verification).

"Significantly faster/slower" is ``types.practical_significance``: the whole 95% CI
lies above / below the practical band ``[1 - m, 1 + m]`` (``m`` the calibrated noise
floor carried by the speedup, at least 1%);
- ``paper``: the same figures under the paper's protocol: per attempt the clamped
  (>= 1.0) hyperfine-style ``verdict.paper_speedup``; per problem the best fully
  correct attempt by that figure (copies count), else 1.0; ``fast_1.1`` there is just
  ``>= 1.1``.

Also: attempt counts, infra failures dropped, tokens and cost, and the context (gcc,
CPU, samples, rounds) every summary must carry.

"Compiled" is ``Verdict.assembled`` (``types.NOT_ASSEMBLED``: an infrastructure failure
never counts as compiled). ``summarize`` returns a frozen ``RunSummary`` (per problem a
``ProblemRecord``); ``to_json()`` is the summary ``eval --json`` writes and the run store
keeps, ``from_json()`` reads one back. ``batch_stats`` gives the same figures for a batch
of verdicts (training logs); ``geomean`` is the one geometric mean.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from supercoder.meter import MeterConfig
from supercoder.strategies import Attempt, Outcome, effective_speedup
from supercoder.types import Status, Verdict

STAT_KEYS = ("avg", "median", "p25", "p75", "max", "std", "geomean")
FAST = 1.1  # the fast_1.1 threshold


def geomean(values: Iterable[float | None]) -> float | None:
    """Geometric mean of the given numbers (None and 0 are left out; None when empty)."""
    vals = [float(v) for v in values if v]
    return float(np.exp(np.log(np.clip(vals, 1e-12, None)).mean())) if vals else None


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


def distribution(values: Sequence[float]) -> Distribution:
    """The ``Distribution`` of per-problem speedups (every figure None when empty)."""
    if not values:
        return Distribution()
    arr = np.asarray(values, dtype=float)
    stats = (arr.mean(), np.median(arr), np.percentile(arr, 25), np.percentile(arr, 75),
             arr.max(), arr.std(), geomean(np.clip(arr, 1e-12, None)))  # fmt: skip
    return Distribution(*(round(float(v), 4) for v in stats))


def _pct(count: int, total: int) -> float:
    return round(100.0 * count / total, 2) if total else 0.0


def _is_fast(v: Verdict) -> bool:
    return bool(v.significantly_faster and v.speedup and v.speedup.value >= FAST)


def paper_problem_speedup(outcome: Outcome) -> float:
    """The paper's per-problem figure: best clamped speedup of a fully correct attempt."""
    correct = [a.verdict for a in outcome.attempts if a.verdict.correct]
    return max((v.paper_speedup or 1.0 for v in correct), default=1.0)


def long_enough(verdict: Verdict) -> bool:
    """Was some test of this timed verdict long enough to time?

    The meter's decision where the verdict records it: it times only the tests whose
    baseline runs at least ``min_test_seconds`` (5 ms), and every test when none does, so
    a timed set that leaves tests out was long enough. When it times every test (all
    long, or none), and for stored verdicts from before tests said ``timed``: some test's
    baseline >= 5 ms. A verdict without per-test baseline times is taken as timed."""
    timed = verdict.timed_tests
    if timed and len(timed) < len(verdict.tests):
        return True
    known = [t.baseline_seconds for t in verdict.tests if t.baseline_seconds is not None]
    return not known or max(known) >= MeterConfig().min_test_seconds


def problem_timed(outcome: Outcome) -> bool | None:
    """True when some timed attempt had a test long enough to time, False when attempts
    were timed but none had one, None when no attempt was timed (wrong, or --no-time)."""
    timed = [a.verdict for a in outcome.attempts if a.verdict.speedup is not None]
    return any(long_enough(v) for v in timed) if timed else None


def answer_origin(attempt: Attempt) -> str:
    """What produced an answer: the build for the compiler model, else model and sample."""
    model = str(attempt.origin.get("model") or "")
    if model.startswith("compiler:"):
        return model.split(":", 1)[1]
    return f"{model or 'model'} sample {attempt.sample} round {attempt.round}"


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


def problem_record(outcome: Outcome) -> ProblemRecord | None:
    """One problem's figures; None when no attempt counts (all lost to machine trouble)."""
    best = outcome.best
    if best is None:
        return None
    v, timed = best.verdict, problem_timed(outcome)
    sp = v.speedup if v.correct and not v.identical_to_baseline else None
    return ProblemRecord(
        status=v.status.value,
        speedup=effective_speedup(v) if v.correct else 1.0,
        speedup_ci=(round(sp.low, 4), round(sp.high, 4)) if sp else None,
        paper_speedup=paper_problem_speedup(outcome),
        timed=timed,
        improved=bool(timed is not False and v.significantly_faster),
        origin=answer_origin(best),
        sample=best.sample,
        round=best.round,
        tests_passed=v.tests_passed,
        tests_total=len(v.tests),
        cpu_seconds=round(sum(a.verdict.cpu_seconds_spent for a in outcome.attempts), 3),
        seconds=round(sum(a.gen_seconds + a.verify_seconds for a in outcome.attempts), 3),
    )


@dataclass(frozen=True)
class PaperFigures:
    """The figures under the paper's protocol (see the module docstring)."""

    compilation_rate: float
    accuracy: float
    speedups: Distribution
    fast_1_1: float

    def to_json(self) -> dict[str, Any]:
        return {"compilation_rate": self.compilation_rate, "accuracy": self.accuracy,
                **self.speedups.to_json(), "fast_1.1": self.fast_1_1}  # fmt: skip

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PaperFigures:
        return cls(d.get("compilation_rate", 0.0), d.get("accuracy", 0.0),
                   Distribution.from_json(d), d.get("fast_1.1", 0.0))  # fmt: skip


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

    _COUNTS = ("problems", "problems_scored", "problems_dropped", "attempts", "infra_dropped",
               "compilation_rate", "accuracy", "accuracy_excluding_copies", "baseline_copies")  # fmt: skip
    _SIGNIFICANCE = ("significant_speedups", "significant_slowdowns", "problems_untimed",
                     "improved")  # fmt: skip

    def with_unscored(self, names: Iterable[str]) -> RunSummary:
        return replace(self, unscored_problems=tuple(names))

    def to_json(self) -> dict[str, Any]:
        """The summary as ``eval --json`` writes it and the run store keeps it."""
        d: dict[str, Any] = {k: getattr(self, k) for k in self._COUNTS}
        d.update(self.speedups.to_json())
        d["fast_1.1"] = self.fast_1_1
        d.update({k: getattr(self, k) for k in self._SIGNIFICANCE})
        d["paper"] = self.paper.to_json()
        d.update(prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens,
                 cost_usd=self.cost_usd)  # fmt: skip
        d["per_problem"] = {p: r.to_json() for p, r in self.per_problem.items()}
        d["context"] = dict(self.context)
        if self.unscored_problems is not None:
            d["unscored_problems"] = list(self.unscored_problems)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RunSummary:
        """A stored summary read back (keys an older summary lacks read as 0 / None)."""
        ints = {k: d.get(k, 0) for k in (*cls._COUNTS, *cls._SIGNIFICANCE, "prompt_tokens",
                                           "completion_tokens", "cost_usd")}  # fmt: skip
        unscored = d.get("unscored_problems")
        return cls(**ints, speedups=Distribution.from_json(d), fast_1_1=d.get("fast_1.1", 0.0),
                   paper=PaperFigures.from_json(d.get("paper") or {}),
                   per_problem={p: ProblemRecord.from_json(r)
                                for p, r in (d.get("per_problem") or {}).items()},
                   context=dict(d.get("context") or {}),
                   unscored_problems=tuple(unscored) if unscored is not None else None)  # fmt: skip

    def headline(self) -> dict[str, float | int | None]:
        """The figures a page shows, by their ``to_json`` key (``paper.`` for the paper's)."""
        s, p = self.speedups, self.paper.speedups
        return {
            "problems": self.problems, "problems_scored": self.problems_scored,
            "compilation_rate": self.compilation_rate, "accuracy": self.accuracy,
            "accuracy_excluding_copies": self.accuracy_excluding_copies,
            "avg_speedup": s.avg, "median_speedup": s.median, "geomean_speedup": s.geomean,
            "fast_1.1": self.fast_1_1, "significant_speedups": self.significant_speedups,
            "significant_slowdowns": self.significant_slowdowns,
            "problems_untimed": self.problems_untimed,
            "paper.avg_speedup": p.avg, "paper.geomean_speedup": p.geomean,
        }  # fmt: skip


def summarize(
    outcomes: Sequence[Outcome], context: Mapping[str, Any] | None = None, total: int | None = None
) -> RunSummary:
    """The run's summary (see the module docstring for every definition)."""
    counted = [o for o in outcomes if o.best is not None]
    chosen = [o.best.verdict for o in counted if o.best]
    scored = len(counted)
    n = max(total, scored) if total is not None else scored
    timed = any(a.verdict.speedup for o in counted for a in o.attempts)
    unscored = [1.0] * (n - scored)
    records = [r for o in counted if (r := problem_record(o)) is not None]
    kept = [r.timed is not False for r in records]  # untimed problems stay out of speedups
    ours = [r.speedup for r, k in zip(records, kept, strict=True) if k] + unscored
    timed_chosen = [v for v, k in zip(chosen, kept, strict=True) if k]
    n_timed = n - kept.count(False)
    paper = [paper_problem_speedup(o) for o in counted] + unscored
    paper_timed = any(a.verdict.paper_speedup for o in counted for a in o.attempts)
    compiled = _pct(sum(1 for o in counted if any(a.assembled for a in o.attempts)), n)
    correct = sum(1 for v in chosen if v.correct)
    copies = sum(1 for v in chosen if v.correct and v.identical_to_baseline)
    attempts = [a for o in outcomes for a in o.attempts]
    origins = [a.origin for a in attempts]
    return RunSummary(
        problems=n,
        problems_scored=scored,
        problems_dropped=n - scored if total is not None else len(outcomes) - scored,
        attempts=len(attempts),
        infra_dropped=sum(1 for a in attempts if a.dropped),
        compilation_rate=compiled,
        accuracy=_pct(correct, n),
        accuracy_excluding_copies=_pct(correct - copies, n),
        baseline_copies=_pct(copies, n),
        speedups=distribution(ours if timed else []),
        fast_1_1=_pct(sum(1 for v in timed_chosen if _is_fast(v)), n_timed),
        significant_speedups=sum(1 for v in timed_chosen if v.significantly_faster),
        significant_slowdowns=sum(1 for v in timed_chosen if v.significantly_slower),
        problems_untimed=kept.count(False),
        improved=sum(1 for r in records if r.improved),
        paper=PaperFigures(
            compiled,
            _pct(correct, n),
            distribution(paper if paper_timed else []),
            _pct(sum(1 for s in paper if s >= FAST), n) if paper_timed else 0.0,
        ),  # fmt: skip
        prompt_tokens=sum(int(o.get("prompt_tokens") or 0) for o in origins),
        completion_tokens=sum(int(o.get("completion_tokens") or 0) for o in origins),
        cost_usd=round(sum(float(o.get("cost_usd") or 0.0) for o in origins), 6),
        per_problem={o.problem: r for o, r in zip(counted, records, strict=True)},
        context=dict(context or {}),
    )


# --- a batch of verdicts (training logs) ------------------------------------------


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


def batch_stats(verdicts: Sequence[Verdict]) -> BatchStats:
    """Correct rate, compile rate (``Verdict.assembled``) and mean speedup of the correct
    ones, over the verdicts that count (infrastructure failures are left out)."""
    scored = [v for v in verdicts if not v.is_infra_failure]
    n = max(len(scored), 1)
    speedups = [v.speedup.value for v in scored if v.correct and v.speedup]
    return BatchStats(
        count=len(verdicts),
        correct_rate=sum(v.correct for v in scored) / n,
        compile_rate=sum(v.assembled for v in scored) / n,
        answer_rate=sum(v.status is not Status.NO_ANSWER for v in scored) / n,
        mean_speedup=sum(speedups) / len(speedups) if speedups else None,
        infra_failures=len(verdicts) - len(scored),
    )
