"""The `bench` and `dataset` commands end to end (typer runner, real gcc and sandbox)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.records import load_records
from supercoder.errors import UserError
from supercoder.problems.loading import write_problem
from supercoder.settings import ProblemSettings
from supercoder.types import Problem, TestCase

DOUBLE = '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);if(n<0){puts("neg");return 0;}printf("%d\\n",2*n);return 0;}\n'
SUM = '#include <stdio.h>\nint main(void){int n;long s=0,x;scanf("%d",&n);for(int i=0;i<n;i++){scanf("%ld",&x);s+=x;}printf("%ld\\n",s);return 0;}\n'


@pytest.fixture
def bench(tmp_path):
    root = tmp_path / "bench"
    double = tuple(
        TestCase(f"t{i}", f"{2 * i}\n".encode(), input_bytes=f"{i}\n".encode()) for i in range(3)
    )
    hidden = TestCase("h0", b"neg\n", input_bytes=b"-4\n", hidden=True)
    write_problem(
        Problem(
            "double",
            DOUBLE,
            (*double, hidden),
            split="train",
            settings=ProblemSettings(tags=("io",)),
        ),
        root / "double",
    )
    sums = (
        TestCase("a", b"6\n", input_bytes=b"3\n1 2 3\n"),
        TestCase("b", b"40\n", input_bytes=b"4\n5 10 10 15\n"),
    )
    write_problem(
        Problem("sum", SUM, sums, split="val", settings=ProblemSettings(tags=("math",))),
        root / "sum",
    )
    return root


def run(*args: str):
    result = CliRunner().invoke(app, list(args))
    if result.exit_code == 2:  # bad input: the CLI's one-line error
        assert "Traceback" not in result.output and result.output.startswith("error: ")
        raise UserError(result.output)
    assert result.exit_code == 0, result.output
    return result.output


def test_bench_list_shows_counts_and_baseline_time(bench):
    out = run("bench", "list", str(bench), "--time")
    row = next(line for line in out.splitlines() if "double" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[:5] == ["double", "train", "io", "3", "1"]
    ms, slowest = cells[-1].split()  # ms on the slowest test (all are tiny: any may be)
    assert float(ms) > 0 and slowest in {"(t0)", "(t1)", "(t2)", "(hidden/h0)"}
    assert "2 problems: train 1, val 1" in out
    only_val = run("bench", "list", str(bench), "--split", "val", "--no-time")
    assert "sum" in only_val and "double" not in only_val and "1 problems: val 1" in only_val


def test_bench_coverage_reports_per_problem_and_means(bench, tmp_path):
    out = run("bench", "coverage", str(bench), "--workers", "1", "--json", str(tmp_path / "c.json"))
    assert "mean over 2 problems" in out and "96.2% line" in out
    figures = json.loads((tmp_path / "c.json").read_text())
    assert {p["problem"] for p in figures["problems"]} == {"double", "sum"}
    double = next(p for p in figures["problems"] if p["problem"] == "double")
    assert double["line_rate"] == 1.0  # the hidden negative test covers the other branch


def test_bench_fuzz_adds_hidden_tests(bench):
    out = run("bench", "fuzz", str(bench / "sum"), "--count", "6", "--seed", "1")
    assert "sum: kept" in out
    problem = load_benchmark(bench / "sum")[0]
    fuzzed = [t for t in problem.tests if t.name.startswith("f")]
    assert fuzzed and all(t.hidden for t in fuzzed)
    for t in fuzzed:  # expected = the true sum: an independent oracle
        n, *xs = t.read_input().split()
        assert int(n) == len(xs) and t.expected == f"{sum(map(int, xs))}\n".encode()


def test_dataset_export_round_trips_and_loads_in_hf_datasets(bench, tmp_path):
    out = run("dataset", "export", str(bench), "--out", str(tmp_path / "b.parquet"))
    assert "wrote 2 records" in out and "1 hidden tests" in out
    problems = load_records(tmp_path / "b.parquet")
    assert {(p.name, p.split, len(p.tests)) for p in problems} == {
        ("double", "train", 4),
        ("sum", "val", 2),
    }
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset("parquet", data_files=str(tmp_path / "b.parquet"))["train"]
    assert sorted(ds["extra_info"], key=lambda e: e["name"])[0]["outputs"] == ["0\n", "2\n", "4\n"]


def test_dataset_build_command(tmp_path):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "codenet_fixture", Path(__file__).with_name("test_codenet.py")
    )
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    root = fixture.make_codenet(tmp_path / "codenet")
    out = run(
        "dataset",
        "build",
        "--codenet",
        str(root),
        "--out",
        str(tmp_path / "o"),
        "--limit",
        "2",
        "--workers",
        "2",
        "--val-fraction",
        "0",
        "--timeout",
        "1",
    )
    assert "kept 2 programs" in out and "near_duplicate" in out and "below_threshold" in out
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["kept_per_split"] == {
        "train": 2
    }


def test_bench_on_a_plain_folder_of_real_programs(tmp_path, bench):
    """Problems without a split list cleanly; --split says why it cannot filter; a problem
    whose coverage build fails is a row, and the others are still measured."""
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("double", "sum"):
        meta = json.loads((bench / name / "problem.json").read_text())
        meta.pop("split")
        (bench / name / "problem.json").write_text(json.dumps(meta))
        (bench / name).rename(plain / name)
    out = run("bench", "list", str(plain), "--no-time")
    assert "2 problems" in out and "None" not in out
    with pytest.raises(UserError, match="no split"):
        run("bench", "list", str(plain), "--split", "val")
    (plain / "sum" / "source.c").write_text("int main(void) { return undefined_thing; }\n")
    out = run("bench", "coverage", str(plain), "--workers", "1")
    row = next(line for line in out.splitlines() if line.strip("│ ").startswith("sum"))
    assert "failed" in row and "mean over 1 problems" in out and "could not be measured" in out
