"""Datasets: benchmarks (named problem sets), the SuperCoder record schema, CodeNet building
and dataset import."""

from supercoder.dataset.benchmarks import load_benchmark

__all__ = ["load_benchmark"]
