"""The one codec: typed records to JSON values and back, versioned, with tagged unions.

Every stored or printed record (verdicts, origins, run rows, summaries, caches) is a frozen
dataclass; ``encode`` turns one into plain JSON values and ``decode(cls, data)`` rebuilds it
from what this or any earlier supercoder wrote. The field types are the schema: there is no
second description of a record to keep in step.

Why a small codec of our own and not pydantic, msgspec or cattrs: the records are plain
frozen dataclasses the whole tree already builds and compares, and the stored formats it must
read are lenient by history (a missing key reads as the field's default, ``null`` where a
number was optional, objects written for ``tuple`` pairs, renamed keys such as
``baseline_bytes``, derived keys such as ``correct`` ignored on reading). Expressing that in
one of the libraries means a custom hook per quirk plus a new core dependency (the core wheel
today needs no compiled validation library); the generic walk over dataclass fields below is
~300 lines of stdlib, reads every old format through migrations, and keeps this module a leaf
(it imports only the stdlib and ``supercoder.errors``).

What it does:

- **Types.** ``None``, ``bool``, ``int``, ``float``, ``str``; ``bytes`` (stored as base64
  text: the bytes policy); enums (by value); ``tuple[X, ...]``, fixed ``tuple[X, Y]``,
  ``list[X]``, ``frozenset[X]`` (stored sorted); ``dict[str, X]`` and
  ``Mapping[str, X]`` (``int`` keys too, stored as text); ``X | None`` and other
  unions; nested dataclasses; ``Json`` (any JSON value, kept as it came, read-only).
- **Reading is lenient the way stored records need:** a missing key, or ``null`` for a
  field that is not optional, reads as the field's default; numbers and text are coerced
  (``"3"`` -> 3 for an ``int``); unknown keys are ignored, or kept in the one field marked
  ``extra`` (``field(metadata=EXTRA)``); a ``tuple[tuple[str, X], ...]`` also reads from
  an object (``{"a": 1}``).
- **Field options** (``dataclasses.field(metadata=...)``, built with ``opts``): ``key``
  stores a field under another name; ``omit_default`` leaves a default value out (a
  class attribute ``OMIT_DEFAULTS = True`` does so for every field);
  ``as_object`` writes a tuple of pairs as a JSON object; ``flatten`` writes a nested
  record's keys into this object and reads them from it (one stored object, two typed
  records); ``extra`` (above); ``skip`` keeps a field out of the stored form (not
  written; read as its default: a working value an output leaves out).
- **Derived keys.** A record may define ``derived_json(self) -> dict``: keys written after
  the fields (``Verdict``'s ``correct``, ``tests_passed``...), which older readers read;
  they are ignored when reading (the properties recompute them), and named in the class's
  ``DERIVED_KEYS`` so that an ``extra`` field does not keep them.
- **Tagged unions.** ``@tagged`` marks a root class; ``@variant("evolve")`` (or
  ``register("evolve", cls)``) registers a subclass under a kind. A variant is written with
  a ``"kind"`` key, and a field typed as the root (or a union of variants) reads back the
  registered class. A plugin package registers its own variant the same way, at import.
- **Outside input** (``decode(..., lenient=True)``): a field that does not read is its
  default, so a hand-made or hostile file reads as far as it is sound. A record whose
  stored object was always open (a verdict's context) says ``LENIENT = True`` and reads
  so wherever it is.
- **Read hooks.** ``read_hook(cls, fn)`` (or ``@reads_with(fn)``) makes every read of
  ``cls``, wherever it is nested, ``fn(data, read)``: ``fn`` may reshape the stored object
  before ``read(data)`` decodes it and adjust the record after (``Origin`` moves the flat
  provenance keys of older formats into its provenance, and keeps one of an unknown kind).
- **Versions.** ``@versioned(5, name="verdict", migrations={1: f, ...})`` makes ``encode``
  write ``"format_version": 5`` and ``decode`` read every earlier version: data of version
  ``v`` passes through ``migrations[v]`` (JSON object in, JSON object of version ``v + 1``
  out; a version with no migration reads as is: its change only added keys) up to the
  current one; a newer version is refused (``FormatError``, a ``UserError``: upgrade).
"""

