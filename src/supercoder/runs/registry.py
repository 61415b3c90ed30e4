"""The strategy registry: ``--strategy NAME`` is looked up in the ``supercoder.strategies``
entry-point group, as ``--model NAME:...`` is in ``supercoder.providers``.

An entry point names a class that implements ``runs.strategies.Strategy``; the
built-in strategies are declared in the same group in pyproject.toml, and only there
(``supercoder.plugins``: the one registry, strategies and providers alike). A plugin
package adds a strategy by declaring its own entry point: nothing in supercoder changes.

    [project.entry-points."supercoder.strategies"]
    my-search = "my_package.search:MySearch"

``LEGACY_BUILDS`` is the name the build search was reached by when it was a model
(``--model compiler[:OPT,...]``): still accepted as an alias of ``--strategy builds``,
and what runs of the build search are named in the store (runs stored before read and
resume as they did).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any

from supercoder import plugins
from supercoder.errors import UserError
from supercoder.plugins import STRATEGIES

ENTRY_POINT_GROUP = STRATEGIES
DEFAULT = "best-of-n"
BUILDS = "builds"
LEGACY_BUILDS = "compiler"  # the build search's name as a model (an alias), its runs' model


def registered() -> dict[str, str]:
    """strategy name -> "module:Class", built-ins first, then installed plugins."""
    return plugins.registered(STRATEGIES)


def names() -> list[str]:
    """Every strategy's name (built-ins first)."""
    return list(registered())


def canonical(name: str | None) -> str:
    """The registered name ``name`` means (``compiler``: ``builds``; None: the default)."""
    if name is None:
        return DEFAULT
    text = str(name)
    return BUILDS if text == LEGACY_BUILDS else text


def strategy_class(name: str | None) -> Any:
    """The class registered as ``name`` (unknown or broken: one line, exit 2)."""
    name = canonical(name)
    ref = plugins.lookup(STRATEGIES, name)
    if ref is None:
        raise UserError(f"unknown --strategy {name!r}: use one of {', '.join(registered())}")
    cls: Any = plugins.load(ref, f"strategy {name!r}")
    missing = [a for a in ("search", "Config") if not hasattr(cls, a)]
    if missing:
        raise UserError(
            f"strategy {name!r} ({ref}) has no {' and '.join(missing)}: a strategy is a class "
            "with a Config dataclass and search(problem, ask, verify, journal) (docs/eval.md)"
        )
    return cls


def make_config(cls: type, values: Mapping[str, object], base: object | None = None) -> object:
    """A strategy's ``Config`` (a dataclass) from ``values`` by field name, over ``base``
    (None: its defaults); a text value is read as its field's type (``--strategy-option
    KEY=VALUE``, a run file's ``[strategy_option]`` table). An unknown key or a bad value: one
    line naming the fields."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    made: dict[str, object] = {}
    for key, value in values.items():
        if key not in fields:
            known = ", ".join(fields) or "none"
            raise UserError(f"{cls.__name__} has no option {key!r} (its options: {known})")
        try:
            made[key] = _read(hints[key], value) if isinstance(value, str) else value
        except ValueError as e:
            raise UserError(f"{cls.__name__} option {key}={value!r}: {e}") from None
    try:
        if base is not None:
            return dataclasses.replace(base, **made)  # type: ignore[type-var]
        return cls(**made)
    except (TypeError, ValueError) as e:
        raise UserError(f"{cls.__name__}: {e}") from None


def _read(hint: Any, text: str) -> object:
    """``text`` as a value of type ``hint`` (int, float, bool, str, an enum, or None of
    an optional field: ``none``)."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        if text.strip().lower() in ("none", "") and type(None) in args:
            return None
        hint = next(a for a in args if a is not type(None))
    if hint is bool:
        word = text.strip().lower()
        if word not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
            raise ValueError("not a yes/no value (true or false)")
        return word in ("true", "1", "yes", "on")
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(text.strip())
    if hint in (int, float):
        return hint(text.strip())
    return text


def is_builds_run(model: str | None) -> bool:
    """Does a stored run's model name say the build search ran (``compiler[:...]``)?"""
    name = (model or "").partition(":")[0]
    return name in (LEGACY_BUILDS, BUILDS)


def builds_label(options: str = "") -> str:
    """The model name a build search's run is stored under (``compiler:budget=4``), as
    every run of it was named before it was a strategy."""
    return f"{LEGACY_BUILDS}:{options}" if options else LEGACY_BUILDS


def legacy_spec(model: str) -> str | None:
    """``--model compiler:OPTS`` (the alias): ``OPTS`` ("" for a bare ``compiler``);
    None for any other model spec."""
    name, _, options = model.partition(":")
    return options if name == LEGACY_BUILDS else None


__all__ = [
    "BUILDS",
    "DEFAULT",
    "ENTRY_POINT_GROUP",
    "LEGACY_BUILDS",
    "builds_label",
    "canonical",
    "is_builds_run",
    "legacy_spec",
    "make_config",
    "names",
    "registered",
    "strategy_class",
]
