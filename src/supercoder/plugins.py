"""The one plugin registry: what ``--strategy NAME`` and ``--model NAME:...`` name.

Two entry-point groups, ``supercoder.strategies`` (search strategies, ``runs/registry.py``)
and ``supercoder.providers`` (model providers, ``models/providers.py``), each entry
``name = "module:Class"``. supercoder's own built-ins are declared in its
``pyproject.toml`` like any plugin's, and nowhere else: a source checkout reads them from
that file (so a new one works before any reinstall), an installed package from its
metadata; then every installed plugin package's entries follow. Adding a built-in
strategy is its module and one line of ``pyproject.toml``.
"""

from __future__ import annotations

import functools
from importlib import import_module
from importlib.metadata import PackageNotFoundError, distribution, entry_points
from pathlib import Path

from supercoder.errors import UserError

STRATEGIES = "supercoder.strategies"
PROVIDERS = "supercoder.providers"

# the checkout's pyproject.toml when supercoder runs from its source tree (src layout)
_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@functools.cache
def own(group: str) -> dict[str, str]:
    """supercoder's own entries of ``group`` (name -> "module:Class"), in their order."""
    if _PYPROJECT.is_file():
        import tomllib

        try:
            project = tomllib.loads(_PYPROJECT.read_text()).get("project", {})
        except (OSError, tomllib.TOMLDecodeError):
            project = {}
        if project.get("name") == "supercoder":
            return dict(project.get("entry-points", {}).get(group, {}))
    try:
        found = distribution("supercoder").entry_points
    except PackageNotFoundError:
        return {}
    return {ep.name: ep.value for ep in found if ep.group == group}


def registered(group: str) -> dict[str, str]:
    """Every entry of ``group``: supercoder's own first, then installed plugins'."""
    found = dict(own(group))
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep.value)
    return found


def lookup(group: str, name: str) -> str | None:
    """The "module:Class" registered as ``name`` (a built-in without a metadata scan)."""
    return own(group).get(name) or registered(group).get(name)


def load(ref: str, what: str) -> object:
    """The object ``ref`` ("module:Class") names; one line naming ``what`` if it fails."""
    module, _, attr = ref.partition(":")
    try:
        return getattr(import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise UserError(f"{what} ({ref}) could not be loaded: {e}") from e


def flag(*names: str, shown: str | None = None, **option: object) -> dict[str, object]:
    """A strategy ``Config`` field's ``metadata`` naming its flag when it is not
    ``--field-name`` (``field(default=None, metadata=flag("--max-cost", min=0.0))``),
    what its default means when it is None (``shown``) and its range (``min``, ``max``):
    every field of a strategy's ``Config`` is an ``eval``/``optimize`` flag, its help the
    field's line of the class docstring's ``Fields:`` list."""
    return {"flags": names, "shown": shown, "option": option}
