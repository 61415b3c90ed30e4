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

Importing ``supercoder`` loads nothing else: each name is imported from its module on
first use (``import supercoder.cli`` stays fast, a command loads only what it needs).
"""

from __future__ import annotations

# each public name -> the module that defines it (read on first use)
_WHERE = {
    "Ask": "supercoder.runs.strategies",
    "BuildsConfig": "supercoder.runs.buildsearch",
    "Candidate": "supercoder.types",
    "CheckConfig": "supercoder.verify.evaluate",
    "EvolveConfig": "supercoder.runs.evolve",
    "InfraError": "supercoder.errors",
    "Model": "supercoder.models.base",
    "Origin": "supercoder.types",
    "Problem": "supercoder.types",
    "ProblemSettings": "supercoder.settings",
    "RewardConfig": "supercoder.verify.reward",
    "Sampling": "supercoder.models.base",
    "Speedup": "supercoder.types",
    "Status": "supercoder.types",
    "Strategy": "supercoder.runs.strategies",
    "StrategyConfig": "supercoder.runs.strategies",
    "SupercoderError": "supercoder.errors",
    "TestCase": "supercoder.types",
    "TestResult": "supercoder.types",
    "UserError": "supercoder.errors",
    "Verdict": "supercoder.types",
    "VerifyConfig": "supercoder.verify.service",
    "best_of_n": "supercoder.runs.strategies",
    "evaluate": "supercoder.verify.evaluate",
    "evolve": "supercoder.runs.evolve",
    "load_benchmark": "supercoder.dataset.benchmarks",
    "load_model": "supercoder.models.providers",
    "load_problem": "supercoder.problems.loading",
    "refine": "supercoder.runs.strategies",
    "score_batch": "supercoder.verify.reward",
    "score_verdict": "supercoder.verify.reward",
    "search": "supercoder.runs.dispatch",
    "solve": "supercoder.runs.strategies",
    "strategy_class": "supercoder.runs.registry",
    "verify_candidates": "supercoder.verify.service",
}

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


def __getattr__(name: str) -> object:
    import importlib

    if name == "__version__":
        from supercoder.paths import package_version

        globals()[name] = package_version()
        return globals()[name]
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'supercoder' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
