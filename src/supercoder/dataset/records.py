"""SuperCoder-schema records (the ``llm_superoptimizer_ds`` layout) <-> Problem.

One record per program, as on the Hugging Face hub::

    data_source   str
    prompt        [{"role": "user", "content": question}]
    ability       "code"
    reward_model  {"style": "rule", "ground_truth": gcc -O3 assembly}
    extra_info    {split, index, c_code, question, c_only_question, answer,
                   inputs, outputs, unoptimized_assembly, ...}

Fields of ours, added to ``extra_info`` (readers that do not know them ignore them):

- ``name``: the problem's name (records without it are named ``<split>_<index>``);
- ``hidden_inputs`` / ``hidden_outputs``: hidden tests (used to judge, never shown);
- ``test_names`` / ``hidden_test_names``: test names, so a round trip keeps them;
- ``tags``: the problem's tags;
- ``test_args`` / ``hidden_test_args``: each test's command-line arguments, one
  shell-quoted line each (``""``: none); written only where a test has some;
- ``problem_files``: the problem whole, as JSON text ``{"format": "supercoder-problem/1",
  "files": [{"path": P, "text": T} | {"path": P, "base64": B}, ...]}``: every file of its
  folder besides ``source.c`` and the tests' data (``problem.json`` with its marks such
  as ``reads_input``, compare mode, exit code and flags; ``baseline.s``; ``gen.py``,
  ``validate.py``, ``input_model.json`` however the user edited it; headers and further
  sources; anything else the folder holds): ``problems.loading.own_files``.

Reading a record with ``problem_files`` restores the problem folder itself (under the
cache, by content: the files, ``c_code`` and the tests) and loads it, so every path
(``check``, ``eval``, ``score_batch``, the TRL and verl rewards) judges the same problem:
the same input domain and its source, marks, compare mode, exit code, flags. A record
without it (the published dataset, or one written before) is read as before.
Writing refuses (UserError) a problem that cannot travel whole (``own_files``), and a
Parquet file refuses a field its schema would drop.

Reading without ``problem_files``: every ``inputs``/``outputs`` pair is a visible test;
the baseline is left ``None`` so the evaluator rebuilds it with ``gcc -O3 -S`` from ``c_code`` (the shipped
``reward_model.ground_truth`` may be ``-O0`` output; it is kept in ``meta`` for
comparison). Writing: ``unoptimized_assembly`` holds the ``-O3`` baseline, deliberately:
the released SuperCoder scripts build the *timed* baseline from that field, so writing
``-O0`` there would make every speedup look large.
"""

from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import json
import shlex
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from supercoder.codec import FormatError, Json, decode
from supercoder.errors import InfraError, UserError, parse_json, printable
from supercoder.paths import cache_dir, sibling_temp
from supercoder.problems.loading import TEST_DATA, TEST_FOLDERS, TRAVEL_KEY, load_problem, own_files
from supercoder.problems.schema import check_fields
from supercoder.prompting.prompts import fence, question
from supercoder.settings import ProblemSettings
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.flags import check_flags
from supercoder.types import Problem, TestCase, parse_args, split_flags

DATA_SOURCE = "supercoder"
FORMATS = (".jsonl", ".json", ".parquet")

PROBLEM_SETTINGS = (
    "cflags",
    "ldflags",
    "compare",
    "compare_rules",
    "exit_code",
)  # problem.json keys carried in extra_info


def problem_settings(problem: Problem) -> dict[str, Json]:
    """The settings a record's ``extra_info`` carries (``PROBLEM_SETTINGS``, those set)."""
    stored = problem.settings.stored()
    return {k: stored[k] for k in PROBLEM_SETTINGS if stored.get(k)}


def load_records(path: str | Path) -> list[Problem]:
    """Problems from a ``.jsonl``, ``.json`` or ``.parquet`` file of SuperCoder records."""
    return [
        problem_from_record(r, where=f"{path} record #{i}") for i, r in enumerate(read_raw(path))
    ]


