"""Importing the published SuperCoder dataset: a Parquet file in the exact HF schema."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.importer import import_records, looks_unoptimized, read_source
from supercoder.toolchain.gcc import compile_to_asm, normalize_asm
from tests.conftest import sandbox_or_skip

PROGRAMS = [
    '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);long s=0;for(int i=0;i<n;i++)s+=i*i;printf("%ld\\n",s);return 0;}\n',
    '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a>b?a:b);return 0;}\n',
    '#include <stdio.h>\nint f(int x){return x<2?x:f(x-1)+f(x-2);}\nint main(void){int n;scanf("%d",&n);printf("%d\\n",f(n));return 0;}\n',
    '#include <stdio.h>\nint main(void){char s[100];scanf("%99s",s);int c=0;for(int i=0;s[i];i++)c+=s[i]==\'a\';printf("%d\\n",c);return 0;}\n',
]
INPUTS = [
    (["10\n"], ["285\n"]),
    (["3 9\n"], ["9\n"]),
    (["10\n"], ["55\n"]),
    (["banana\n"], ["3\n"]),
]


def hf_record(i: int, code: str, truth: str, unopt: str, split: str = "train") -> dict:
    """A record exactly as llm_superoptimizer_ds has it (no fields of ours)."""
    question = (
        f"Given the following C code and assembly code...\n```c\n{code}```\n```assembly\n{truth}```"
    )
    inputs, outputs = INPUTS[i % len(INPUTS)]
    return {
        "data_source": "llm_superoptimizer_ds",
        "prompt": [{"role": "user", "content": question}],
        "ability": "code",
        "reward_model": {"style": "rule", "ground_truth": truth},
        "extra_info": {
            "split": split,
            "index": i,
            "c_code": code,
            "question": question,
            "c_only_question": f"```c\n{code}```",
            "answer": f"```assembly\n{truth}```",
            "inputs": inputs,
            "outputs": outputs,
            "unoptimized_assembly": unopt,
            "unoptimized_compiled": b"\x7fELF...",
        },
    }


@pytest.fixture(scope="module")
def hf_file(tmp_path_factory):
    o3 = [compile_to_asm(c, ("-O3",)) for c in PROGRAMS]
    o0 = [compile_to_asm(c, ("-O0",)) for c in PROGRAMS]
    other = o3[1].replace("cmpl", "cmpl ") + "\n\t.p2align 4\n"  # another gcc's -O3, say
    records = [
        hf_record(0, PROGRAMS[0], o3[0], o0[0]),  # ground truth -O3, unoptimized -O0 (as released)
        hf_record(1, PROGRAMS[1], other, o3[1]),  # ground truth differs but is not -O0
        hf_record(2, PROGRAMS[2], o0[2], o0[2]),  # ground truth is -O0 output
        hf_record(3, PROGRAMS[3], o0[3], o0[3], split="val"),
        hf_record(4, "int main(void) { syntax error }\n", "x", "x"),  # does not compile
    ]
    path = tmp_path_factory.mktemp("hf") / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(records), path)
    return path, o3


def test_import_rebuilds_baselines_and_reports_disagreements(hf_file, tmp_path):
    path, o3 = hf_file
    report = import_records(read_source(str(path)), tmp_path, workers=2)
    assert (report.records, report.written, report.not_compiling) == (5, 4, 1)
    assert report.ground_truth == {"O3": 1, "other": 1, "O0": 2}
    assert report.ground_truth_disagreed == 3
    assert report.unoptimized == {"O0": 3, "O3": 1}
    assert report.splits == {"train": 3, "val": 1}
    text = "\n".join(report.lines())
    assert "disagreed with our -O3 rebuild in 3 of 4 records" in text
    assert "-O0-looking in 3 records" in text
    problems = {p.name: p for p in load_benchmark(tmp_path / "train")}
    assert set(problems) == {"train_0", "train_1", "train_2"}
    for i, name in enumerate(sorted(problems)):
        assert normalize_asm(problems[name].baseline_asm) == normalize_asm(o3[i])
    assert problems["train_2"].settings.ground_truth_kind == "O0"
    assert [t.expected for t in problems["train_2"].tests] == [b"55\n"]


def test_import_command_says_it_plainly(hf_file, tmp_path):
    path, _ = hf_file
    result = CliRunner().invoke(
        app, ["dataset", "import", str(path), "--out", str(tmp_path / "o"), "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "rebuilt from c_code with gcc -O3 -S" in result.output
    assert "disagreed with our -O3 rebuild in 3 of 4 records" in result.output
    assert (tmp_path / "o" / "import_report.json").is_file()


def test_o0_heuristic():
    code = PROGRAMS[0]
    assert looks_unoptimized(compile_to_asm(code, ("-O0",)))
    assert not looks_unoptimized(compile_to_asm(code, ("-O3",)))
    assert not looks_unoptimized(compile_to_asm(code, ("-O2",)))


def test_a_records_cflags_are_used_for_its_baseline_and_reference(tmp_path):
    sandbox_or_skip()
    code = (
        '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);printf("%d\\n",n*N);return 0;}\n'
    )
    record = hf_record(0, code, "x", "x")
    record["extra_info"].update(cflags="-DN=3", inputs=["5\n"], outputs=["15\n"])
    report = import_records([record], tmp_path)
    assert report.written == 1, report.reasons
    [problem] = load_benchmark(tmp_path / "train")
    assert problem.cflags == ("-DN=3",)
    expected = compile_to_asm(code, ("-O3", "-DN=3"))
    assert normalize_asm(problem.baseline_asm) == normalize_asm(expected)