from __future__ import annotations

import base64
import contextvars
import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import ClassVar, TypeVar, Union

from supercoder.errors import UserError

# Any JSON value, as a type (a field typed ``Json`` keeps what was stored, read-only).
# (one level deep: a recursive alias is not kept as one object by ``get_type_hints``)
Json = Union[None, bool, int, float, str, list[object], dict[str, object]]  # noqa: UP007
JsonObject = dict[str, Json]

T = TypeVar("T")

KIND = "kind"  # the key that names a variant of a tagged union
VERSION = "format_version"  # the key that names a versioned record's format


class FormatError(UserError):
    """Stored data this supercoder cannot read as the record asked for: a newer format
    version, an unknown variant, or a value of the wrong shape."""


EXTRA = MappingProxyType({"extra": True})


def opts(
    *,
    key: str | None = None,
    omit_default: bool = False,
    as_object: bool = False,
    flatten: bool = False,
    extra: bool = False,
    skip: bool = False,
) -> Mapping[str, object]:
    """A field's codec options, for ``dataclasses.field(metadata=opts(...))``."""
    out: dict[str, object] = {}
    if skip:
        out["skip"] = True
    if key:
        out["key"] = key
    if omit_default:
        out["omit_default"] = True
    if as_object:
        out["as_object"] = True
    if flatten:
        out["flatten"] = True
    if extra:
        out["extra"] = True
    return MappingProxyType(out)


# ---- tagged unions ---------------------------------------------------------------------

_ROOTS: dict[type, dict[str, type]] = {}  # tagged root -> kind -> variant class
_KIND_OF: dict[type, str] = {}


def tagged(cls: type[T]) -> type[T]:
    """Mark ``cls`` as the root of a tagged union: its variants are registered subclasses."""
    _ROOTS.setdefault(cls, {})
    return cls


def register(kind: str, cls: type) -> type:
    """Register ``cls`` under ``kind`` in every tagged root it derives from (a plugin calls
    this, or uses ``@variant``, for its own variant)."""
    roots = [r for r in cls.__mro__ if r in _ROOTS]
    if not roots:
        raise TypeError(f"{cls.__name__} derives from no @tagged root")
    for root in roots:
        known = _ROOTS[root].get(kind)
        if known is not None and known is not cls:
            raise ValueError(f"kind {kind!r} of {root.__name__} is {known.__name__} already")
        _ROOTS[root][kind] = cls
    _KIND_OF[cls] = kind
    return cls


