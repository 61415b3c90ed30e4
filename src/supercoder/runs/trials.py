"""The records of the build search (``runs/buildsearch.py``): its configuration, one
``Trial`` per build (how far it got and what the verification service measured), the
``SearchResult`` kept with the answer (what was left undone when the budget ran out
included), and the CPU ``CpuBudget``."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from supercoder.toolchain.flagspace import Build
from supercoder.toolchain.isa import Target
from supercoder.types import BuildRecord, SearchRecord, Speedup, Verdict

DEFAULT_BUDGET = 120.0  # CPU seconds of build search per problem (benchmarks/compiler_search.py)
DEFAULT_MAX_BUILDS = 64
SCREEN_SHARE = 0.5
HALVING_SHARE = 0.8
MIN_FINAL_SECONDS = 3.0


@dataclass(frozen=True)
class SearchConfig:
    """How the build search spends its budget (``--budget``, ``--samples``); how each
    build is checked and timed is the verification service's (``VerifyConfig``).

    Fields:
        budget: CPU seconds per problem (compiles, checks and timing).
        max_builds: builds tried at most.
        keep: survivors of the screen entering successive halving.
        finalists: re-measured fresh before one is chosen.
        combos: crosses of the best screened builds.
        screen_group: builds screened per call of the service (one timing session).
        target: the ISA target builds are made for (``toolchain/isa.py``); the service checks
            candidates against its own (``CheckConfig.target``).
    """

    budget: float = DEFAULT_BUDGET
    max_builds: int = DEFAULT_MAX_BUILDS
    keep: int = 8
    finalists: int = 2
    combos: int = 6
    screen_group: int = 16
    target: Target = Target.NATIVE


@dataclass
class Trial:
    """One build's record: how far it got and what it measured."""

    build: Build
    status: str = (
        "pending"  # built | failed | duplicate | baseline | <test status> | screened | ...
    )
    digest: str = ""
    asm: str | None = field(default=None, repr=False)
    detail: str = ""
    screen: float | None = None  # cheap baseline/candidate CPU ratio
    estimate: float | None = None  # successive-halving estimate (rungs pooled by pairs)
    pairs: int = 0
    fresh: Speedup | None = None
    verdict: Verdict | None = field(default=None, repr=False)  # the service's latest
    logs: float = field(default=0.0, repr=False)  # sum of pairs x log speedup over rungs

    def pool(self, speedup: float, pairs: int) -> None:
        """One rung's figure joins the earlier rungs', weighted by its pairs."""
        pairs = max(pairs, 1)
        self.logs += pairs * math.log(max(speedup, 1e-9))
        self.pairs += pairs
        self.estimate = math.exp(self.logs / self.pairs)

    def record(self) -> BuildRecord:
        """What is kept of it with the answer."""
        fresh, b = self.fresh, self.build
        return BuildRecord(
            id=b.id,
            cc=b.cc,
            flags=b.flags,
            pgo=b.pgo,
            family=b.family,
            label=b.label,
            status=self.status,
            detail=self.detail,
            correct=None if self.status in NOT_RUN else self.status not in FAILED,
            screen_speedup=_round(self.screen),
            halving_speedup=_round(self.estimate),
            pairs=self.pairs,
            speedup=_round(fresh.value if fresh else self.estimate or self.screen),
            speedup_ci=(_round(fresh.low), _round(fresh.high)) if fresh else None,
        )


NOT_RUN = {"pending", "built", "failed", "duplicate", "baseline", "unscreened"}
FAILED = {
    "wrong_output",
    "runtime_error",
    "timeout",
    "output_limit",
    "memory_limit",
    "compile_error",
    "no_answer",
}


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


@dataclass(frozen=True)
class SearchResult:
    chosen: Trial | None  # None: the baseline (nothing was significantly faster)
    trials: tuple[Trial, ...]
    skipped: tuple[str, ...]  # families skipped for a missing tool
    cpu_seconds: float
    note: str = ""
    budget: float = DEFAULT_BUDGET

    @property
    def unfinished(self) -> dict[str, int]:
        """Builds the budget left undone: ``unscreened`` (built, never checked or
        timed) and ``unbuilt``, with their counts (none: every build was screened)."""
        return {
            s: n
            for s in ("unscreened", "unbuilt")
            if (n := sum(1 for t in self.trials if t.status == s))
        }

    @property
    def budget_note(self) -> str:
        """``budget spent: 18 unscreened, 42 unbuilt; rerun with --budget N`` when the
        budget ended the search early ('' when every build was built and screened); N
        scales the budget by the share of builds it reached."""
        left = self.unfinished
        if not left:
            return ""
        total = len(self.trials)
        done = max(total - sum(left.values()), 1)
        more = self.budget * total / done
        advice = 10 * math.ceil(max(more, self.budget + 10) / 10)
        parts = ", ".join(f"{n} {what}" for what, n in left.items())
        return f"budget spent: {parts}; rerun with --budget {advice:g}"

    def record(self) -> SearchRecord:
        """What is kept of it with the answer (``Origin.search``)."""
        return SearchRecord(
            chosen=self.chosen.build.label if self.chosen else "baseline (gcc -O3)",
            cpu_seconds=round(self.cpu_seconds, 2),
            budget=self.budget,
            budget_spent=bool(self.unfinished),
            unfinished=tuple(self.unfinished.items()),
            budget_note=self.budget_note,
            skipped_families=self.skipped,
            note=self.note,
            builds=tuple(t.record() for t in self.trials),
        )


class CpuBudget:
    def __init__(self, total: float) -> None:
        self.total, self.spent = total, 0.0

    def charge(self, seconds: float) -> None:
        self.spent += max(0.0, seconds)

    def within(self, share: float) -> bool:
        return self.spent < share * self.total

    @property
    def left(self) -> float:
        return self.total - self.spent
