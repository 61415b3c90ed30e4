"""Reading a Project CodeNet download.

Layout (paths relative to the ``--codenet`` folder)::

    metadata/pXXXXX.csv          one row per submission, columns
                                 submission_id,problem_id,user_id,date,language,
                                 original_language,filename_ext,status,cpu_time,
                                 memory,code_size,accuracy
    data/pXXXXX/C/sNNNNNNNNN.c   the submission's source

Test inputs, looked up in this order (the first folder that has inputs wins):

    derived/input_output/data/pXXXXX/input.txt       one input (CodeNet's own archive)
    derived/input_output/data/pXXXXX/input.N.txt     several inputs, N = 0, 1, 2, ...
    input_output/pXXXXX/...                          the same two layouts, a separate archive

Both ``input.txt`` and ``input.N.txt`` may be present; all are used (``input.txt``
first, then by N). Only submissions with ``status == "Accepted"`` and
``language == "C"`` are taken.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import UserError, is_safe_name

INPUT_DIRS = ("derived/input_output/data", "input_output")
_NUMBERED = re.compile(r"^input\.(\d+)\.txt$")


@dataclass(frozen=True)
class Submission:
    problem_id: str
    submission_id: str
    user_id: str
    status: str
    language: str
    path: Path

    @property
    def key(self) -> str:
        return f"{self.problem_id}_{self.submission_id}"


def check_layout(root: Path) -> None:
    if not (root / "metadata").is_dir():
        raise UserError(
            f"{root}: not a Project CodeNet folder (expected metadata/pXXXXX.csv and data/pXXXXX/C/)"
        )


def problem_ids(root: Path) -> list[str]:
    check_layout(root)
    return sorted(p.stem for p in (root / "metadata").glob("p*.csv"))


def read_submissions(
    root: Path, problem_id: str, skipped: list[str] | None = None
) -> list[Submission]:
    """All rows of a problem's metadata (any status, any language). A row that cannot be
    read (a byte that is not UTF-8, a malformed CSV line) is left out and said in
    ``skipped`` as ``FILE:LINE: why``; a file whose header cannot be read is refused."""
    path = root / "metadata" / f"{problem_id}.csv"
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read ({e.strerror or e})") from e
    rows: list[tuple[int, dict[str, str]]] = []
    header: list[str] | None = None
    for number, line in enumerate(raw.splitlines(), 1):
        fields, why = _csv_line(line)
        if header is None:
            if fields is None:
                raise UserError(f"{path}:{number}: cannot read the header ({why})")
            header = [h.strip() for h in fields]
            missing = {"submission_id", "status", "language"} - set(header)
            if missing:
                raise UserError(f"{path}: missing columns {sorted(missing)}")
            continue
        if fields is None or len(fields) != len(header):
            why = why or f"{len(fields or ())} fields where the header has {len(header)}"
            if skipped is not None:
                skipped.append(f"{path}:{number}: {why}: row skipped")
            continue
        rows.append((number, dict(zip(header, fields, strict=True))))
    out = []
    for _, row in rows:
        sid = (row["submission_id"] or "").strip()
        ext = (row.get("filename_ext") or "c").strip()
        if not (is_safe_name(sid) and ext.isalnum()):  # names become paths: never ../x
            continue
        out.append(
            Submission(
                problem_id=problem_id,
                submission_id=sid,
                user_id=(row.get("user_id") or "").strip(),
                status=row["status"].strip(),
                language=row["language"].strip(),
                path=root / "data" / problem_id / "C" / f"{sid}.{ext}",
            )
        )
    return out


def _csv_line(line: bytes) -> tuple[list[str] | None, str]:
    """One metadata line's fields, or (None, why it cannot be read)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"not UTF-8 (byte 0x{line[e.start]:02x} at column {e.start + 1})"
    try:
        return next(csv.reader([text]), []), ""
    except csv.Error as e:
        return None, f"not a CSV line ({e})"


def is_accepted_c(sub: Submission) -> bool:
    return sub.status == "Accepted" and sub.language == "C"


def input_files(root: Path, problem_id: str) -> list[Path]:
    """The problem's input files (see the module docstring), or [] if there are none."""
    for base in INPUT_DIRS:
        folder = root / base / problem_id
        if not folder.is_dir():
            continue
        files = [folder / "input.txt"] if (folder / "input.txt").is_file() else []
        numbered = [
            (int(m.group(1)), p) for p in folder.iterdir() if (m := _NUMBERED.match(p.name))
        ]
        files += [p for _, p in sorted(numbered)]
        if files:
            return files
    return []
