"""supercoder: assembly superoptimization with LLMs, verified in a sandbox.

The nouns (``Problem``, ``Candidate``, ``Verdict``, ``Status``, ``Speedup``) and the verbs::

    problem = load_problem("path/to/problem")      # or load_benchmark("val")
    verdict = evaluate(problem, Candidate(asm))     # sandboxed, every test, timed
    verdict.status, verdict.speedup, score_verdict(verdict)

    model = load_model("openai:gpt-4o")             # any provider spec
    outcome = solve(problem, model, StrategyConfig(Sampling(n=8)))
    outcome = search(problem, [model], StrategyConfig(Sampling(n=12), strategy="evolve"))
    outcome = search(problem, [], StrategyConfig(Sampling(n=64), strategy="builds"))

A strategy is a plugin (``runs/registry.py``: the ``supercoder.strategies`` entry points).
"""

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.errors import InfraError, SupercoderError, UserError
from supercoder.models.base import Model, Sampling
from supercoder.models.providers import load_model
from supercoder.paths import package_version
from supercoder.problems.loading import load_problem
from supercoder.runs.buildsearch import BuildsConfig
from supercoder.runs.dispatch import search
from supercoder.runs.evolve import EvolveConfig, evolve
from supercoder.runs.registry import strategy_class
from supercoder.runs.strategies import (
    Ask,
    Strategy,
    StrategyConfig,
    best_of_n,
    refine,
    solve,
)
from supercoder.settings import ProblemSettings
from supercoder.types import (
    Candidate,
    Origin,
    Problem,
    Speedup,
    Status,
    TestCase,
    TestResult,
    Verdict,
)
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.reward import RewardConfig, score_batch, score_verdict
from supercoder.verify.service import VerifyConfig, verify_candidates

__version__ = package_version()

__all__ = [
    "Ask",
    "BuildsConfig",
    "Candidate",
    "CheckConfig",
    "EvolveConfig",
    "InfraError",
    "Model",
    "Origin",
    "Problem",
    "ProblemSettings",
    "RewardConfig",
    "Sampling",
    "Speedup",
    "Status",
    "Strategy",
    "StrategyConfig",
    "SupercoderError",
    "TestCase",
    "TestResult",
    "UserError",
    "Verdict",
    "VerifyConfig",
    "__version__",
    "best_of_n",
    "evaluate",
    "evolve",
    "load_benchmark",
    "load_model",
    "load_problem",
    "refine",
    "score_verdict",
    "score_batch",
    "search",
    "solve",
    "strategy_class",
    "verify_candidates",
]
