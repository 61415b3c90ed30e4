"""A multi-file problem travels whole: a program of three translation units
(``problem.json`` ``units``) and a driver whose header sat above its folder (``headers``,
copied under ``lib/``) survive a SuperCoder record (``problem_to_record`` ->
``problem_from_record``, the ``problem_files`` bundle) and the verification server's
payload (``verify/client.py`` ``problem_record``), and check the same there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from supercoder.dataset.records import problem_from_record, problem_to_record
from supercoder.problems.loading import load_problem
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Problem
from supercoder.verify.client import problem_record
from supercoder.verify.evaluate import CheckConfig, check_candidate
from tests.conftest import sandbox_or_skip

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_builds"

# prints nothing and succeeds: wrong on every test, wherever the problem is checked
WRONG = "\t.text\n\t.globl\tmain\n\t.type\tmain, @function\nmain:\n\txorl\t%eax, %eax\n\tret\n"


def _init(out: Path, *args: str) -> Problem:
    proc = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "problem", "init", *args, "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return load_problem(out)


def _statuses(problem: Problem, answers: list[str]) -> list[tuple[str, str]]:
    config = CheckConfig(time=False)
    out = []
    for asm in answers:
        v = check_candidate(problem, asm, config).verdict
        out.append((v.status.value, v.message if v.status.value != "ok" else ""))
    return out


def _travelled(problem: Problem) -> list[Problem]:
    record = problem_to_record(problem, "val", 0, baseline_asm(problem))
    back = problem_from_record(json.loads(json.dumps(record)), where="rec")
    served = problem_from_record({"extra_info": json.loads(json.dumps(problem_record(problem)))})
    return [back, served]


def test_a_three_unit_problem_and_a_lib_header_survive_records_and_the_server(tmp_path):
    sandbox_or_skip()
    rle = REAL / "rle"
    units = _init(
        tmp_path / "rle",
        *(str(rle / n) for n in ("main.c", "encode.c", "decode.c")),
        "--inputs",
        str(rle / "tests"),
        "--answer-unit",
        "encode.c",
    )
    assert units.units == ("main.c", "decode.c") and units.answer_unit == "encode.c"
    example = REAL / "jsonish" / "example"
    header = _init(tmp_path / "js", str(example / "driver.c"), "--inputs", str(example / "tests"))
    assert header.settings.headers == ("lib/jsonish/jsmn.h",)
    # the answer unit is encode.c: a wrong one is an encoder that writes wrong counts
    wrong_encode = (Path(units.path) / "source.c").read_text()
    wrong_encode = wrong_encode.replace("out[at] = count;", "out[at] = count + 1;")
    wrongs = {
        units.name: compile_to_asm(wrong_encode, ("-O3", *units.compile_flags)),
        header.name: WRONG,
    }
    for problem in (units, header):
        base = baseline_asm(problem)
        wrong = wrongs[problem.name]
        here = _statuses(problem, [base, wrong])
        assert here[0] == ("ok", "") and here[1][0] == "wrong_output", here
        for restored in _travelled(problem):
            folder = Path(restored.path)
            assert folder != Path(problem.path)  # restored elsewhere, from the record
            assert restored.units == problem.units
            assert restored.answer_unit == problem.answer_unit
            assert restored.settings.headers == problem.settings.headers
            for rel in (*problem.units, *problem.settings.headers):
                assert (folder / rel).read_bytes() == (Path(problem.path) / rel).read_bytes()
            assert [t.run_input() for t in restored.tests] == [t.run_input() for t in problem.tests]
            assert baseline_asm(restored) == base
            assert [s for s, _ in _statuses(restored, [base, wrong])] == [s for s, _ in here]


RLE_GEN = """# gen.py
import random

SIZES = [4, 40, 400, 4000]


def generate(seed, size):
    rng = random.Random(seed)
    return "".join(rng.choice("ab") * rng.randint(1, 9) for _ in range(size)) + "\\n"
"""
RLE_VALIDATE = """# validate.py
import sys

data = sys.stdin.read()
assert data.isascii() and len(data) < 1 << 20
"""


def test_an_llm_pair_and_the_fuzzer_run_a_multi_file_reference_whole(tmp_path):
    sandbox_or_skip()
    from supercoder.models.providers import load_model
    from supercoder.prompting.inputgen import write_pair
    from tests.fakes.servers import openai_server

    rle = REAL / "rle"
    folder = tmp_path / "rle"
    files = [str(rle / n) for n in ("main.c", "encode.c", "decode.c")]
    _init(folder, *files, "--inputs", str(rle / "tests"))
    text = f"```python\n{RLE_GEN}```\n\n```python\n{RLE_VALIDATE}```\n"
    with openai_server(lambda messages, request: text) as url:
        client = load_model("openai:writer", base_url=url, cache=False)
        report = write_pair(folder, lambda m: client.complete(m)[0].text, "openai:writer")
    assert report.kept, report.why  # its reference built with encode.c and decode.c
    # the fuzzer (bench fuzz) runs the same reference on its variants
    from supercoder.problems.fuzz import _check

    p = load_problem(folder)
    kept, _ = _check(p.source, [b"aaab\n"], 5.0, p.compile_flags, p.ldflags, p.exit_code, p.units)
    assert [out.split(b" ok")[0] for _, out in kept] == [b"5 -> 6 -> 5"]
