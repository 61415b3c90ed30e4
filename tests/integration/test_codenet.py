"""The CodeNet builder on a small CodeNet-shaped tree made here (real gcc, real sandbox)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.build import DatasetBuildConfig, build_dataset
from supercoder.dataset.records import load_records

HEADER = "submission_id,problem_id,user_id,date,language,original_language,filename_ext,status,cpu_time,memory,code_size,accuracy\n"

# -O3 inlines the calls and hoists the invariant inner sum: far above a 3x speedup.
FAST = """#include <stdio.h>
static int sq(int x) { return x * x; }
static int add(int a, int b) { return a + b; }
int v[2048];
int main(void) {
    int n;
    long long total = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < 2048; i++) v[i] = i % K;
    for (int r = 0; r < n; r++) {
        int s = 0;
        for (int i = 0; i < 2048; i++) s = add(s, sq(v[i]));
        total += s;
    }
    printf("%lld\\n", total);
    return 0;
}
"""
# The same program with other names, comments and spacing: a near-duplicate.
NEAR_DUP = """#include <stdio.h>
/* my solution */
static int square(int y) { return y * y; }
static int plus(int p, int q) { return p + q; }
int arr[2048];
int main(void)
{
    int cnt; long long acc = 0;
    if (scanf("%d", &cnt) != 1) return 1;
    for (int k = 0; k < 2048; k++) arr[k] = k % 17;   // fill
    for (int t = 0; t < cnt; t++) {
        int s = 0;
        for (int k = 0; k < 2048; k++) s = plus(s, square(arr[k]));
        acc += s;
    }
    printf("%lld\\n", acc);
    return 0;
}
"""
NONDET = """#include <stdio.h>
int main(void) { int n; scanf("%d", &n); printf("%d %p\\n", n, (void *)&n); return 0; }
"""
FAILING = """#include <stdio.h>
int main(void) { int n; scanf("%d", &n); printf("%d\\n", n); return 3; }
"""
BROKEN = "int main(void) { this is not C; }\n"
FOREVER = "int main(void) { volatile unsigned x = 0; for (;;) x++; }\n"
IO_ONLY = """#include <stdio.h>
int main(void) { int n; scanf("%d", &n); printf("%d\\n", n * 2); return 0; }
"""

SUBMISSIONS = {
    # problem: [(submission id, status, source)]
    "p00001": [
        ("s000000001", "Accepted", FAST.replace("K", "17")),
        ("s000000002", "Accepted", NEAR_DUP),
        ("s000000003", "Accepted", NONDET),
        ("s000000004", "Accepted", FAILING),
        ("s000000005", "Accepted", BROKEN),
        ("s000000006", "Wrong Answer", FAST.replace("K", "5")),
        ("s000000007", "Accepted", IO_ONLY),
        ("s000000008", "Accepted", FOREVER),
    ],
    "p00002": [("s000000010", "Accepted", FAST.replace("K", "13"))],
    "p00003": [("s000000020", "Accepted", FAST.replace("K", "11"))],
    "p00004": [("s000000030", "Accepted", FAST.replace("K", "7"))],  # no inputs at all
}


def make_codenet(root: Path) -> Path:
    """metadata/*.csv, data/pid/C/sid.c and both input layouts (input.txt, input.N.txt)."""
    for pid, subs in SUBMISSIONS.items():
        (root / "data" / pid / "C").mkdir(parents=True)
        rows = [HEADER]
        for sid, status, code in subs:
            (root / "data" / pid / "C" / f"{sid}.c").write_text(code)
            rows.append(
                f"{sid},{pid},u{sid[-3:]},1500000000,C,C (GCC 9.2.1),c,{status},10,1000,300,1/1\n"
            )
        (root / "metadata").mkdir(exist_ok=True)
        (root / "metadata" / f"{pid}.csv").write_text("".join(rows))
    io = root / "derived" / "input_output" / "data"
    (io / "p00001").mkdir(parents=True)
    (io / "p00001" / "input.0.txt").write_text("3000\n")
    (io / "p00001" / "input.1.txt").write_text("6000\n")
    (io / "p00002").mkdir()
    (io / "p00002" / "input.txt").write_text("5000\n")
    (io / "p00003").mkdir()
    (io / "p00003" / "input.txt").write_text("2000\n")
    (io / "p00003" / "input.2.txt").write_text("4000\n")
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = make_codenet(tmp_path_factory.mktemp("codenet"))
    out = tmp_path_factory.mktemp("out")
    opts = DatasetBuildConfig(val_fraction=0.34, workers=2, timeout=1.0)
    return root, out, opts, build_dataset(root, out, opts)


def test_build_keeps_fast_programs_and_says_why_others_were_dropped(built):
    _, out, _, summary = built
    assert summary["dropped"] == {
        "not_accepted_c": 1,
        "no_inputs": 1,
        "compile_error": 1,
        "runtime_error": 1,
        "timeout": 1,
        "nondeterministic": 1,
        "below_threshold": 1,
        "near_duplicate": 1,
    }
    assert summary["kept"] == 3
    assert json.loads((out / "summary.json").read_text())["kept"] == 3
    kept = sorted(
        p.name for split in ("train", "val") for p in (out / "problems" / split).iterdir()
    )
    assert kept[1:] == ["p00002_s000000010", "p00003_s000000020"]
    assert kept[0] in ("p00001_s000000001", "p00001_s000000002")  # one of the near-duplicates


def test_outputs_are_regenerated_and_splits_do_not_share_problems(built):
    _, out, _, _ = built
    problems = load_benchmark(out / "problems" / "train") + load_benchmark(out / "problems" / "val")
    by_name = {p.name: p for p in problems}
    p3 = by_name["p00003_s000000020"]
    # input.txt first, then input.2.txt; expected outputs from running the program
    assert [t.read_input() for t in p3.tests] == [b"2000\n", b"4000\n"]
    per_round = sum((i % 11) ** 2 for i in range(2048))
    assert [t.expected for t in p3.tests] == [f"{n * per_round}\n".encode() for n in (2000, 4000)]
    assert p3.settings.speedup_o0_o3 >= 3.0 and p3.baseline_asm
    splits = {p.settings.codenet["problem_id"]: p.split for p in problems}
    assert sorted(splits.values()).count("val") == 1
    for split in ("train", "val"):
        recs = load_records(out / f"{split}.parquet")
        assert {r.name for r in recs} == {p.name for p in problems if p.split == split}
        assert {splits[r.name.split("_")[0]] for r in recs} == {split}
        assert len(load_records(out / f"{split}.jsonl")) == len(recs)


def test_rerun_reuses_finished_submissions(built):
    root, out, opts, first = built
    before = (out / "train.jsonl").read_text()
    again = build_dataset(root, out, opts)
    assert again["reused_from_cache"] == again["submissions_run"] == first["submissions_run"]
    assert (out / "train.jsonl").read_text() == before
    # an interrupted run: one result missing -> only that submission runs again
    next((out / ".work" / "results" / "p00002").glob("*.json")).unlink()
    third = build_dataset(root, out, opts)
    assert third["reused_from_cache"] == first["submissions_run"] - 1
    assert third["kept"] == first["kept"]


def test_token_cap_drops_long_prompts(built, tmp_path):
    root, _, opts, first = built
    from dataclasses import replace

    capped = build_dataset(root, tmp_path, replace(opts, max_tokens=50))
    assert capped["kept"] == 0
    assert capped["dropped"]["too_many_tokens"] == first["kept"] + 2  # + near-dup + io-only


def test_parquet_loads_with_hf_datasets(built):
    datasets = pytest.importorskip("datasets")
    _, out, _, _ = built
    ds = datasets.load_dataset("parquet", data_files={"train": str(out / "train.parquet")})
    row = ds["train"][0]
    assert row["ability"] == "code" and row["prompt"][0]["role"] == "user"
    assert row["reward_model"]["ground_truth"] in row["extra_info"]["answer"]
