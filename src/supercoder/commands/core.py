"""Placeholder until the evaluator lands: `check` and `problem init`."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    return None
