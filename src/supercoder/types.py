"""The public vocabulary: immutable values passed between stages."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


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

    def read_input(self) -> bytes:
        if self.input_bytes is not None:
            return self.input_bytes
        if self.input_factory is None:
            raise ValueError(f"test {self.name} has no input")
        return self.input_factory()


@dataclass(frozen=True)
class Problem:
    """A C program with tests. ``baseline_asm`` is gcc -O3 -S output (built if None)."""

    name: str
    source: str
    tests: tuple[TestCase, ...]
    baseline_asm: str | None = None
    split: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def visible_tests(self) -> tuple[TestCase, ...]:
        return tuple(t for t in self.tests if not t.hidden)

    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Candidate:
    """A proposed assembly program and where it came from."""

    asm: str | None
    origin: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def has_answer(self) -> bool:
        return bool(self.asm and self.asm.strip())


@dataclass(frozen=True)
class Speedup:
    """baseline time / candidate time, with a 95% confidence interval."""

    value: float
    low: float
    high: float
    samples: int
    tests_timed: int
    method: str = "median paired log-ratio of CPU time, geometric mean over tests, bootstrap 95% CI"

    @property
    def significant(self) -> bool:
        """True when the whole CI lies above 1 (faster) or below 1 (slower)."""
        return self.low > 1.0 or self.high < 1.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = self.status.value
        d["speedup_ci"] = list(self.speedup_ci) if self.speedup_ci else None
        return d


@dataclass(frozen=True)
class Verdict:
    """Everything the evaluator concluded about one candidate on one problem."""

    problem: str
    status: Status
    tests: tuple[TestResult, ...] = ()
    speedup: Speedup | None = None
    paper_speedup: float | None = None
    identical_to_baseline: bool = False
    message: str = ""
    context: dict[str, Any] = field(default_factory=dict, compare=False)
    cpu_seconds_spent: float = 0.0

    @property
    def correct(self) -> bool:
        return self.status is Status.OK

    @property
    def tests_passed(self) -> int:
        return sum(1 for t in self.tests if t.status is Status.OK)

    @property
    def is_infra_failure(self) -> bool:
        return self.status is Status.INFRA_ERROR

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "status": self.status.value,
            "correct": self.correct,
            "speedup": self.speedup.value if self.speedup else None,
            "speedup_ci": [self.speedup.low, self.speedup.high] if self.speedup else None,
            "speedup_detail": self.speedup.to_json() if self.speedup else None,
            "paper_speedup": self.paper_speedup,
            "identical_to_baseline": self.identical_to_baseline,
            "tests_passed": self.tests_passed,
            "tests_total": len(self.tests),
            "message": self.message,
            "cpu_seconds_spent": round(self.cpu_seconds_spent, 4),
            "context": self.context,
            "tests": [t.to_json() for t in self.tests],
        }
