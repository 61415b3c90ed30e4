"""Datasets: the CodeNet builder, the SuperCoder dataset importer, and export."""