def variant(kind: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: ``register(kind, cls)``."""

    def deco(cls: type[T]) -> type[T]:
        register(kind, cls)
        return cls

    return deco


def kinds(root: type) -> dict[str, type]:
    """The variants registered under a tagged root, by kind."""
    return dict(_ROOTS.get(root, {}))


def kind_of(cls: type) -> str | None:
    return _KIND_OF.get(cls)


# ---- read hooks ------------------------------------------------------------------------

# ``fn(data, read) -> record``: how a record whose stored forms need more than migrations
# (a reshape that depends on the keys present, a fix-up after decoding) is read.
ReadHook = Callable[[Mapping[str, object], Callable[[Mapping[str, object]], object]], object]
_READ_HOOKS: dict[type, ReadHook] = {}


def read_hook(cls: type, fn: ReadHook) -> None:
    """Read ``cls`` through ``fn(data, read)`` wherever it is decoded (``read(data)``
    decodes ``data`` as ``cls`` the plain way)."""
    _READ_HOOKS[cls] = fn


def reads_with(fn: ReadHook) -> Callable[[type[T]], type[T]]:
    """Class decorator: ``read_hook(cls, fn)``."""

    def deco(cls: type[T]) -> type[T]:
        read_hook(cls, fn)
        return cls

    return deco


# ---- versions --------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Version:
    current: int
    name: str
    migrations: Mapping[int, Callable[[JsonObject], JsonObject]]
    write: bool = True


_VERSIONS: dict[type, Version] = {}


def versioned(
    current: int,
    *,
    name: str,
    migrations: Mapping[int, Callable[[JsonObject], JsonObject]] | None = None,
    write: bool = True,
) -> Callable[[type[T]], type[T]]:
    """Class decorator: the record's format is ``current``; ``migrations[v]`` turns stored
    data of version ``v`` into version ``v + 1`` (a missing one: read as is). ``write=False``
    reads versions but writes no ``format_version`` key (a record nested in another)."""

    def deco(cls: type[T]) -> type[T]:
        _VERSIONS[cls] = Version(current, name, MappingProxyType(dict(migrations or {})), write)
        return cls

    return deco


def add_migration(cls: type, version: int, fn: Callable[[JsonObject], JsonObject]) -> None:
    """Add the migration from ``version`` to ``version + 1`` of a versioned record."""
    v = _VERSIONS[cls]
    _VERSIONS[cls] = dataclasses.replace(v, migrations={**v.migrations, version: fn})


def format_version(cls: type) -> int | None:
    """The current format version of a versioned record (None: not versioned)."""
    v = _VERSIONS.get(cls)
    return v.current if v else None


def stored_version(name: str, data: Mapping[str, object], current: int) -> int:
    """The ``format_version`` of stored data (1 when it has none: written before
    versioning); a version newer than ``current`` is refused with a ``FormatError``."""
    version = data.get(VERSION, 1)
    if not isinstance(version, int) or isinstance(version, bool) or version > current:
        raise FormatError(
            f"{name} JSON of format version {version!r}: this supercoder reads up to "
            f"{current} (upgrade supercoder)"
        )
    return version


def migrate(cls: type, data: Mapping[str, object]) -> JsonObject:
    """Stored data of any earlier version of ``cls``, brought to the current version."""
    v = _VERSIONS[cls]
    version = stored_version(v.name, data, v.current)
    out: JsonObject = dict(data)  # type: ignore[arg-type]
    while version < v.current:
        fn = v.migrations.get(version)
        if fn is not None:
            out = fn(out)
        version += 1
    out[VERSION] = v.current
    return out


# ---- encoding --------------------------------------------------------------------------


def encode(value: object) -> Json:
    """``value`` as plain JSON values (dicts, lists, text, numbers, booleans, None)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encode_record(value)
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):  # in a stable order
        return sorted((encode(v) for v in value), key=repr)
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    raise TypeError(f"cannot encode {type(value).__name__}")


def _encode_record(value: object) -> JsonObject:
    cls = type(value)
    out: JsonObject = {}
    v = _VERSIONS.get(cls)
    if v is not None and v.write:
        out[VERSION] = v.current
    kind = _KIND_OF.get(cls)
    if kind is not None:
        out[KIND] = kind
    extra: JsonObject = {}
    omit = getattr(cls, "OMIT_DEFAULTS", False)
    for f in dataclasses.fields(value):  # type: ignore[arg-type]
        if f.metadata.get("skip"):
            continue
        item = getattr(value, f.name)
        if f.metadata.get("extra"):
            extra = {str(k): encode(x) for k, x in (item or {}).items()}
            continue
        if (omit or f.metadata.get("omit_default")) and _is_default(f, item):
            continue
        if f.metadata.get("flatten"):  # a nested record's keys, in this object
            nested = _encode_record(item)
            nested.pop(VERSION, None)
            out.update(nested)
            continue
        if f.metadata.get("as_object") and item is not None:
            out[f.metadata.get("key", f.name)] = {str(k): encode(x) for k, x in item}
            continue
        out[f.metadata.get("key", f.name)] = encode(item)
    derived = getattr(value, "derived_json", None)
    if derived is not None:
        out.update({k: encode(x) for k, x in derived().items()})
    for k, x in extra.items():
        out.setdefault(k, x)
    return out


def _is_default(f: dataclasses.Field[object], item: object) -> bool:
    if f.default is not dataclasses.MISSING:
        return item == f.default
    if f.default_factory is not dataclasses.MISSING:
        return item == f.default_factory()
    return False


# ---- decoding --------------------------------------------------------------------------


_LENIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("lenient", default=False)


def decode(tp: type[T] | object, data: object, *, lenient: bool = False) -> T:  # type: ignore[type-var]
    """A value of type ``tp`` from stored JSON values (of any earlier format version).

    ``lenient``: the data is outside input (a run file someone hands over): a field whose
    value does not read as its type reads as its default (a required one is still an
    error), and a number must be a finite number, never a boolean."""
    token = _LENIENT.set(lenient)
    try:
        return _decode(tp, data, "")  # type: ignore[no-any-return]
    finally:
        _LENIENT.reset(token)


