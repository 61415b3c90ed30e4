"""The records of the ``compiler`` model's search: its configuration, one ``Trial`` per
build (how far it got and what it measured), the ``SearchResult`` kept with the answer,
and the CPU ``Budget``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from supercoder.build.flagspace import Build
from supercoder.build.isa import Target
from supercoder.sandbox.box import Limits
from supercoder.types import Speedup

DEFAULT_BUDGET = 60.0
DEFAULT_MAX_BUILDS = 64
SCREEN_SHARE = 0.5
HALVING_SHARE = 0.8
MIN_FINAL_SECONDS = 3.0
MIN_TEST_SECONDS = 0.005


@dataclass(frozen=True)
class SearchConfig:
    """How the ``compiler`` model searches builds (``--budget``, ``--samples``).

    Fields:
        budget: CPU seconds per problem.
        max_builds: builds tried at most.
        keep: survivors of the screen entering successive halving.
        finalists: re-measured fresh before one is chosen.
        combos: crosses of the best screened builds.
        isolation: build and run in the sandbox (False only with ``--unsafe-no-sandbox``).
        seed: seeds the run order of every measurement.
        limits: the sandbox limits of every run.
        target: the ISA target builds are made for and checked against (``build/isa.py``).
    """

    budget: float = DEFAULT_BUDGET
    max_builds: int = DEFAULT_MAX_BUILDS
    keep: int = 8
    finalists: int = 2
    combos: int = 6
    isolation: bool = True
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
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
    estimate: float | None = None  # successive-halving estimate
    pairs: int = 0
    fresh: Speedup | None = None
    binary: Path | None = field(default=None, repr=False)
    timings: dict[str, list[float]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, object]:
        fresh = self.fresh
        return {
            **self.build.to_json(),
            "status": self.status,
            "detail": self.detail,
            "correct": None if self.status in NOT_RUN else self.status not in FAILED,
            "screen_speedup": _round(self.screen),
            "halving_speedup": _round(self.estimate),
            "pairs": self.pairs,
            "speedup": _round(fresh.value if fresh else self.estimate or self.screen),
            "speedup_ci": [_round(fresh.low), _round(fresh.high)] if fresh else None,
        }


NOT_RUN = {"pending", "built", "failed", "duplicate", "baseline", "unscreened"}
FAILED = {
    "wrong_output",
    "runtime_error",
    "timeout",
    "output_limit",
    "memory_limit",
    "compile_error",
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

    def to_json(self) -> dict[str, object]:
        return {
            "chosen": self.chosen.build.label if self.chosen else "baseline (gcc -O3)",
            "cpu_seconds": round(self.cpu_seconds, 2),
            "skipped_families": list(self.skipped),
            "note": self.note,
            "builds": [t.to_json() for t in self.trials],
        }


class Budget:
    def __init__(self, total: float) -> None:
        self.total, self.spent = total, 0.0

    def charge(self, seconds: float) -> None:
        self.spent += max(0.0, seconds)

    def within(self, share: float) -> bool:
        return self.spent < share * self.total

    @property
    def left(self) -> float:
        return self.total - self.spent