def read_raw(path: str | Path, bad: list[tuple[str, str]] | None = None) -> list[dict[str, Any]]:
    """The records of a file as plain dicts (no validation). With a ``bad`` list, JSONL
    lines that are not JSON are skipped and noted there as (where, why) instead."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{p}: no such file")
    if p.suffix == ".parquet":
        import pyarrow.parquet as pq  # a core dependency

        try:
            return pq.read_table(p).to_pylist()
        except Exception as e:  # pyarrow raises several types for corrupt files
            raise UserError(f"{p}: not a readable Parquet file ({e})") from e
    if p.suffix == ".jsonl":
        out = []
        for i, raw in enumerate(p.read_bytes().split(b"\n"), 1):
            if not raw.strip():
                continue
            try:
                out.append(_json(_decode(raw, f"{p} line {i}"), f"{p} line {i}"))
            except UserError as e:
                if bad is None:
                    raise
                bad.append((f"line {i}", str(e).split(": ", 1)[-1]))
        return out
    if p.suffix == ".json":
        data = _json(_text_of(p), str(p))
        data = data.get("data", data) if isinstance(data, dict) else data
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            raise UserError(f"{p}: expected a list of records")
        return data
    raise UserError(f"{p}: unknown record format (use one of {', '.join(FORMATS)})")


def _decode(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{where}: not UTF-8 text ({e.reason} at byte {e.start})") from e


def _text_of(p: Path) -> str:
    return _decode(p.read_bytes(), str(p))


def _json(text: str, where: str) -> Any:
    return parse_json(text, where)


def problem_from_record(rec: Any, where: str = "record") -> Problem:
    """A Problem from one record; UserError naming the record and field if malformed."""
    if not isinstance(rec, dict):
        raise UserError(f"{where}: expected an object, got {type(rec).__name__}")
    info = rec.get("extra_info")
    if isinstance(info, str):
        info = _json(info, f"{where} field extra_info")
    if not isinstance(info, dict):
        raise UserError(
            f"{where}: missing field extra_info (an object with c_code, inputs, outputs)"
        )
    code = info.get("c_code")
    if not isinstance(code, str) or not code.strip():
        raise UserError(f"{where}: field extra_info.c_code is missing or empty")
    _encodable(code, where, "extra_info.c_code")
    tests = _with_args(
        _tests(info, "inputs", "outputs", "test_names", "t", False, where), info, "test_args", where
    )
    tests += _with_args(
        _tests(info, "hidden_inputs", "hidden_outputs", "hidden_test_names", "h", True, where),
        info,
        "hidden_test_args",
        where,
    )
    if not any(not t.hidden for t in tests):
        raise UserError(f"{where}: field extra_info.inputs is empty (a problem needs tests)")
    split = info.get("split")
    index = info.get("index")
    name = info.get("name") or f"{split or 'record'}_{index if index is not None else 0}"
    for key, value in (("name", name), ("split", split)):
        if value is not None and not isinstance(value, str | int):
            raise UserError(f"{where}: field extra_info.{key} must be a string")
        _encodable(str(value), where, f"extra_info.{key}")
    if split is not None:
        split = str(split)
    truth = rec.get("reward_model") or {}
    meta = {
        "name": str(name),
        "record": {"data_source": rec.get("data_source"), "split": split, "index": index},
        "record_ground_truth": truth.get("ground_truth") if isinstance(truth, dict) else None,
        "record_unoptimized_assembly": info.get("unoptimized_assembly"),
        "record_where": where,
    }
    if info.get("tags"):
        if not isinstance(info["tags"], list | tuple):
            raise UserError(f"{where}: field extra_info.tags must be a list of strings")
        meta["tags"] = [str(t) for t in info["tags"]]
    settings = {k: info[k] for k in PROBLEM_SETTINGS if info.get(k)}
    check_fields(settings, f"{where}: extra_info")
    for key in ("cflags", "ldflags"):  # the policy: only flags a build needs
        check_flags(split_flags(settings.get(key)), f"{where}: record extra_info.{key}")
    meta.update(settings)
    try:
        typed = decode(ProblemSettings, meta)
    except FormatError as e:
        raise UserError(f"{where}: field {e}") from None
    problem = Problem(name=str(name), source=code, tests=tuple(tests), split=split, settings=typed)
    bundle = info.get(BUNDLE)
    if bundle is None:
        return problem
    return restore_problem(problem, bundle, where)


BUNDLE = TRAVEL_KEY
BUNDLE_FORMAT = "supercoder-problem/1"


def problem_bundle(problem: Problem) -> str:
    """The problem's ``problem_files`` (module docstring): the files of the folder it was
    loaded from (``own_files``), or for a problem made in memory its ``problem.json``
    (its settings and marks) and ``baseline.s``; UserError when it cannot travel whole."""
    folder = problem.path
    if folder and Path(folder).is_dir():
        files = own_files(folder)
    else:
        files_named = [*problem.units, *problem.settings.headers]
        if files_named:
            raise UserError(
                f"{problem.name}: its other files ({', '.join(map(str, files_named[:4]))}: "
                "problem.json units/headers) are not at hand (no problem folder), so a record "
                "could not carry the problem whole; export it from its problem folder"
            )
        meta = problem.settings.stored(record_keys=False)
        try:
            files = {"problem.json": json.dumps(meta, indent=2).encode() + b"\n"}
        except (TypeError, ValueError) as e:
            raise UserError(
                f"{problem.name}: its settings cannot be written as problem.json ({e}); "
                "the record could not carry the problem whole"
            ) from e
        if problem.baseline_asm:
            files["baseline.s"] = problem.baseline_asm.encode()
    entries = []
    for rel, data in files.items():
        try:
            entries.append({"path": rel, "text": data.decode("utf-8")})
        except UnicodeDecodeError:
            entries.append({"path": rel, "base64": base64.b64encode(data).decode()})
    return json.dumps({"format": BUNDLE_FORMAT, "files": entries}, ensure_ascii=False)


def restore_problem(problem: Problem, bundle: Any, where: str = "record") -> Problem:
    """``problem`` (source and tests, as the record gives them) restored whole from its
    ``problem_files``: written as a problem folder under the cache (once per content)
    and loaded from there, like any folder; UserError naming the record if malformed."""
    files = _bundle_files(bundle, where)
    folder_name = _safe_component(problem.name) or "problem"
    h = hashlib.sha256(f"{BUNDLE_FORMAT}\n{problem.name}\n{problem.split}\n".encode())
    h.update(hashlib.sha256(problem.source.encode()).digest())
    for rel, data in sorted(files.items()):
        h.update(f"{rel}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
    for t in problem.tests:
        h.update(f"{t.name}\0{t.hidden}\0".encode())
        h.update(hashlib.sha256(t.read_input()).digest() + hashlib.sha256(t.expected).digest())
    home = cache_dir() / "records" / h.hexdigest()[:32]
    target = home / folder_name
    if not (target / "source.c").is_file():
        try:
            _write_folder(problem, files, home, folder_name, where)
        except OSError as e:
            if e.errno not in _RECORD_ERRNOS:  # the machine's disk, not the record
                raise InfraError(f"{where}: cannot write its problem folder: {e}") from e
            raise UserError(
                f"{where}: its problem_files cannot be written as a folder ({e.strerror}: "
                f"{printable(str(e.filename or ''))[-120:]})"
            ) from None

    try:
        loaded = load_problem(target)
    except UserError as e:
        raise UserError(f"{where}: its problem_files do not make a problem folder: {e}") from e
    if len(loaded.tests) != len(problem.tests):
        raise UserError(
            f"{where}: its problem_files hold test files that clash with its tests "
            f"({len(loaded.tests)} tests loaded, {len(problem.tests)} in the record)"
        )
    given, mine = problem.settings, loaded.settings
    settings = replace(
        mine,
        record=given.record,
        record_ground_truth=given.record_ground_truth,
        record_unoptimized_assembly=given.record_unoptimized_assembly,
        record_where=given.record_where,
        problem_files=bundle if isinstance(bundle, str) else json.dumps(bundle),  # service._here
        tags=mine.tags or given.tags,
    )
    return replace(loaded, name=problem.name, split=problem.split, settings=settings)


# what a record's own paths can cause when written (a name too long, a file where a
# folder must be): the record's fault, skipped with its reason
_RECORD_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.EILSEQ, errno.EINVAL}
)


def _bundle_files(bundle: Any, where: str) -> dict[str, bytes]:
    if isinstance(bundle, str):
        bundle = _json(bundle, f"{where} field extra_info.{BUNDLE}")
    if not isinstance(bundle, dict) or bundle.get("format") != BUNDLE_FORMAT:
        found = bundle.get("format") if isinstance(bundle, dict) else type(bundle).__name__
        raise UserError(
            f"{where}: field extra_info.{BUNDLE} is not a {BUNDLE_FORMAT} bundle "
            f"(format {printable(str(found))!r}); a newer supercoder may read it"
        )
    entries = bundle.get("files")
    if not isinstance(entries, list):
        raise UserError(f"{where}: field extra_info.{BUNDLE}.files must be a list")
    files: dict[str, bytes] = {}
    for i, entry in enumerate(entries):
        field = f"extra_info.{BUNDLE}.files[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise UserError(f"{where}: field {field} must be an object with a path")
        rel = _bundle_path(entry["path"], where, field)
        if isinstance(entry.get("text"), str):
            _encodable(entry["text"], where, f"{field}.text")
            files[rel] = entry["text"].encode()
        elif isinstance(entry.get("base64"), str):
            try:
                files[rel] = base64.b64decode(entry["base64"], validate=True)
            except (binascii.Error, ValueError) as e:
                raise UserError(f"{where}: field {field}.base64 is not base64 ({e})") from e
        else:
            raise UserError(f"{where}: field {field} needs a text or base64 string")
    folders = {"/".join(rel.split("/")[:k]) for rel in files for k in range(1, rel.count("/") + 1)}
    clash = sorted(set(files) & (folders | set(TEST_FOLDERS)))
    if clash:
        raise UserError(
            f"{where}: field extra_info.{BUNDLE} holds a file {printable(clash[0])!r} where "
            "a folder of that name must be (a path is a file or a folder, not both)"
        )
    return files


def _bundle_path(rel: str, where: str, field: str) -> str:
    """A relative path inside the problem folder that is none of the record's own (the
    source, a test's data); UserError otherwise."""
    parts = PurePosixPath(rel).parts
    ok = (
        0 < len(parts) <= 16
        and not rel.startswith("/")
        and all(_safe_component(p) == p for p in parts)
        and rel not in ("source.c",)
        and not (len(parts) == 2 and parts[0] in TEST_FOLDERS and Path(rel).suffix in TEST_DATA)
    )
    if not ok:
        raise UserError(
            f"{where}: field {field}.path {printable(rel)!r} is not a file a problem folder "
            "may hold beside its source and tests (a relative path, no '..' or hidden part)"
        )
    return "/".join(parts)