_HINTS: dict[type, dict[str, object]] = {}


def _hints(cls: type) -> dict[str, object]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = hints
    return hints


# A decoder per type, made once (a stored run reads thousands of verdicts): ``(data,
# where) -> value``; ``where`` names the place for an error message.
Decoder = Callable[[object, str], object]
_DECODERS: dict[object, Decoder] = {}


def _decode(tp: object, data: object, where: str) -> object:
    return _decoder(tp)(data, where)


def _decoder(tp: object) -> Decoder:
    try:
        return _DECODERS[tp]
    except KeyError:
        pass
    except TypeError:  # an unhashable type form: made each time
        return _make_decoder(tp)
    fn = _DECODERS[tp] = _make_decoder(tp)
    return fn


def _make_decoder(tp: object) -> Decoder:  # noqa: C901 (one branch per kind of type)
    if tp is Json or tp is object or tp == Json:
        return lambda data, where: _frozen_json(data)
    origin = typing.get_origin(tp)
    if origin is Union or origin is types.UnionType:
        return _union_decoder(typing.get_args(tp))
    if tp is type(None):
        return _none
    if isinstance(tp, type):
        if tp in _ROOTS or tp in _KIND_OF:
            return lambda data, where: _decode_tagged(tp, data, where)
        if dataclasses.is_dataclass(tp):
            return lambda data, where: _decode_record(tp, data, where)
        if issubclass(tp, enum.Enum):
            return _enum_decoder(tp)
        if tp is bool:
            return lambda data, where: bool(data)
        if tp is str:
            return _text
        if tp in (int, float):
            return _number_decoder(tp)
        if tp is bytes:
            return _bytes
    if origin in (set, frozenset):
        args = typing.get_args(tp)
        item = _decoder(args[0] if args else Json)
        return lambda data, where: frozenset(item(x, where) for x in _items(data, where))
    if origin in (tuple, list):
        return _sequence_decoder(origin, typing.get_args(tp))
    if origin in (dict, Mapping) or origin is typing.get_origin(Mapping[str, int]):
        return _mapping_decoder(origin, typing.get_args(tp))
    raise TypeError(f"codec: unsupported type {tp!r}")


def _none(data: object, where: str) -> None:
    if data is not None:
        raise FormatError(f"{where or 'value'}: expected null, got {data!r}")


def _text(data: object, where: str) -> str:
    if type(data) is str:
        return data
    if isinstance(data, dict | list):
        raise FormatError(f"{where}: expected text, got {type(data).__name__}")
    return str(data)


def _bytes(data: object, where: str) -> bytes:
    if isinstance(data, str):
        return base64.b64decode(data.encode("ascii"))
    raise FormatError(f"{where}: expected base64 text, got {type(data).__name__}")


def _enum_decoder(tp: type[enum.Enum]) -> Decoder:
    def read(data: object, where: str) -> object:
        try:
            return tp(data)
        except ValueError as e:
            raise FormatError(f"{where or tp.__name__}: {e}") from None

    return read


def _number_decoder(tp: type) -> Decoder:
    def read(data: object, where: str) -> object:
        if type(data) is tp and (tp is int or math.isfinite(data)):  # type: ignore[arg-type]
            return data
        return _scalar(tp, data, where)

    return read


def _sequence_decoder(origin: object, args: tuple[object, ...]) -> Decoder:
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        parts = [_decoder(a) for a in args]

        def fixed(data: object, where: str) -> object:
            items = _items(data, where)
            if len(items) != len(parts):
                raise FormatError(f"{where}: expected {len(parts)} items, got {len(items)}")
            return tuple(p(x, where) for p, x in zip(parts, items, strict=True))

        return fixed
    item_tp = args[0] if args else Json
    item = _decoder(item_tp)
    make = tuple if origin is tuple else list

    def each(data: object, where: str) -> object:
        items = _items(data, where)
        # raw samples: thousands of numbers per verdict, read at once
        if (
            item_tp in (int, float)
            and set(map(type, items)) <= {item_tp}
            and (item_tp is int or not _LENIENT.get() or all(map(math.isfinite, items)))
        ):
            return make(items)
        return make(item(x, where) for x in items)

    return each


