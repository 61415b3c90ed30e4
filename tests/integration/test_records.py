"""SuperCoder-schema records <-> Problem, through real Parquet and JSONL files."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.records import load_records, problem_to_record, write_records
from supercoder.errors import UserError
from supercoder.settings import ProblemSettings
from supercoder.toolchain.gcc import compile_to_asm, normalize_asm
from supercoder.types import Problem, TestCase

SOURCE = '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n'


def problem(name: str = "add", split: str = "val") -> Problem:
    tests = (
        TestCase("small", b"3\n", input_bytes=b"1 2\n"),
        TestCase("neg", b"-1\n", input_bytes=b"-3 2\n"),
        TestCase("secret", b"10\n", input_bytes=b"4 6\n", hidden=True),
    )
    return Problem(name, SOURCE, tests, split=split, settings=ProblemSettings(tags=("math",)))


@pytest.mark.parametrize("ext", [".parquet", ".jsonl"])
def test_round_trip_keeps_tests_hidden_flags_and_names(tmp_path, ext):
    path = write_records([problem(), problem("add2", "train")], tmp_path / f"bench{ext}")
    back = load_records(path)
    assert [p.name for p in back] == ["add", "add2"]
    p = back[0]
    assert p.source == SOURCE and p.split == "val" and p.baseline_asm is None
    # restored as a problem folder: its tests as a folder names them (hidden/NAME)
    assert sorted((t.name, t.read_input(), t.expected, t.hidden) for t in p.tests) == sorted(
        (("hidden/" if t.hidden else "") + t.name, t.read_input(), t.expected, t.hidden)
        for t in problem().tests
    )
    assert p.settings.tags == ("math",)
    assert normalize_asm(p.settings.record_ground_truth) == normalize_asm(compile_to_asm(SOURCE))


def test_record_has_the_exact_supercoder_schema(tmp_path):
    asm = compile_to_asm(SOURCE)
    rec = problem_to_record(problem(), "val", 7, asm)
    assert set(rec) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert rec["ability"] == "code"
    assert rec["reward_model"] == {"style": "rule", "ground_truth": asm}
    info = rec["extra_info"]
    paper_fields = {
        "split",
        "index",
        "c_code",
        "question",
        "c_only_question",
        "answer",
        "inputs",
        "outputs",
        "unoptimized_assembly",
    }
    assert paper_fields <= set(info)
    assert rec["prompt"] == [{"role": "user", "content": info["question"]}]
    assert SOURCE in info["question"] and asm in info["question"]
    assert SOURCE in info["c_only_question"] and asm not in info["c_only_question"]
    assert info["answer"].startswith("```assembly") and asm.strip() in info["answer"]
    assert info["inputs"] == ["1 2\n", "-3 2\n"] and info["outputs"] == ["3\n", "-1\n"]
    assert info["hidden_inputs"] == ["4 6\n"] and "4 6" not in info["question"]
    assert (info["split"], info["index"]) == ("val", 7)
    # Parquet columns match the schema (struct fields, list types) and load as records
    write_records([problem()], tmp_path / "x.parquet")
    table = pq.read_table(tmp_path / "x.parquet")
    assert table.column_names == ["data_source", "prompt", "ability", "reward_model", "extra_info"]
    assert table.to_pylist()[0]["extra_info"]["inputs"] == ["1 2\n", "-3 2\n"]


def test_load_benchmark_dispatches_record_files(tmp_path):
    write_records([problem()], tmp_path / "b.jsonl")
    recs = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    (tmp_path / "b.json").write_text(json.dumps(recs))
    for name in ("b.jsonl", "b.json"):
        assert [p.name for p in load_benchmark(tmp_path / name)] == ["add"]


def test_a_record_carries_its_problem_folder_whole(tmp_path):
    """Every file that defines the problem (marks, generator, edited input model,
    per-test files, binary ones too) travels and is restored as a folder; an old record
    without problem_files still loads."""
    from supercoder.problems.loading import load_problem, write_problem

    folder = write_problem(problem(), tmp_path / "add")
    meta = json.loads((folder / "problem.json").read_text())
    (folder / "problem.json").write_text(json.dumps({**meta, "reads_input": False}))
    (folder / "gen.py").write_text("def generate(seed, size):\n    return '1 2\\n'\n")
    (folder / "input_model.json").write_text('{"widened": [0, 1000000000]}\n')
    (folder / "tests" / "small.args").write_text("--fast\n")
    (folder / "table.bin").write_bytes(b"\xff\x00\xfe")
    for ext in (".jsonl", ".parquet"):
        (back,) = load_records(write_records([load_problem(folder)], tmp_path / f"r{ext}"))
        where = back.path
        assert where != str(folder) and back.memorizable and back.name == "add"
        for name in ("gen.py", "input_model.json", "tests/small.args", "table.bin"):
            assert (folder / name).read_bytes() == (Path(where) / name).read_bytes()
    old = problem_to_record(problem(), "val", 0, compile_to_asm(SOURCE))
    del old["extra_info"]["problem_files"]
    (tmp_path / "old.jsonl").write_text(json.dumps(old) + "\n")
    (legacy,) = load_records(tmp_path / "old.jsonl")
    assert legacy.path is None and len(legacy.tests) == 3


def test_a_problem_that_cannot_travel_whole_is_refused_and_a_bad_bundle_named(tmp_path):
    from supercoder.problems.loading import load_problem, write_problem

    folder = write_problem(problem(), tmp_path / "add")
    loaded = load_problem(folder)
    (folder / "gen.py").symlink_to("/etc/hostname")
    with pytest.raises(UserError, match="symbolic link.*cannot travel"):
        write_records([loaded], tmp_path / "r.jsonl")
    rec = problem_to_record(problem(), "val", 0, compile_to_asm(SOURCE))
    for bad, why in (
        ('{"format": "supercoder-problem/9", "files": []}', "not a supercoder-problem/1"),
        ('{"format": "supercoder-problem/1", "files": [{"path": "../x", "text": ""}]}', "'../x'"),
        ('{"format": "supercoder-problem/1", "files": [{"path": "tests/a.in", "text": ""}]}', ""),
    ):
        rec["extra_info"]["problem_files"] = bad
        with pytest.raises(UserError, match=f"record #0: .*{why}"):
            load_records_from(tmp_path, rec)


def load_records_from(tmp_path, rec):
    (tmp_path / "one.jsonl").write_text(json.dumps(rec) + "\n")
    return load_records(tmp_path / "one.jsonl")


def test_threads_restoring_one_record_at_once_all_get_its_folder(tmp_path):
    """verl scores responses in threads: each may restore the same record first."""
    from concurrent.futures import ThreadPoolExecutor

    from supercoder.dataset.records import problem_from_record, restore_problem

    rec = problem_to_record(problem(), "val", 0, compile_to_asm(SOURCE))
    thin = problem_from_record({"extra_info": {**rec["extra_info"], "problem_files": None}})
    bundle = rec["extra_info"]["problem_files"]
    with ThreadPoolExecutor(8) as pool:
        restored = list(pool.map(lambda _: restore_problem(thin, bundle), range(16)))
    assert len({p.path for p in restored}) == 1
    assert all(len(p.tests) == 3 for p in restored)