def _safe_component(name: str) -> str | None:
    """``name`` when it is usable as one path component of a problem folder (printable,
    no separator, not hidden, at most 200 characters), else None."""
    ok = (
        isinstance(name, str)
        and 0 < len(name) <= 200
        and len(name.encode(errors="surrogatepass")) <= 255  # the file system's NAME_MAX
        and name.isprintable()
        and "/" not in name
        and "\\" not in name
        and not name.startswith(".")
    )
    return name if ok else None


def _write_folder(
    problem: Problem, files: dict[str, bytes], home: Path, name: str, where: str
) -> None:
    """The folder ``home/name`` with ``files``, the source and the tests, whole or not at
    all (written beside, then renamed; another process's identical one is kept)."""
    work = sibling_temp(home)  # this process's and thread's own (verl scores in threads)
    shutil.rmtree(work, ignore_errors=True)
    folder = work / name
    try:
        folder.mkdir(parents=True)
        for rel, data in files.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
        _identity(folder, problem)
        (folder / "source.c").write_text(problem.source)
        for t in problem.tests:
            sub, stem = _test_place(t.name, t.hidden, where)
            (folder / sub).mkdir(exist_ok=True)
            (folder / sub / f"{stem}.in").write_bytes(t.read_input())
            (folder / sub / f"{stem}.out").write_bytes(t.expected)
            if t.args:
                (folder / sub / f"{stem}.args").write_text(shlex.join(t.args) + "\n")
        try:
            work.rename(home)
        except OSError:  # another process restored the same record first
            if not (home / name / "source.c").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _identity(folder: Path, problem: Problem) -> None:
    """``problem.json`` names the problem and its split as the record does (a worker
    that loads the folder by its path sees the same problem)."""
    path = folder / "problem.json"
    try:
        meta = json.loads(path.read_bytes()) if path.is_file() else {}
    except ValueError:
        return  # load_problem refuses it, naming the file
    if not isinstance(meta, dict):
        return  # load_problem refuses it, naming the field
    want = {"name": problem.name, **({"split": problem.split} if problem.split else {})}
    if any(meta.get(k) != v for k, v in want.items()):
        path.write_text(json.dumps({**meta, **want}, indent=2) + "\n")


