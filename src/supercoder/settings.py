"""A problem's settings: ``problem.json`` as a typed record (``ProblemSettings``).

Every read of a problem's settings goes through ``Problem.settings``, never by key.
``problem.json`` is decoded by the codec (``decode(ProblemSettings, data)``), after
``problems/schema.py`` has checked each known field's shape (one-line errors); keys this
record does not know (a plugin's own) are kept in ``extra`` and written back as they were.
Files of every earlier format read: every field has a default, so an old file that lacks
a newer key reads as that default.

**Adding a setting is one line**: a field below, with its type, its default and a comment
(``answer_unit: str | None = None  # ...``). It then reads from ``problem.json``, is
written back by ``write_problem``, travels in records' ``problem_files`` and is read as
``problem.settings.answer_unit``. Only if its value needs a check beyond its type (a
range, a path inside the folder) add one to ``problems/schema.py`` ``_CHECKS``; a value of
the wrong type is already a one-line error naming the file and the key.

The loader adds what is not the author's to write (``path``, ``headers_sha``,
``problem_files``): fields marked ``skip``, never read from nor written to the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from supercoder.codec import EXTRA, Json, encode, opts

Flags = str | tuple[str, ...]  # a shell-quoted string of flags, or a list of them

_SKIP = opts(skip=True)


@dataclass(frozen=True, kw_only=True)
class FuzzSettings:
    """``problem.json`` ``fuzz``: how ``bench fuzz`` may vary a test's input."""

    OMIT_DEFAULTS: ClassVar[bool] = True

    shuffle_lines_after: int | None = None  # lines after this one may be shuffled
    frozen_lines: int = 0  # leading lines left as they are
    numbers: bool = True  # numbers may be varied


@dataclass(frozen=True, kw_only=True)
class RecordMark:
    """Where a problem read from a SuperCoder record came from."""

    OMIT_DEFAULTS: ClassVar[bool] = True

    data_source: Json = None
    split: Json = None
    index: Json = None


@dataclass(frozen=True, kw_only=True)
class ProblemSettings:
    """``problem.json``, typed. Field by field (``problems/schema.py`` checks shapes):"""

    OMIT_DEFAULTS: ClassVar[bool] = True  # the file holds only what differs from the default
    DERIVED_KEYS: ClassVar[tuple[str, ...]] = ("path", "headers_sha", "problem_files")

    # -- what an author writes ------------------------------------------------------------
    name: str | None = None  # the problem's name (else its folder's)
    split: str | None = None  # train / val / test
    origin: str | None = None  # the C file ``problem init`` started from
    tags: tuple[str, ...] = ()
    cflags: Flags = ()  # every compile of the C source (reference, baseline, builds)
    ldflags: Flags = ()  # every link (e.g. -lgmp)
    compare: str = "exact"  # output comparison: exact, tokens or float:TOL
    # what is left out of every comparison first: lines, masks, fields, tolerances
    # ({"ignore_line": REGEX}, {"mask": REGEX}, {"field": N, "line": REGEX, "tolerance": T})
    compare_rules: tuple[Mapping[str, Json], ...] = ()
    fuzz: FuzzSettings | None = None
    headers: tuple[str, ...] = ()  # files the source includes, relative to the folder
    units: tuple[str, ...] = ()  # other translation units (.c, also in headers)
    answer_unit: str | None = None  # the further unit whose text is source.c (init)
    main_unit: str | None = None  # with answer_unit: the unit (of units) holding main
    answer_why: str | None = None  # why that unit is the answer (named, the profile)
    answer_joined: tuple[str, ...] = ()  # further units #included into source.c (the answer)
    generator: str | None = None  # the input generator's file (else gen.py)
    exit_code: int = 0  # the exit status of every official run
    cpu_limit: float | None = None  # CPU seconds per run of a check, above the default's
    reads_input: bool = True  # false: the output does not depend on the input
    # -- what supercoder's tools write ----------------------------------------------------
    too_small: bool = False  # problem init: runs too short to time
    # problem init: why no input can be drawn (every source refused or dropped, no
    # hidden test): timed on its visible tests like a memorizable problem
    no_draw: str | None = None
    llm_generator: str | None = None  # the model that wrote llm_gen.py / llm_validate.py
    baseline: str | None = None  # dataset import: how baseline.s was made
    carried_baseline: str | None = None  # dataset import: the record's baseline.s, not used
    ground_truth_kind: str | None = None  # dataset import: the record's answer, classified
    unoptimized_assembly_kind: str | None = None
    codenet: Mapping[str, Json] | None = None  # dataset build: the CodeNet submission
    seconds_o0: float | None = None
    seconds_o3: float | None = None
    speedup_o0_o3: float | None = None
    # -- a problem read from a record: where it came from ---------------------------------
    record: RecordMark | None = None
    record_ground_truth: Json = None  # the record's answer, as it gave it
    record_unoptimized_assembly: Json = None
    record_where: str | None = None
    # -- added by the loader, never in the file -------------------------------------------
    path: str | None = field(default=None, metadata=_SKIP)  # the folder it was loaded from
    headers_sha: str | None = field(default=None, metadata=_SKIP)  # its headers' digest
    problem_files: str | None = field(default=None, metadata=_SKIP)  # a record's bundle
    # -- keys this record does not know (a plugin's own), kept as they were --------------
    extra: Mapping[str, Json] = field(default_factory=dict, metadata=EXTRA)

    def stored(self, *, record_keys: bool = True) -> dict[str, Json]:
        """The ``problem.json`` form (only what differs from the defaults; the loader's
        fields left out; ``record_keys=False`` leaves out where a record came from)."""
        out = encode(self)
        assert isinstance(out, dict)
        if not record_keys:
            for key in RECORD_KEYS:
                out.pop(key, None)
        return out


RECORD_KEYS = ("record", "record_ground_truth", "record_unoptimized_assembly", "record_where")
