"""Tables are visible: ``analyze`` names a lookup table an answer adds (its size, and
whether its index derives from the input), and a verdict says when the answer's data
grew. Real programs, built by gcc -O3 from C."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from supercoder.analysis import analyze
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.toolchain.sections import data_sections
from tests.conftest import sandbox_or_skip

STEPS = "static int steps(long long n) { int s = 0; while (n != 1) { n = (n & 1) ? 3 * n + 1 : n / 2; s++; } return s; }\n"
HONEST = (
    "#include <stdio.h>\n" + STEPS + "int main(void) { long long n;\n"
    ' if (scanf("%lld", &n) != 1) return 1; printf("%d\\n", steps(n)); return 0; }\n'
)


def _steps(n: int) -> int:
    s = 0
    while n != 1:
        n = 3 * n + 1 if n & 1 else n // 2
        s += 1
    return s


# the answer a model specialised to the inputs it saw: a table of 1..1024, honest beyond
TABLE = (
    "#include <stdio.h>\nstatic const int T[1024] = {"
    + ",".join(str(_steps(i)) for i in range(1, 1025))
    + "};\n"
    + STEPS
    + "int main(void) { long long n;\n"
    ' if (scanf("%lld", &n) != 1) return 1;\n'
    ' if (n >= 1 && n <= 1024) printf("%d\\n", T[n - 1]); else printf("%d\\n", steps(n));\n'
    " return 0; }\n"
)
# a small table read at a loop counter: data, but not indexed by the input
WEIGHTS = (
    "#include <stdio.h>\nstatic const long W[64] = {"
    + ",".join(str(i * i) for i in range(64))
    + '};\nint main(void) { long long n, s = 0; if (scanf("%lld", &n) != 1) return 1;\n'
    ' for (long long i = 0; i < n; i++) s += W[i & 63] * i; printf("%lld\\n", s); return 0; }\n'
)
# a memo in .bss, filled and read at the input
MEMO = (
    "#include <stdio.h>\nstatic int memo[1 << 16];\n" + STEPS + "int main(void) { int n;\n"
    ' while (scanf("%d", &n) == 1) { if (n > 0 && n < (1 << 16)) { if (!memo[n]) memo[n] = steps(n);'
    ' printf("%d\\n", memo[n]); } else printf("%d\\n", steps(n)); } return 0; }\n'
)


@pytest.fixture(scope="module")
def listings() -> dict[str, str]:
    sandbox_or_skip()
    return {
        name: compile_to_asm(src)
        for name, src in {
            "honest": HONEST,
            "table": TABLE,
            "weights": WEIGHTS,
            "memo": MEMO,
        }.items()
    }


def test_analyze_names_a_table_indexed_by_the_input(listings) -> None:
    result = analyze(listings["honest"], listings["table"])
    assert "lookup_table" in result.kinds
    (table,) = result.tables
    assert table.name == "T" and table.size == 4096 and table.section == ".rodata"
    assert table.from_input and table.function == "main"
    (evidence,) = result.evidence("lookup_table")
    assert "4,096 bytes" in evidence and "derived from the input" in evidence
    assert result.data_bytes[1] - result.data_bytes[0] >= 4096
    assert result.to_json()["tables"][0]["from_input"] is True


def test_a_table_at_a_loop_counter_is_a_table_but_not_input_indexed(listings) -> None:
    result = analyze(listings["honest"], listings["weights"])
    tables = [t for t in result.tables if t.name == "W"]
    assert tables and tables[0].size == 512 and not tables[0].from_input
    assert "computed index" in result.evidence("lookup_table")[0]


def test_a_memo_in_bss_is_a_table_indexed_by_the_input(listings) -> None:
    result = analyze(listings["honest"], listings["memo"])
    (memo,) = [t for t in result.tables if t.name == "memo"]
    assert memo.section == ".bss" and memo.size == 4 << 16 and memo.from_input


def test_the_baseline_against_itself_adds_no_table(listings) -> None:
    result = analyze(listings["table"], listings["table"])
    assert "lookup_table" not in result.kinds and result.tables == ()


def test_a_verdict_says_the_answer_s_data_grew(tmp_path: Path) -> None:
    """The table answer is correct on every test and its verdict says it adds 4 KB of
    data; the honest one's verdict does not; ``check`` prints the line."""
    sandbox_or_skip()
    from supercoder.problems.loading import load_problem
    from supercoder.verify.evaluate import CheckConfig, evaluate

    folder = Path(tempfile.mkdtemp()) / "collatz"
    (folder / "tests").mkdir(parents=True)
    (folder / "source.c").write_text(HONEST)
    for n in (7, 27, 97, 871):
        (folder / "tests" / f"t{n}.in").write_text(f"{n}\n")
        (folder / "tests" / f"t{n}.out").write_text(f"{_steps(n)}\n")
    problem = load_problem(folder)
    config = CheckConfig(time=False)
    table = evaluate(problem, compile_to_asm(TABLE, ("-O3",)), config)
    assert table.correct and table.data is not None and table.data.grew
    assert table.data.added >= 4096
    assert table.to_json()["data"]["grew"] is True
    honest = evaluate(problem, compile_to_asm(HONEST, ("-O3", "-funroll-loops")), config)
    assert honest.correct and honest.data is not None and not honest.data.grew
    answer = tmp_path / "table.s"
    answer.write_text(compile_to_asm(TABLE, ("-O3",)))
    shown = subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "check", str(folder), str(answer), "--no-time"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert shown.returncode == 0, shown.stderr
    assert "data: the answer adds" in shown.stdout


def test_data_sections_read_from_the_elf(tmp_path: Path) -> None:
    sandbox_or_skip()
    from supercoder.toolchain.gcc import compile_c

    built = compile_c(MEMO, tmp_path / "memo")
    assert built.ok and built.binary is not None
    sections = data_sections(built.binary)
    assert sections.get(".bss", 0) >= 4 << 16
    assert data_sections(tmp_path) == {} and data_sections(Path(__file__)) == {}
