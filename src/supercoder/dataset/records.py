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
  shell-quoted line each (``""``: none); written only where a test has some.

Reading: every ``inputs``/``outputs`` pair is a visible test; the baseline is left
``None`` so the evaluator rebuilds it with ``gcc -O3 -S`` from ``c_code`` (the shipped
``reward_model.ground_truth`` may be ``-O0`` output; it is kept in ``meta`` for
comparison). Writing: ``unoptimized_assembly`` holds the ``-O3`` baseline, deliberately:
the released SuperCoder scripts build the *timed* baseline from that field, so writing
``-O0`` there would make every speedup look large.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from supercoder.build.flags import check_flags
from supercoder.errors import UserError
from supercoder.problems.schema import check_fields
from supercoder.types import Problem, TestCase, parse_args, split_flags

DATA_SOURCE = "supercoder"
FORMATS = (".jsonl", ".json", ".parquet")

PROBLEM_SETTINGS = (
    "cflags",
    "ldflags",
    "compare",
    "exit_code",
)  # problem.json keys carried in extra_info


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
    from supercoder.errors import parse_json

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
        "name": name,
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
    return Problem(name=str(name), source=code, tests=tuple(tests), split=split, meta=meta)


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
    names = info.get(nkey) or []
    if not isinstance(names, list | tuple) or not all(
        isinstance(n, str) and n and n.isprintable() for n in names
    ):
        names = []
    if len(names) != len(inputs) or len(set(names)) != len(names):
        names = [f"{prefix}{i:02d}" for i in range(len(inputs))]
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
    from supercoder.prompting.prompts import fence, question

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
            "tags": [str(t) for t in problem.meta.get("tags", [])],
            **args_field(visible, "test_args"),
            **args_field(hidden, "hidden_test_args"),
            **{k: problem.meta[k] for k in PROBLEM_SETTINGS if problem.meta.get(k)},
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
    from supercoder.build.baseline import baseline_asm

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
    from supercoder.paths import sibling_temp

    tmp = sibling_temp(p)
    try:
        if p.suffix == ".jsonl":
            with tmp.open("w") as f:
                for r in records:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(list(records), schema=arrow_schema()), tmp)
        tmp.replace(p)
    finally:
        tmp.unlink(missing_ok=True)
    return p


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
                    ]
                ),
            ),
        ]
    )
