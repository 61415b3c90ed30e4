"""The strategy kit under its public name: a plugin imports everything it needs with
``from supercoder.kit import ...`` (the names of ``supercoder.runs.kit``: the values,
the protocols it is given, provenance registration, ``Conversation``, ``Tables``;
docs/eval.md "A strategy is a plugin"). A re-export only: nothing of supercoder
imports it."""

from supercoder.runs.kit import *  # noqa: F403  (every name the kit's __all__ lists)
from supercoder.runs.kit import __all__  # noqa: F401
