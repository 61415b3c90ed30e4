"""Where a user's test files are: the input layouts ``problem init`` understands.

- **Kattis / ICPC package**: ``data/sample/NAME.in`` (+ ``NAME.ans``) are visible tests,
  ``data/secret/**/NAME.in`` (+ ``.ans``) hidden ones. ``--inputs`` may name the package
  root (holding ``data/``) or ``data/`` itself.
- **CodeNet**: ``input_N.txt`` with ``output_N.txt`` (also ``input.N.txt``, ``input.txt``,
  ``inN.txt``/``outN.txt``, and HackerRank's ``input/input00.txt`` + ``output/output00.txt``).
- **Flat folder** (and its subfolders): every file is one test's input, named after the
  file without its extension; ``NAME.ans`` / ``NAME.out`` / ``NAME.expected`` /
  ``NAME.answer`` / ``NAME.a`` next to it (or in a sibling ``out/``/``output/`` folder of
  an ``in/``/``input/`` one) is that test's official answer.

Answer files are never inputs. Files that are clearly not inputs (``README``, ``.md``,
source code, images, Kattis ``.desc``/``.hint``) and hidden files are skipped. Two inputs
that would become the same test name (``a.in`` and ``a.txt``) are an error naming both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import UserError

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


@dataclass(frozen=True)
class Layout:
    kind: str  # kattis | codenet | flat
    tests: tuple[TestFile, ...]
    skipped: tuple[Path, ...] = ()


def discover(folder: Path, hidden: bool = False) -> Layout:
    """The tests in ``folder`` (all hidden when ``hidden``); raises UserError when none."""
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder of input files")
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


def _kattis(folder: Path, hidden: bool) -> list[TestFile]:
    if not folder.is_dir():
        return []
    tests = []
    for inp in sorted(p for p in folder.rglob("*.in") if p.is_file() and not _dotted(p, folder)):
        answer = next(
            (inp.with_suffix(s) for s in (".ans", ".out") if inp.with_suffix(s).is_file()), None
        )
        rel = inp.relative_to(folder).with_suffix("")
        tests.append(TestFile(test_name(*rel.parts), inp, answer, hidden))
    return tests


def _flat(folder: Path, hidden: bool) -> Layout:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not _dotted(p, folder))
    inputs: list[tuple[str, Path]] = []
    answers: dict[str, Path] = {}
    skipped: list[Path] = []
    codenet = False
    for f in files:
        rel = f.relative_to(folder).parent.parts  # input/ and output/ folders pair up
        parts = tuple(p for p in rel if p.lower() not in _SIDE_FOLDERS)
        m = _CODENET.match(f.name)
        if m:
            codenet = True
            kind, key = (m["kind"] or m["short"]).lower(), m["key"] or m["num"] or ""
            key = test_name(*parts, key or ("" if parts else "input"))
            if kind.startswith("out"):
                answers[key] = f
            else:
                inputs.append((key, f))
        elif f.suffix.lower() in ANSWER_SUFFIXES:
            answers[test_name(*parts, f.stem)] = f
        elif f.suffix.lower() in SKIPPED_SUFFIXES or f.name.upper().startswith("README"):
            skipped.append(f)
        else:
            inputs.append((test_name(*parts, f.stem), f))
    tests = tuple(TestFile(name, path, answers.get(name), hidden) for name, path in inputs)
    skipped += [p for k, p in answers.items() if k not in {n for n, _ in inputs}]
    return Layout("codenet" if codenet else "flat", tests, tuple(skipped))


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
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _names(paths: tuple[Path, ...], limit: int = 4) -> str:
    names = [p.name for p in paths[:limit]]
    return ", ".join(names) + (f" and {len(paths) - limit} more" if len(paths) > limit else "")
