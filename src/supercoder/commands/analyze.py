"""Placeholder: commands are added by the issue that owns this module."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    return None
