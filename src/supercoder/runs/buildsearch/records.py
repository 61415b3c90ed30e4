"""The records of the build search (``runs/buildsearch/``): its configuration, its
provenance record (``BuildProvenance``, what it keeps with an answer: ``SearchRecord``,
``BuildRecord``), one
``Trial`` per build (how far it got and what the verification service measured), the
``SearchResult`` kept with the answer (what was left undone when the budget ran out
included), and the CPU ``CpuBudget``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from supercoder.codec import Json, JsonObject, decode, encode, opts
from supercoder.origin import StrategyProvenance, Tried, TriedRow, register_provenance
from supercoder.toolchain.flagspace import Build
from supercoder.toolchain.isa import Target
from supercoder.types import Speedup, Verdict

HEADER = "# supercoder compiler: "  # an answer's first lines: which build, why (as before)


@dataclass(frozen=True, kw_only=True)
class BuildRecord:
    """One build the build search (``--strategy builds``) tried, as kept with its answer
    (``Trial.record``).

    Fields:
        id: the build's id (``BuildsConfig.builds``: the fixed builds by id).
        cc: its compiler.
        flags: its flags.
        pgo: profile-guided.
        family: a coarse name (compiler, PGO, level, target, modifiers).
        label: the build as a command line.
        status: how far it got (``built``, ``failed``, ``duplicate``, ``screened``,
            ``measured``, ``faster``, ``chosen``, ``unbuilt``, a test status...).
        detail: why it stopped there ('' when it did not).
        correct: it passed every test (None: never run).
        screen_speedup: the screen's cheap CPU ratio (None: not screened).
        halving_speedup: successive halving's estimate (None: not reached).
        pairs: timed pairs over its rungs.
        speedup: its best figure: the re-measure's, else halving's, else the screen's.
        speedup_ci: the re-measure's 95% CI (None: not re-measured).
    """

    id: str = ""
    cc: str = ""
    flags: tuple[str, ...] = ()
    pgo: bool = False
    family: str = ""
    label: str = ""
    status: str = ""
    detail: str = ""
    correct: bool | None = None
    screen_speedup: float | None = None
    halving_speedup: float | None = None
    pairs: int = 0
    speedup: float | None = None
    speedup_ci: tuple[float | None, float | None] | None = None


@dataclass(frozen=True, kw_only=True)
class SearchRecord:
    """The build search (``--strategy builds``), as kept with the answer it chose
    (``SearchResult.record``; ``BuildProvenance.search``).

    Fields:
        chosen: the chosen build's label (``baseline (gcc -O3)``: none was faster).
        cpu_seconds: CPU seconds the search spent.
        budget: its budget in CPU seconds.
        budget_spent: the budget ended it before every build was built and screened.
        unfinished: what it left undone (``unscreened``, ``unbuilt``) and how many.
        budget_note: ``budget spent: ...; rerun with --budget N`` ('' when nothing).
        skipped_families: build families skipped for a missing tool.
        note: anything else it says.
        builds: every build it tried, in order.
    """

    chosen: str = ""
    cpu_seconds: float = 0.0
    budget: float = 0.0
    budget_spent: bool = False
    unfinished: tuple[tuple[str, int], ...] = field(default=(), metadata=opts(as_object=True))
    budget_note: str = ""
    skipped_families: tuple[str, ...] = ()
    note: str = ""
    builds: tuple[BuildRecord, ...] = ()

    @classmethod
    def from_json(cls, d: Mapping[str, Json]) -> SearchRecord:
        """A stored search (every version: a key missing reads as its default)."""
        return decode(cls, d)

    def to_json(self) -> JsonObject:
        return encode(self)  # type: ignore[return-value]


@register_provenance("build")
@dataclass(frozen=True, kw_only=True)
class BuildProvenance(StrategyProvenance):
    """The build search's record of an answer (``runs/buildsearch/``).

    Fields:
        build: the build's label (``gcc -O3 -march=native``).
        family: the build's family (``gcc``, ``clang``, ``pgo``, ``baseline``, ...).
        flags: the build's compiler flags.
        search: the search's record (on the answer it chose).
    """

    build: str | None = None
    family: str | None = None
    flags: tuple[str, ...] = ()
    search: SearchRecord | None = None

    def budget_note(self) -> str:
        return self.search.budget_note if self.search is not None else ""

    def note_header(self) -> str:
        note = self.budget_note()
        return f"{HEADER}{note}\n" if note else ""

    def tried(self) -> Tried | None:
        """Every build the search tried (on the answer it chose; None on the others)."""
        search = self.search
        if search is None or not search.builds:
            return None
        title = f"{len(search.builds)} builds searched ({search.cpu_seconds} CPU s); "
        rows = tuple(
            TriedRow(b.label, b.status, b.speedup, b.speedup_ci, b.detail) for b in search.builds
        )
        return Tried(title + f"chosen: {search.chosen}", rows, what="build")


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


UNFINISHED = ("unmeasured", "unscreened", "unbuilt")  # what the budget left undone
_UNFINISHED_WORDS = {"unmeasured": "screened, not re-measured"}
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
    screen_cost: float | None = None  # CPU seconds one build's screen cost (None: none)

    @property
    def unfinished(self) -> dict[str, int]:
        """Builds the budget left undone: ``unmeasured`` (screened, never re-measured:
        the budget ended the halving or the re-measure), ``unscreened`` (built, never
        checked or timed) and ``unbuilt``, with their counts (none: every build was
        screened and measured as far as the search goes)."""
        return {s: n for s in UNFINISHED if (n := sum(1 for t in self.trials if t.status == s))}

    @property
    def budget_note(self) -> str:
        """``budget spent: 18 unscreened, 42 unbuilt; rerun with --budget N`` when the
        budget ended the search early ('' when every build was built and screened); N
        scales the budget by the share of builds it reached. When one build's screen
        is a large part of the budget (a slow program), what it costs is said too."""
        left = self.unfinished
        if not left:
            return ""
        total = len(self.trials)
        done = max(total - sum(left.values()), 1)
        more = self.budget * total / done
        advice = 10 * math.ceil(max(more, self.budget + 10) / 10)
        parts = ", ".join(f"{n} {_UNFINISHED_WORDS.get(what, what)}" for what, n in left.items())
        cost = self.screen_cost or 0.0
        each = (
            f" (one build's screen costs {cost:.1f} CPU s here)"
            if cost > 0.05 * self.budget
            else ""
        )
        return f"budget spent: {parts}{each}; rerun with --budget {advice:g}"

    def record(self) -> SearchRecord:
        """What is kept of it with the answer (``BuildProvenance.search``)."""
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


# checks after the search, each costing about one screen: the baseline's (the answer's
# fallback) and the answer's fresh re-check (``strategies.confirm_best``)
AFTER_CHECKS = 2
RESERVE_MOST = 0.5  # the share of the budget kept for them at most


class CpuBudget:
    """A problem's ``--budget``: what is ``spent``, and the ``reserve`` kept for the
    checks after the search (set once a screen's cost is known: ``AFTER_CHECKS``
    screens, at most ``RESERVE_MOST`` of it). The search's stages plan within
    ``search_total``; what the search leaves (``left``) times the checks after it."""

    def __init__(self, total: float) -> None:
        self.total, self.spent, self.reserve = total, 0.0, 0.0

    def charge(self, seconds: float) -> None:
        self.spent += max(0.0, seconds)

    def keep_for_after(self, screen_cost: float) -> None:
        self.reserve = min(AFTER_CHECKS * max(0.0, screen_cost), RESERVE_MOST * self.total)

    @property
    def search_total(self) -> float:
        return self.total - self.reserve

    def within(self, share: float) -> bool:
        return self.spent < share * self.search_total

    @property
    def left(self) -> float:
        return self.total - self.spent

    @property
    def search_left(self) -> float:
        return self.search_total - self.spent
