"""Where a user's test files are: the input layouts ``problem init`` understands.

- **Kattis / ICPC package**: ``data/sample/NAME.in`` (+ ``NAME.ans``) are visible tests,
  ``data/secret/**/NAME.in`` (+ ``.ans``) hidden ones. ``--inputs`` may name the package
  root (holding ``data/``) or ``data/`` itself.
- **CodeNet**: ``input_N.txt`` with ``output_N.txt`` (also ``input.N.txt``, ``input.txt``);
  ``inN.txt``/``outN.txt`` are ``in/out names``, and HackerRank's ``input/input00.txt``
  (+ ``output/output00.txt``) is the ``hackerrank`` layout.
- **Flat folder** (and its subfolders): every file is one test's input, named after the
  file without its extension; ``NAME.ans`` / ``NAME.out`` / ``NAME.expected`` /
  ``NAME.answer`` / ``NAME.a`` next to it (or in a sibling ``out/``/``output/`` folder of
  an ``in/``/``input/`` one) is that test's official answer.
- **Paired names**, in any of these: a file whose name holds the word ``in`` / ``input``
  (``in1``, ``sample-in-2``, ``3.in``, ``input_4.txt``) pairs with the file named the same
  with ``out`` / ``output`` / ``ans`` / ``answer`` / ``expected`` instead, next to it or in
  the sibling ``out/`` / ``output/`` folder (where a file of the same name pairs too); the
  test is named without the word (``in1`` -> ``1``). Extensionless names pair like others.

In a flat folder or a Kattis package, ``NAME.args`` beside an input holds that test's
command-line arguments (one shell-quoted line); it is never an input.

Answer files are never inputs: a pair's answer is never a test. Files that are clearly not inputs (``README``, ``.md``,
source code, images, Kattis ``.desc``/``.hint``) and hidden files are skipped. Two inputs
that would become the same test name (``a.in`` and ``a.txt``) are an error naming both.
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import UserError, file_kind, printable

ARGS_SUFFIX = ".args"  # NAME.args: the test's command-line arguments (one shell-quoted line)
FILES_SUFFIX = ".files"  # NAME.files/: the test's data files (never inputs themselves)
ANSWER_SUFFIXES = frozenset({".ans", ".out", ".output", ".expected", ".answer", ".a"})
SKIPPED_SUFFIXES = frozenset(
    {
        ".md",
        ".c",
        ".cc",
        ".cpp",
        ".h",
        ".py",
        ".sh",
        ".java",
        ".desc",
        ".hint",
        ".png",
        ".jpg",
        ".jpeg",
        ".svg",
        ".pdf",
        ".yaml",
        ".yml",
    }
)
_CODENET = re.compile(
    r"^(?:(?P<kind>input|output)(?:[._-]?(?P<key>.*))?|(?P<short>in|out)[._-]?(?P<num>\d+))\.txt$",
    re.IGNORECASE,
)
_SIDE_FOLDERS = frozenset({"input", "inputs", "output", "outputs", "in", "out"})
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class TestFile:
    """One test found on disk: its input, its official answer (if any), where it goes."""

    __test__ = False

    name: str
    input: Path
    answer: Path | None
    hidden: bool
    args: Path | None = None  # NAME.args beside the input: its command-line arguments


@dataclass(frozen=True)
class Layout:
    """What ``discover`` found: the layout's name (``kattis``, ``codenet``, ``hackerrank``,
    ``input/output folders``, ``in/out names``, ``flat``), the tests, and the files that
    are neither."""

    kind: str
    tests: tuple[TestFile, ...]
    skipped: tuple[Path, ...] = ()

    def describe(self, root: Path, limit: int = 6) -> list[str]:
        """Lines saying which files became inputs, which answers, which were skipped."""

        def names(paths: list[Path]) -> str:
            shown = [printable(str(_rel(p, root))) for p in paths[:limit]]
            more = len(paths) - limit
            return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

        lines = [f"inputs: {names([t.input for t in self.tests])}"]
        answered = [t.answer for t in self.tests if t.answer is not None]
        lines.append(
            f"answers: {names(answered)}"
            if answered
            else "answers: none (the reference's outputs become the expected outputs)"
        )
        if self.skipped:
            lines.append(f"skipped: {names(list(self.skipped))}")
        return lines


def discover(folder: Path, hidden: bool = False) -> Layout:
    """The tests in ``folder`` (all hidden when ``hidden``); raises UserError when none."""
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder of input files")
    _refuse_special(folder)
    data = folder / "data" if (folder / "data").is_dir() else folder
    if (data / "sample").is_dir() or (data / "secret").is_dir():
        tests = [*_kattis(data / "sample", hidden), *_kattis(data / "secret", True)]
        layout = Layout("kattis", tuple(tests))
    else:
        layout = _flat(folder, hidden)
    if not layout.tests:
        why = f" (only answer or skipped files: {_names(layout.skipped)})" if layout.skipped else ""
        raise UserError(f"{folder}: no input files{why}")
    for group in (True, False):
        _check_unique([t for t in layout.tests if t.hidden is group])
    return layout


def _refuse_special(folder: Path) -> None:
    """A FIFO, device or socket among the inputs (a test file, were it regular) is
    refused now, naming what it is: never skipped in silence, never opened."""
    for p in sorted(folder.rglob("*")):
        if _dotted(p, folder):
            continue
        try:
            mode = p.stat().st_mode
        except OSError:
            continue  # a dangling link: not a file, as before
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise UserError(f"{p}: is {file_kind(mode)}, not a regular file")


def _kattis(folder: Path, hidden: bool) -> list[TestFile]:
    if not folder.is_dir():
        return []
    tests = []
    for inp in sorted(p for p in folder.rglob("*.in") if p.is_file() and not _dotted(p, folder)):
        answer = next(
            (inp.with_suffix(s) for s in (".ans", ".out") if inp.with_suffix(s).is_file()), None
        )
        rel = inp.relative_to(folder).with_suffix("")
        args = inp.with_suffix(ARGS_SUFFIX)
        tests.append(
            TestFile(test_name(*rel.parts), inp, answer, hidden, args if args.is_file() else None)
        )
    return tests


def _flat(folder: Path, hidden: bool) -> Layout:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not _dotted(p, folder))
    lookup = {str(f).lower(): f for f in files}
    paired = {}  # input -> (answer, test name, how they paired)
    for f in files:
        if f.suffix.lower() in SKIPPED_SUFFIXES or f.name.upper().startswith("README"):
            continue
        if f.suffix.lower() == ARGS_SUFFIX:
            continue
        found = _pair(f, folder, lookup)
        if found is not None and found[0] not in paired:
            paired[f] = found
    paired_answers = {answer for answer, _, _ in paired.values()}
    inputs: list[tuple[str, Path]] = []
    answers: dict[str, Path] = {}
    skipped: list[Path] = []
    kinds: set[str] = set()
    arg_files: dict[str, Path] = {}
    for f in files:
        parts = _parts(f, folder)
        m = _CODENET.match(f.name)
        if f in paired_answers:
            continue
        if f.suffix.lower() == ARGS_SUFFIX:
            arg_files[test_name(*parts, f.stem)] = f
            continue
        if f in paired:
            answer, name, how = paired[f]
            inputs.append((name, f))
            answers[name] = answer
            kinds.add(_numbered_kind(f, m) if how == "in/out names" and m else how)
        elif m:
            kinds.add(_numbered_kind(f, m))
            kind, key = (m["kind"] or m["short"]).lower(), m["key"] or m["num"] or ""
            key = test_name(*parts, key or ("" if parts else "input"))
            if kind.startswith("out"):
                answers.setdefault(key, f)
            else:
                inputs.append((key, f))
        elif f.suffix.lower() in ANSWER_SUFFIXES:
            answers.setdefault(test_name(*parts, f.stem), f)
        elif f.suffix.lower() in SKIPPED_SUFFIXES or f.name.upper().startswith("README"):
            skipped.append(f)
        else:
            inputs.append((test_name(*parts, f.stem), f))
    tests = tuple(
        TestFile(name, path, answers.get(name), hidden, arg_files.get(name))
        for name, path in inputs
    )
    used = {t.answer for t in tests} | {t.args for t in tests}
    skipped += [p for p in answers.values() if p not in used]
    skipped += [p for p in arg_files.values() if p not in used]
    kind = next((k for k in _KIND_ORDER if k in kinds), "flat")
    return Layout(kind, tests, tuple(skipped))


_IN_WORD = re.compile(r"(?<![A-Za-z])(?:inputs|input|in)(?![A-Za-z])", re.IGNORECASE)
_ANSWER_WORDS = ("out", "output", "ans", "answer", "expected", "outputs")
_SIDE_SWAP = {"in": ("out", "ans"), "input": ("output",), "inputs": ("outputs",)}
_KIND_ORDER = ("input/output folders", "hackerrank", "codenet", "in/out names")
_HACKERRANK = re.compile(r"^(?:input|output)\d+\.txt$", re.IGNORECASE)


def _numbered_kind(f: Path, m: re.Match) -> str:
    """The layout a numbered input/output file name belongs to, named for what it is:
    HackerRank's ``input/input00.txt``, CodeNet's ``input_1.txt`` / ``input.txt``, or
    plain ``in1.txt`` names."""
    if m["short"]:
        return "in/out names"
    if f.parent.name.lower() in ("input", "output") and _HACKERRANK.match(f.name):
        return "hackerrank"
    return "codenet"


def _pair(f: Path, root: Path, lookup: dict[str, Path]) -> tuple[Path, str, str] | None:
    """The answer of input ``f`` found by pairing names: an ``in`` / ``input`` word of its
    name (``in1``, ``input_2.txt``, ``3.in``, ``sample-in-4``) swapped for ``out`` /
    ``output`` / ``ans`` / ``answer`` / ``expected`` names an existing file, in the same
    folder or, under an ``in/`` / ``input/`` folder, in its sibling ``out/`` / ``output/``
    (where the same name also pairs). Returns (answer, test name, how) or None."""
    side = f.parent.name.lower()
    siblings = [f.parent.parent / s for s in _SIDE_SWAP.get(side, ())] if f.parent != root else []
    parts = _parts(f, root)
    for sibling in siblings:
        hit = lookup.get(str(sibling / f.name).lower())
        if hit is not None:
            return hit, test_name(*parts, f.stem), "input/output folders"
    stem_len = len(Path(f.name).stem)
    for m in _IN_WORD.finditer(f.name):
        for word in _ANSWER_WORDS:
            swapped = f.name[: m.start()] + _same_case(word, m[0]) + f.name[m.end() :]
            for where, how in (
                (f.parent, "in/out names"),
                *((s, "input/output folders") for s in siblings),
            ):
                hit = lookup.get(str(where / swapped).lower())
                if hit is None or hit == f:
                    continue
                if m.start() >= stem_len:  # the word is the extension: 1.in / 1.out
                    base = Path(f.name).stem
                else:
                    stem = Path(f.name).stem
                    left, right = stem[: m.start()].rstrip("._-"), stem[m.end() :].lstrip("._-")
                    base = "_".join(x for x in (left, right) if x)
                return hit, test_name(*parts, base or ("" if parts else "input")), how
    return None


def _same_case(word: str, like: str) -> str:
    return word.upper() if like.isupper() else word.capitalize() if like[:1].isupper() else word


def _parts(f: Path, root: Path) -> tuple[str, ...]:
    """The folders between ``root`` and ``f`` that name a test (input/ and output/ don't)."""
    rel = f.relative_to(root).parent.parts
    return tuple(p for p in rel if p.lower() not in _SIDE_FOLDERS)


def test_name(*parts: str) -> str:
    """A test name safe as a file name: path parts joined with ``_``."""
    joined = "_".join(_UNSAFE.sub("_", p).strip("._") for p in parts if p)
    return joined or "test"


def _check_unique(tests: list[TestFile]) -> None:
    seen: dict[str, Path] = {}
    for t in tests:
        if t.name in seen:
            raise UserError(
                f"{seen[t.name]} and {t.input} would both be test {t.name!r}: "
                "rename one of them (a test's name is its file name without the extension)"
            )
        seen[t.name] = t.input


def _dotted(path: Path, root: Path) -> bool:
    """A hidden file, or one of a test's data files (inside ``NAME.files/``): no input."""
    parts = path.relative_to(root).parts
    return any(part.startswith(".") for part in parts) or any(
        part.endswith(FILES_SUFFIX) for part in parts[:-1]
    )


def _rel(path: Path, root: Path) -> Path:
    try:
        return path.relative_to(root)
    except ValueError:
        return path


def _names(paths: tuple[Path, ...], limit: int = 4) -> str:
    names = [p.name for p in paths[:limit]]
    return ", ".join(names) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")
