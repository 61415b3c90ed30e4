"""supercoder: assembly superoptimization with LLMs, verified in a sandbox."""

from supercoder.errors import InfraError, SupercoderError, UserError
from supercoder.types import Candidate, Problem, Speedup, Status, TestCase, TestResult, Verdict

__version__ = "0.1.0"

__all__ = [
    "Candidate",
    "InfraError",
    "Problem",
    "Speedup",
    "Status",
    "SupercoderError",
    "TestCase",
    "TestResult",
    "UserError",
    "Verdict",
]
