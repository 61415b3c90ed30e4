"""The one codec (supercoder.codec): records to JSON and back, versions, tagged unions."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from supercoder import codec
from supercoder.codec import EXTRA, FormatError, Json, decode, encode, opts
from supercoder.errors import UserError


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Inner:
    n: int = 0
    name: str = ""


@dataclass(frozen=True)
class Outer:
    colour: Colour
    inner: Inner | None = None
    items: tuple[Inner, ...] = ()
    pair: tuple[float, float] | None = None
    counts: tuple[tuple[str, int], ...] = field(default=(), metadata=opts(as_object=True))
    blob: bytes = b""
    renamed: int = field(default=0, metadata=opts(key="renamed_bytes"))
    quiet: bool = field(default=False, metadata=opts(omit_default=True))
    extra: Mapping[str, Json] = field(default_factory=dict, metadata=EXTRA)

    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("size",)

    def derived_json(self) -> dict[str, object]:
        return {"size": len(self.items)}


def test_a_nested_record_round_trips_through_json_text():
    value = Outer(
        Colour.BLUE,
        Inner(3, "x"),
        (Inner(1), Inner(2, "y")),
        (0.5, 1.5),
        (("a", 1), ("b", 2)),
        b"\x00\xffbytes",
        7,
    )
    data = json.loads(json.dumps(encode(value)))
    assert data["colour"] == "blue"
    assert data["counts"] == {"a": 1, "b": 2}  # as_object: written as an object
    assert data["renamed_bytes"] == 7 and "renamed" not in data
    assert "quiet" not in data  # omit_default
    assert data["size"] == 2  # derived, for older readers
    back = decode(Outer, data)
    assert back == value
    assert back.blob == b"\x00\xffbytes"  # the bytes policy: base64 text, exact bytes back


def test_reading_is_lenient_as_stored_records_need():
    back = decode(Outer, {"colour": "red", "inner": {"n": "4", "name": None}, "items": None})
    assert back == Outer(Colour.RED, Inner(4, ""), ())  # missing/null read as defaults
    pairs = decode(Outer, {"colour": "red", "counts": [["a", 1]]})  # pairs as a list too
    assert pairs.counts == (("a", 1),)


def test_unknown_keys_are_kept_in_extra_read_only_and_written_back():
    data = {"colour": "red", "plugin": {"k": [1, 2]}, "size": 0}
    back = decode(Outer, data)
    assert dict(back.extra) == {"plugin": {"k": (1, 2)}}  # "size" is derived: not kept
    with pytest.raises(TypeError):
        back.extra["plugin"]["k"] = 3  # type: ignore[index]
    assert encode(back)["plugin"] == {"k": [1, 2]}


def test_a_wrong_shape_is_a_format_error_not_a_traceback():
    with pytest.raises(FormatError, match="colour"):
        decode(Outer, {"colour": "green"})
    with pytest.raises(FormatError):
        decode(Outer, {"inner": {"n": 1}})  # the required colour is missing
    with pytest.raises(FormatError, match="expected int"):
        decode(Inner, {"n": "many"})
    assert issubclass(FormatError, UserError)


# ---- tagged unions --------------------------------------------------------------------


@codec.tagged
@dataclass(frozen=True)
class Shape:
    label: str = ""


@codec.variant("circle")
@dataclass(frozen=True)
class Circle(Shape):
    radius: float = 1.0


@codec.variant("square")
@dataclass(frozen=True)
class Square(Shape):
    side: float = 1.0


@dataclass(frozen=True)
class Drawing:
    shapes: tuple[Shape, ...] = ()
    main: Shape | None = None
    either: Circle | Square | None = None


def test_a_tagged_union_reads_back_each_variant_by_its_kind():
    d = Drawing((Circle("c", 2.0), Square("s", 3.0)), Square(), Circle(radius=4.0))
    data = json.loads(json.dumps(encode(d)))
    assert [s["kind"] for s in data["shapes"]] == ["circle", "square"]
    back = decode(Drawing, data)
    assert back == d
    assert type(back.shapes[1]) is Square and type(back.either) is Circle


def test_a_plugin_registers_its_own_variant_and_an_unknown_kind_is_named():
    @dataclass(frozen=True)
    class Star(Shape):
        points: int = 5

    data = {"shapes": [{"kind": "star", "points": 6}]}
    with pytest.raises(FormatError, match="unknown Shape kind 'star'.*circle, square"):
        decode(Drawing, data)
    codec.register("star", Star)
    assert decode(Drawing, data).shapes == (Star(points=6),)
    assert codec.kinds(Shape)["star"] is Star
    with pytest.raises(ValueError, match="already"):
        codec.register("star", Circle)


# ---- versions -------------------------------------------------------------------------


def _v1_to_v2(d: dict) -> dict:  # version 1 called it "size"
    return {**d, "length": d.get("size", 0)}


def _v2_to_v3(d: dict) -> dict:  # version 3 counts in millimetres
    return {**d, "length": int(d.get("length") or 0) * 10}


@codec.versioned(3, name="ruler", migrations={1: _v1_to_v2, 2: _v2_to_v3})
@dataclass(frozen=True)
class Ruler:
    length: int = 0


def test_every_earlier_version_reads_through_its_migrations():
    assert encode(Ruler(5)) == {"format_version": 3, "length": 5}
    assert decode(Ruler, {"size": 2}) == Ruler(20)  # no version: 1, migrated twice
    assert decode(Ruler, {"format_version": 2, "length": 2}) == Ruler(20)
    assert decode(Ruler, {"format_version": 3, "length": 2}) == Ruler(2)
    with pytest.raises(FormatError, match="ruler JSON of format version 4: .*reads up to 3"):
        decode(Ruler, {"format_version": 4, "length": 2})
    with pytest.raises(FormatError, match="format version 'x'"):
        decode(Ruler, {"format_version": "x"})
    assert codec.format_version(Ruler) == 3


@dataclass(frozen=True)
class Where:
    cpu: str = ""
    cores: int = 0


@dataclass(frozen=True)
class What:
    pairs: int = 0


@dataclass(frozen=True)
class Context:
    where: Where = field(default_factory=Where, metadata=opts(flatten=True))
    what: What = field(default_factory=What, metadata=opts(flatten=True))
    extra: Mapping[str, Json] = field(default_factory=dict, metadata=EXTRA)


def test_flattened_records_share_one_stored_object():
    value = Context(Where("x86", 4), What(9), {"note": "kept"})
    data = encode(value)
    assert data == {"cpu": "x86", "cores": 4, "pairs": 9, "note": "kept"}
    assert decode(Context, data) == value


@dataclass(frozen=True)
class Counts:
    per_line: dict[int, int] = field(default_factory=dict)
    seen: frozenset[str] = frozenset()
    ratio: float | None = None


def test_int_keys_and_sets_are_stored_as_json_and_read_back():
    value = Counts({3: 7, 10: 1}, frozenset({"b", "a"}), 0.5)
    data = json.loads(json.dumps(encode(value)))
    assert data == {"per_line": {"3": 7, "10": 1}, "seen": ["a", "b"], "ratio": 0.5}
    assert decode(Counts, data) == value


def test_lenient_reading_of_outside_input_keeps_what_is_sound():
    hostile = {"per_line": {"1": "many"}, "seen": ["x"], "ratio": True}
    with pytest.raises(FormatError):
        decode(Counts, hostile)  # a stored record: a wrong value is an error
    back = decode(Counts, hostile, lenient=True)  # a file someone handed over
    assert back == Counts({}, frozenset({"x"}), None)  # no bool read as a number
    assert decode(Counts, {"ratio": float("nan")}, lenient=True).ratio is None


@dataclass(frozen=True)
class Hooked:
    name: str = ""
    legacy: bool = False  # set by the hook: the stored form was the older one


def _read_hooked(data: Mapping[str, object], read) -> Hooked:
    d = dict(data)
    old = "title" in d and "name" not in d
    if old:
        d["name"] = d.pop("title")
    out = read(d)
    return Hooked(out.name, legacy=True) if old else out


codec.read_hook(Hooked, _read_hooked)


@dataclass(frozen=True)
class HasHooked:
    one: Hooked = field(default_factory=Hooked)
    many: tuple[Hooked, ...] = ()
    maybe: Hooked | None = None


def test_a_read_hook_reads_a_record_wherever_it_is_nested():
    assert decode(Hooked, {"title": "a"}) == Hooked("a", legacy=True)
    got = decode(HasHooked, {"one": {"title": "a"}, "many": [{"name": "b"}, {"title": "c"}]})
    assert got.one == Hooked("a", True) and got.many == (Hooked("b"), Hooked("c", True))
    assert decode(HasHooked, {"maybe": {"title": "d"}}).maybe == Hooked("d", True)
    with pytest.raises(FormatError, match="expected an object"):
        decode(HasHooked, {"one": 3})


@dataclass(frozen=True)
class Shown:
    label: str
    work: tuple[int, ...] = field(default=(), metadata=opts(skip=True))
    note: str = field(default="", metadata=opts(omit_default=True))


def test_a_skipped_field_is_not_written_and_reads_as_its_default():
    value = Shown("x", work=(1, 2))
    assert encode(value) == {"label": "x"}
    assert decode(Shown, {"label": "x", "work": [9]}) == Shown("x")
    assert encode(Shown("y", note="n")) == {"label": "y", "note": "n"}