def _mapping_decoder(origin: object, args: tuple[object, ...]) -> Decoder:
    key_tp, val_tp = args if len(args) == 2 else (str, Json)
    value = _decoder(val_tp)
    key = _number_decoder(int) if key_tp is int else (lambda k, where: str(k))

    def read(data: object, where: str) -> object:
        if not isinstance(data, Mapping):
            raise FormatError(f"{where}: expected an object, got {type(data).__name__}")
        out = {key(k, where): value(x, f"{where}.{k}") for k, x in data.items()}
        return out if origin is dict else MappingProxyType(out)

    return read


def _items(data: object, where: str) -> list[object] | tuple[object, ...]:
    if isinstance(data, list | tuple):
        return data
    if isinstance(data, Mapping):  # pairs stored as an object
        return [[k, v] for k, v in data.items()]
    raise FormatError(f"{where}: expected a list, got {type(data).__name__}")


def _scalar(tp: type, data: object, where: str) -> object:
    if tp is str:
        return _text(data, where)
    if _LENIENT.get() and (
        isinstance(data, bool)
        or not isinstance(data, int | float)
        or (isinstance(data, float) and not math.isfinite(data))
    ):
        raise FormatError(f"{where}: expected a finite {tp.__name__}, got {data!r}")
    try:
        return tp(data)  # type: ignore[call-arg]
    except (TypeError, ValueError, OverflowError):
        raise FormatError(f"{where}: expected {tp.__name__}, got {data!r}") from None


def _union_decoder(args: tuple[object, ...]) -> Decoder:
    optional = type(None) in args
    real = [a for a in args if a is not type(None)]
    if len(real) == 1:
        one = _decoder(real[0])

        def maybe(data: object, where: str) -> object:
            if data is None:
                if optional:
                    return None
                raise FormatError(f"{where}: a value is required")
            return one(data, where)

        return maybe
    plain_types = [a for a in real if isinstance(a, type) and not dataclasses.is_dataclass(a)]
    parts = [(a, _decoder(a)) for a in real]

    def either(data: object, where: str) -> object:
        if data is None:
            if optional:
                return None
            raise FormatError(f"{where}: a value is required")
        if type(data) in plain_types:  # an exact match first: 3 stays an int in int | str
            return data
        if isinstance(data, Mapping) and KIND in data:
            for a in real:
                if isinstance(a, type) and _KIND_OF.get(a) == data[KIND]:
                    return _decode_record(a, data, where)
                if isinstance(a, type) and a in _ROOTS and data[KIND] in _ROOTS[a]:
                    return _decode_tagged(a, data, where)
        errors = []
        for _, read in parts:
            try:
                return read(data, where)
            except (FormatError, TypeError, ValueError) as e:
                errors.append(str(e))
        raise FormatError(f"{where}: {data!r} is none of the union's types ({'; '.join(errors)})")

    return either


def _decode_tagged(tp: type, data: object, where: str) -> object:
    if not isinstance(data, Mapping):
        raise FormatError(f"{where}: expected an object, got {type(data).__name__}")
    kind = data.get(KIND)
    if tp in _KIND_OF and (kind is None or kind == _KIND_OF[tp]):
        return _decode_record(tp, data, where)
    cls = _ROOTS.get(tp, {}).get(str(kind)) if kind is not None else None
    if cls is None:
        if kind is None and dataclasses.is_dataclass(tp):
            return _decode_record(tp, data, where)
        known = ", ".join(sorted(_ROOTS.get(tp, {}))) or "none"
        raise FormatError(
            f"{where or tp.__name__}: unknown {tp.__name__} kind {kind!r} (known: {known}; "
            "a plugin that registers it may not be installed)"
        )
    return _decode_record(cls, data, where)


@dataclasses.dataclass(frozen=True)
class _Slot:
    """How a record reads one of its fields."""

    name: str
    key: str
    read: Decoder
    optional: bool  # null is a value (else: null reads as the default)
    has_default: bool
    flatten: type | None  # a flattened record: read from this very object


