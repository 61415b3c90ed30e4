"""Runs: strategies (best-of-N, refinement; the others are plugins like them:
``runs/registry.py``), evaluation runs,
the run store and every figure."""

from supercoder.runs.dispatch import search
from supercoder.runs.eval_run import EvalRunResult, run_eval
from supercoder.runs.strategies import best_of_n, refine, solve

__all__ = ["EvalRunResult", "best_of_n", "refine", "run_eval", "search", "solve"]