def _test_place(name: str, hidden: bool, where: str) -> tuple[str, str]:
    """Where a test of the record goes in its folder: ``tests/NAME``, ``hidden/NAME``
    or ``fuzz/NAME`` (names as ``load_problem`` gives them)."""
    sub, _, stem = name.rpartition("/") if "/" in name else ("", "", name)
    if not hidden:
        place = ("tests", stem) if not sub else ("", "")
    elif sub in ("hidden", "fuzz"):
        place = (sub, stem)
    else:
        place = ("hidden", stem) if not sub else ("", "")
    if not place[0] or _safe_component(place[1]) is None:
        raise UserError(f"{where}: test name {printable(name)!r} cannot be a file name")
    return place


def _tests(
    info: dict, ikey: str, okey: str, nkey: str, prefix: str, hidden: bool, where: str
) -> list[TestCase]:
    inputs, outputs = info.get(ikey) or [], info.get(okey) or []
    for key, value in ((ikey, inputs), (okey, outputs)):
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise UserError(f"{where}: field extra_info.{key} must be a list of strings")
    if len(inputs) != len(outputs):
        raise UserError(
            f"{where}: extra_info.{ikey} has {len(inputs)} entries but "
            f"extra_info.{okey} has {len(outputs)}"
        )
    for key, value in ((ikey, inputs), (okey, outputs)):
        for i, v in enumerate(value):
            _encodable(v, where, f"extra_info.{key}[{i}]")
    names = info.get(nkey)
    if names is None or (isinstance(names, list | tuple) and not names):
        names = [f"{prefix}{i:02d}" for i in range(len(inputs))]  # none given: t00, t01...
    elif not isinstance(names, list | tuple) or not all(
        isinstance(n, str) and n and n.isprintable() for n in names
    ):
        got = type(names).__name__ if not isinstance(names, list | tuple) else "other values"
        raise UserError(
            f"{where}: field extra_info.{nkey} must be a list of test names (non-empty "
            f"printable strings), got {got}: fix the record or drop the field"
        )
    elif len(names) != len(inputs) or len(set(names)) != len(names):
        why = (
            f"{len(names)} names for {len(inputs)} tests"
            if len(names) != len(inputs)
            else "a name repeats"
        )
        raise UserError(f"{where}: field extra_info.{nkey}: {why}")
    return [
        TestCase(str(n), o.encode(), input_bytes=i.encode(), hidden=hidden)
        for n, i, o in zip(names, inputs, outputs, strict=True)
    ]