@dataclasses.dataclass(frozen=True)
class _Plan:
    slots: tuple[_Slot, ...]
    used: frozenset[str]  # keys the record reads (its extra field keeps the rest)
    extra: str | None
    lenient: bool


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    hints = _hints(cls)
    slots, extra = [], None
    for f in dataclasses.fields(cls):
        if not f.init or f.metadata.get("skip"):
            continue
        if f.metadata.get("extra"):
            extra = f.name
            continue
        tp = hints[f.name]
        flat = tp if f.metadata.get("flatten") else None
        slots.append(
            _Slot(
                f.name,
                f.metadata.get("key", f.name),
                _decoder(tp) if flat is None else (lambda data, where: None),
                _optional(tp),
                _has_default(f),
                flat,  # type: ignore[arg-type]
            )
        )
    used = frozenset({VERSION, KIND} | _keys(cls))
    plan = _Plan(tuple(slots), used, extra, bool(getattr(cls, "LENIENT", False)))
    _PLANS[cls] = plan
    return plan


def _decode_record(cls: type, data: object, where: str) -> object:
    hook = _READ_HOOKS.get(cls)
    if hook is None:
        return _read_record(cls, data, where)
    if not isinstance(data, Mapping):
        raise FormatError(f"{where or cls.__name__}: expected an object, got {data!r}")
    return hook(data, lambda d: _read_record(cls, d, where))


def _read_record(cls: type, data: object, where: str) -> object:
    if not isinstance(data, Mapping):
        raise FormatError(f"{where or cls.__name__}: expected an object, got {data!r}")
    if cls in _VERSIONS:
        data = migrate(cls, data)
    plan = _plan(cls)
    kwargs: dict[str, object] = {}
    for slot in plan.slots:
        if slot.flatten is not None:  # its keys are this object's
            kwargs[slot.name] = _decode_record(slot.flatten, data, where)
            continue
        value = data.get(slot.key, _MISSING)
        if value is _MISSING or (value is None and not slot.optional):
            continue  # the default
        try:
            kwargs[slot.name] = slot.read(value, f"{where}.{slot.key}" if where else slot.key)
        except (FormatError, TypeError, ValueError):
            if not (plan.lenient or _LENIENT.get()) or not slot.has_default:
                raise
    if plan.extra is not None:
        kwargs[plan.extra] = {k: _frozen_json(v) for k, v in data.items() if k not in plan.used}
    try:
        return cls(**kwargs)
    except TypeError as e:  # a required field missing
        raise FormatError(f"{where or cls.__name__}: {e}") from None


_MISSING = object()


def _has_default(f: dataclasses.Field[object]) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _keys(cls: type) -> set[str]:
    """The keys a record reads (a flattened record's keys too)."""
    out: set[str] = set()
    for f in dataclasses.fields(cls):
        if f.metadata.get("flatten"):
            out |= _keys(_hints(cls)[f.name])  # type: ignore[arg-type]
        elif not f.metadata.get("extra") and not f.metadata.get("skip"):
            out.add(f.metadata.get("key", f.name))
    derived = getattr(cls, "DERIVED_KEYS", ())
    return out | set(derived)


def _optional(tp: object) -> bool:
    origin = typing.get_origin(tp)
    if origin is Union or origin is types.UnionType:
        return type(None) in typing.get_args(tp)
    return tp is Json or tp is object or tp is type(None)


def _frozen_json(value: object) -> object:
    """A JSON value made read-only (objects as mapping views, lists as tuples)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _frozen_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_frozen_json(v) for v in value)
    return value


def plain(value: object) -> Json:
    """A read-only JSON value (``_frozen_json``) back into plain dicts and lists."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value  # type: ignore[return-value]


__all__ = [
    "EXTRA",
    "KIND",
    "VERSION",
    "ClassVar",
    "FormatError",
    "Json",
    "JsonObject",
    "add_migration",
    "decode",
    "encode",
    "format_version",
    "kind_of",
    "kinds",
    "migrate",
    "opts",
    "plain",
    "read_hook",
    "reads_with",
    "register",
    "stored_version",
    "tagged",
    "variant",
    "versioned",
]
