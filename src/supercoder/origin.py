"""Where an answer came from: ``Origin`` (what every strategy records of an answer) and
its ``provenance``, what its strategy adds: ``StrategyProvenance``, a tagged union through
the codec whose variants each strategy declares in its own module
(``register_provenance``: evolve's ``EvolveProvenance``, the build search's
``BuildProvenance``, a plugin's), and what the run's readers ask of any of them (the
report's lineage, what the budget left undone, what was ``Tried``).

Records of every earlier format read back: an origin whose provenance was flat keys
(``_FLAT``) reads into its provenance; a provenance of a kind not yet registered loads the
registered strategies' modules (``plugins.py``) to find it, else is kept as stored. A leaf
of the vocabulary: it imports ``codec`` and ``plugins`` only (``types.Candidate`` carries
an ``Origin``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from importlib import import_module
from types import MappingProxyType
from typing import ClassVar, TypeVar

from supercoder import plugins
from supercoder.codec import (
    EXTRA,
    KIND,
    Json,
    JsonObject,
    decode,
    encode,
    kinds,
    read_hook,
    register,
    tagged,
)

_NO_EXTRA: Mapping[str, Json] = MappingProxyType({})


@tagged
@dataclass(frozen=True, kw_only=True)
class StrategyProvenance:
    """What a strategy says of an answer beyond the common ``Origin``: one variant per
    strategy, a tagged union through the codec (stored with its ``kind``; ``Origin``'s
    ``provenance``). A plugin strategy declares its own with ``register_provenance``.

    What the run's readers ask of an answer's record, whatever its strategy (each method
    says nothing by default; a strategy's record overrides what it knows): the report its
    ``ancestry``, the figures and ``optimize`` its ``budget_note`` and ``note_header``,
    and ``optimize`` what was ``tried``."""

    kind: ClassVar[str] = ""
    OMIT_DEFAULTS: ClassVar[bool] = True

    def ancestry(self) -> tuple[int, ...]:
        """The answer's ancestry in its run's program archive (``runs/archive.py``), seed
        first: the report's lineage (empty: its strategy keeps none)."""
        return ()

    def budget_note(self) -> str:
        """What the search left undone for lack of budget, and how to rerun it ('' when
        nothing): a run's figures carry it (``ProblemRecord.search_note``)."""
        return ""

    def note_header(self) -> str:
        """The line an answer file starts with to say ``budget_note`` ('' when nothing)."""
        note = self.budget_note()
        return f"# supercoder {self.kind}: {note}\n" if note else ""

    def tried(self) -> Tried | None:
        """What the search tried before it chose this answer, as ``optimize`` shows it
        (None: the record does not say)."""
        return None


@dataclass(frozen=True)
class TriedRow:
    """One program a search tried, as a table shows it: its label, how far it got, its
    speedup and 95% CI (None: not measured), why it stopped ('' when it did not)."""

    label: str
    status: str
    speedup: float | None = None
    ci: tuple[float | None, float | None] | None = None
    detail: str = ""


@dataclass(frozen=True)
class Tried:
    """What a search tried for one answer (``StrategyProvenance.tried``): a title saying
    what it spent and chose, every program it tried, in order, and what one is called
    (the table's first column: ``build``, ``program``)."""

    title: str
    rows: tuple[TriedRow, ...] = ()
    what: str = "program"


P = TypeVar("P", bound=StrategyProvenance)


def register_provenance(kind: str) -> Callable[[type[P]], type[P]]:
    """Class decorator: ``cls`` (a frozen dataclass deriving from ``StrategyProvenance``) is the
    provenance stored and read back under ``kind`` (a plugin's own record, typed)."""

    def deco(cls: type[P]) -> type[P]:
        cls.kind = kind
        register(kind, cls)
        return cls

    return deco


# Keys older formats wrote flat in the origin, read into the provenance they belong to.
_FLAT = {
    "build": ("build", "family", "flags", "search"),
    "evolve": (
        "strategy",
        "generation",
        "parents",
        "prompt_kind",
        "island",
        "program",
        "duplicate_of",
        "final",
        "lineage",
    ),
}


@dataclass(frozen=True, kw_only=True)
class Origin:
    """Where a candidate came from (keywords only): what every strategy records of an
    answer, and ``provenance``, what its strategy adds (a tagged union: an
    ``EvolveProvenance``, a ``BuildProvenance``, a plugin's own). ``from_json`` and
    ``to_json`` are its stored form (through the codec): an attempt's ``origin`` in the
    run store, ``optimize --json``, the response cache. Records stored before, whose
    provenance was flat keys of the origin, read into the same provenance; a key no field
    knows (a plugin's own) is kept in ``extra``, and so is the provenance of a kind no
    installed strategy registers.

    Fields:
        model: the model, or the build, that wrote it (None: unknown).
        sample: which chain of answers (None: not from a chain).
        round: which answer of its chain (evolve: its generation).
        prompt_tokens: its prompt's tokens.
        completion_tokens: its answer's tokens.
        cost_usd: what its answer cost (None: the model has no price; ``usd`` reads 0).
        cached: the answer came from the response cache (it cost nothing this time).
        finish_reason: why the model stopped (its API's word; None: not said).
        answer: the answer's form once resolved (``whole``, ``diff``, ``none``).
        answer_error: why its edits could not be applied (None: they were, or none).
        provenance: what its strategy records of it (None: nothing more).
        extra: keys a source added that no field names, kept as stored (read-only).
    """

    model: str | None = None
    sample: int | None = None
    round: int | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cached: bool = False
    finish_reason: str | None = None
    answer: str | None = None
    answer_error: str | None = None
    provenance: StrategyProvenance | None = None
    extra: Mapping[str, Json] = field(default_factory=lambda: _NO_EXTRA, hash=False, metadata=EXTRA)

    OMIT_DEFAULTS: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not isinstance(self.extra, MappingProxyType):  # a read-only view: never changed
            object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
        named = self.extra.keys() & {f.name for f in fields(self)}
        if self.provenance is None:  # a provenance no installed strategy reads, as stored
            named -= {"provenance"}
        if named:  # it would be stored twice, and read back as the field
            raise ValueError(f"Origin.extra names a field: {', '.join(sorted(named))}")

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def usd(self) -> float:
        """What it cost in USD, 0 when the model has no price."""
        return self.cost_usd or 0.0

    def of(self, kind: type[P]) -> P | None:
        """The provenance when it is a ``kind`` (None otherwise)."""
        return self.provenance if isinstance(self.provenance, kind) else None

    @classmethod
    def from_json(cls, data: Mapping[str, Json] | None) -> Origin:
        """An origin as stored (every version: a key missing reads as its default; the
        flat provenance keys of older formats read into their provenance: ``_read_origin``,
        the codec's read hook, wherever an origin is nested)."""
        return decode(cls, data or {})

    def to_json(self) -> JsonObject:
        """The stored keys: every field that says something (a default is left out and
        reads back as itself), then ``extra``'s keys as they came."""
        return encode(self)  # type: ignore[return-value]


def _read_origin(
    data: Mapping[str, object], read: Callable[[Mapping[str, object]], object]
) -> Origin:
    """The codec's read hook of ``Origin``: an older format's flat provenance keys read
    into their provenance; a provenance of a kind no installed strategy registers is kept
    in ``extra`` as stored (written back as it came)."""
    d: dict[str, Json] = dict(data)  # type: ignore[arg-type]
    if "provenance" not in d:
        d = _flat_provenance(d)
    raw = d.get("provenance")
    unknown = isinstance(raw, Mapping) and not _known_kind(str(raw.get(KIND)))
    if unknown:
        d.pop("provenance")
    origin = read(d)
    assert isinstance(origin, Origin)
    if unknown:
        origin = replace(origin, extra={**origin.extra, "provenance": raw})
    return origin


read_hook(Origin, _read_origin)


def _known_kind(kind: str) -> bool:
    """Is ``kind`` a registered provenance? A strategy declares its own in its module
    (``register_provenance``): the registered strategies' modules are loaded once to
    find it (a built-in's as a plugin's), so a stored answer reads back typed."""
    if kind in kinds(StrategyProvenance):
        return True
    _load_strategies()
    return kind in kinds(StrategyProvenance)


@functools.cache
def _load_strategies() -> None:
    for ref in plugins.registered(plugins.STRATEGIES).values():
        try:
            import_module(ref.partition(":")[0])
        except Exception:  # a broken plugin: its answers keep their provenance as stored
            continue


def _flat_provenance(d: dict[str, Json]) -> dict[str, Json]:
    """An origin of an older format: its flat provenance keys as one ``provenance``."""
    for kind in ("build", "evolve"):
        keys = [k for k in _FLAT[kind] if k in d]
        if any(d[k] not in (None, False, [], ()) for k in keys):
            taken = {k: d.pop(k) for k in keys}
            taken.pop("strategy", None)
            return {**d, "provenance": {KIND: kind, **taken}}
    for k in ("strategy",):  # a bare ``strategy: null`` says nothing
        if d.get(k) is None:
            d.pop(k, None)
    return d