def _with_args(tests: list[TestCase], info: dict, key: str, where: str) -> list[TestCase]:
    """``tests`` with their arguments from ``extra_info[key]`` (one shell-quoted line
    per test); a malformed field is refused, naming it."""
    lines = info.get(key)
    if lines is None:
        return tests
    if not isinstance(lines, list | tuple) or not all(isinstance(v, str) for v in lines):
        raise UserError(f"{where}: field extra_info.{key} must be a list of strings")
    if len(lines) != len(tests):
        raise UserError(
            f"{where}: extra_info.{key} has {len(lines)} entries for {len(tests)} tests"
        )
    out = []
    for i, (t, line) in enumerate(zip(tests, lines, strict=True)):
        try:
            out.append(replace(t, args=parse_args(line)))
        except ValueError as e:
            raise UserError(f"{where}: field extra_info.{key}[{i}]: {e}") from e
    return out


def args_field(tests: Sequence[TestCase], key: str) -> dict[str, list[str]]:
    """``{key: one shell-quoted line per test}`` where a test has arguments, else {}."""
    if not any(t.args for t in tests):
        return {}
    return {key: [shlex.join(t.args) for t in tests]}


def _encodable(text: str, where: str, field: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise UserError(f"{where}: field {field} is not valid text ({e.reason})") from e


def problem_to_record(
    problem: Problem,
    split: str,
    index: int,
    baseline_asm: str,
    context: str = "full",
    answer: str = "whole",
) -> dict[str, Any]:
    """One record in the exact SuperCoder schema (plus our documented extra fields);
    ``context``/``answer`` choose the prompt (``prompts.question``)."""
    asm_q = question(
        problem, variant="asm", baseline_asm=baseline_asm, context=context, answer=answer
    )
    visible = [t for t in problem.tests if not t.hidden]
    hidden = [t for t in problem.tests if t.hidden]
    return {
        "data_source": DATA_SOURCE,
        "prompt": [{"role": "user", "content": asm_q}],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": baseline_asm},
        "extra_info": {
            "split": split,
            "index": int(index),
            "c_code": problem.source,
            "question": asm_q,
            "c_only_question": question(problem, variant="c_only"),
            "answer": fence(baseline_asm, "assembly"),
            "inputs": [_text(t.read_input(), problem, t.name) for t in visible],
            "outputs": [_text(t.expected, problem, t.name) for t in visible],
            "unoptimized_assembly": baseline_asm,
            "name": problem.name,
            "hidden_inputs": [_text(t.read_input(), problem, t.name) for t in hidden],
            "hidden_outputs": [_text(t.expected, problem, t.name) for t in hidden],
            "test_names": [t.name for t in visible],
            "hidden_test_names": [t.name for t in hidden],
            "tags": [str(t) for t in problem.settings.tags],
            **args_field(visible, "test_args"),
            **args_field(hidden, "hidden_test_args"),
            **problem_settings(problem),
            BUNDLE: problem_bundle(problem),
        },
    }


def _text(data: bytes, problem: Problem, test: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UserError(
            f"{problem.name}: test {test} is not UTF-8 text; the SuperCoder schema stores "
            "tests as strings"
        ) from e


def records_for(
    problems: Sequence[Problem], context: str = "full", answer: str = "whole"
) -> list[dict[str, Any]]:
    """Records for problems, numbered per split; baselines built with gcc -O3 if absent."""
    counters: dict[str, int] = {}
    out = []
    for p in problems:
        split = p.split or "train"
        index = counters.get(split, 0)
        counters[split] = index + 1
        asm = baseline_asm(p)
        out.append(problem_to_record(p, split, index, asm, context, answer))
    return out


def write_records(problems: Iterable[Problem], path: str | Path) -> Path:
    """Write problems as SuperCoder records to ``.parquet`` or ``.jsonl``."""
    return write_raw(records_for(list(problems)), path)


def write_raw(records: Sequence[dict[str, Any]], path: str | Path) -> Path:
    p = Path(path)
    if p.suffix not in (".parquet", ".jsonl"):
        raise UserError(f"{p}: write records as .parquet or .jsonl")
    p.parent.mkdir(parents=True, exist_ok=True)

    tmp = sibling_temp(p)
    try:
        if p.suffix == ".jsonl":
            with tmp.open("w") as f:
                for r in records:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            schema = arrow_schema()
            _fits(records, schema)
            pq.write_table(pa.Table.from_pylist(list(records), schema=schema), tmp)
        tmp.replace(p)
    finally:
        tmp.unlink(missing_ok=True)
    return p


def _fits(records: Sequence[dict[str, Any]], schema) -> None:
    """Refuse (UserError) a record whose ``extra_info`` holds a field the Parquet schema
    would silently drop; the problem settings may go where ``problem_files`` carries
    them (its ``problem.json``)."""
    known = {f.name for f in schema.field("extra_info").type}
    for i, r in enumerate(records):
        info = r.get("extra_info") or {}
        lost = sorted(
            k
            for k in info
            if k not in known and not (k in PROBLEM_SETTINGS and info.get(BUNDLE) is not None)
        )
        if lost:
            name = info.get("name", f"record #{i}")
            raise UserError(
                f"{name}: extra_info field(s) {', '.join(lost)} would be lost in Parquet; "
                "write .jsonl, or records with problem_files (which carry them)"
            )


def arrow_schema():
    """The Parquet schema of our records (explicit, so empty lists keep their type)."""
    import pyarrow as pa

    strings = pa.list_(pa.string())
    return pa.schema(
        [
            ("data_source", pa.string()),
            ("prompt", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
            ("ability", pa.string()),
            ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
            (
                "extra_info",
                pa.struct(
                    [
                        ("split", pa.string()),
                        ("index", pa.int64()),
                        ("c_code", pa.string()),
                        ("question", pa.string()),
                        ("c_only_question", pa.string()),
                        ("answer", pa.string()),
                        ("inputs", strings),
                        ("outputs", strings),
                        ("unoptimized_assembly", pa.string()),
                        ("name", pa.string()),
                        ("hidden_inputs", strings),
                        ("hidden_outputs", strings),
                        ("test_names", strings),
                        ("hidden_test_names", strings),
                        ("tags", strings),
                        ("test_args", strings),
                        ("hidden_test_args", strings),
                        (BUNDLE, pa.string()),
                    ]
                ),
            ),
        ]
    )
