"""The package's source, parsed once per test session: every test that reads the tree
(the layering, the command rules, the codec and docs checks) shares one parse."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "supercoder"


@functools.cache
def python_files() -> tuple[Path, ...]:
    """Every ``.py`` file of the package, sorted."""
    return tuple(sorted(SRC.rglob("*.py")))


@functools.cache
def tree(path: Path) -> ast.Module:
    """``path`` parsed (once)."""
    return ast.parse(Path(path).read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of ``path``'s tree (``ast.walk``, once)."""
    return tuple(ast.walk(tree(path)))
