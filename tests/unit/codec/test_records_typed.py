"""Typed records end to end: no record field is untyped (``Any``, ``dict[str, Any]``),
and every ``to_json``/``from_json`` left in the source is a one-line delegate to the
codec (``encode``/``decode``), not a second, hand-written description of a record."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import typing
from pathlib import Path

import pytest

import supercoder
from tests.sourcetree import nodes, python_files, tree  # noqa: F401

# The modules whose dataclasses are stored or printed records.
RECORD_MODULES = (
    "supercoder.types",
    "supercoder.models.base",
    "supercoder.runs.store",
    "supercoder.runs.summary",
    "supercoder.runs.buildsearch.records",
    "supercoder.verify.evaluate",
    "supercoder.timing.calibration",
    "supercoder.prompting.profiling",
    "supercoder.prompting.hotspots",
    "supercoder.analysis.core",
    "supercoder.toolchain.flagspace",
    "supercoder.training.episode",
    "supercoder.problems.domain",
    "supercoder.report.page",
)

SRC = Path(supercoder.__file__).parent


def _untyped(tp: object) -> bool:
    """``tp`` is ``Any`` or holds it anywhere (``dict[str, Any]``, ``Any | None``...)."""
    if tp is typing.Any:
        return True
    return any(_untyped(a) for a in typing.get_args(tp))


def _records(module: str) -> list[type]:
    mod = importlib.import_module(module)
    return [
        cls
        for cls in vars(mod).values()
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module
    ]


@pytest.mark.parametrize("module", RECORD_MODULES)
def test_no_record_field_is_untyped(module):
    records = _records(module)
    assert records, f"{module} defines no dataclass: update RECORD_MODULES"
    bad = [
        f"{cls.__name__}.{name}: {tp}"
        for cls in records
        for name, tp in typing.get_type_hints(cls).items()
        if name in {f.name for f in dataclasses.fields(cls)} and _untyped(tp)
    ]
    assert not bad, "untyped record fields: " + "; ".join(bad)


def test_the_walk_sees_an_untyped_field():
    @dataclasses.dataclass
    class Loose:
        a: dict[str, typing.Any]
        b: typing.Mapping[str, typing.Any] | None  # noqa: UP006
        c: int

    hints = typing.get_type_hints(Loose)
    assert [n for n, tp in hints.items() if _untyped(tp)] == ["a", "b"]


def _hand_written(path: Path) -> list[str]:
    """``to_json``/``from_json`` functions in ``path`` whose body is more than one
    ``return encode(...)`` / ``return decode(...)`` (a docstring aside)."""
    out = []
    for node in nodes(path):
        if not isinstance(node, ast.FunctionDef) or node.name not in ("to_json", "from_json"):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        one = (
            len(body) == 1
            and isinstance(body[0], ast.Return)
            and isinstance(body[0].value, ast.Call)
            and isinstance(body[0].value.func, ast.Name)
            and body[0].value.func.id in ("encode", "decode")
        )
        if not one:
            out.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    return out


def test_every_to_json_and_from_json_is_the_codecs():
    bad = [hit for path in python_files() for hit in _hand_written(path)]
    assert not bad, "hand-written JSON (go through supercoder.codec): " + ", ".join(bad)
