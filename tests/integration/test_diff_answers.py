"""End to end: a scripted model that answers ONLY with SEARCH/REPLACE blocks built from the
assembly shown in its prompt, through a real OpenAI-compatible server on loopback, the
real profiler (valgrind in the sandbox), the real evaluator; --context hot and full."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from typer.testing import CliRunner

from supercoder.cli import app
from supercoder.prompting.prompts import fenced_blocks
from supercoder.toolchain.gcc import compile_to_asm
from tests.conftest import sandbox_or_skip
from tests.fakes.servers import openai_server
from tests.fakes.sizing import sized

runner = CliRunner()

# Two problems whose hot function has a known much faster equivalent (O(n) or
# O(n log n) -> O(sqrt n)): the sum of floor(n/i), and the pairs (i, j) with i*j <= n.
SLOW = {
    "harmonic": r"""
long harmonic(long n) { long s = 0; for (long i = 1; i <= n; i++) s += n / i; return s; }
""",
    "pairs": r"""
long pairs(long n) {
    long s = 0;
    for (long i = 1; i <= n; i++) for (long j = 1; i * j <= n; j++) s++;
    return s;
}
""",
}
FAST_BODY = r"""
(long n) { long s = 0; for (long i = 1; i <= n;) { long q = n / i, j = n / q;
  s += q * (j - i + 1); i = j + 1; } return s; }
"""
MAIN = r"""
#include <stdio.h>
__attribute__((noinline)) %s
int main(void) {
    long n;
    while (scanf("%%ld", &n) == 1) printf("%%ld\n", %s(n));
    return 0;
}
"""


def truth(n: int) -> int:
    s, i = 0, 1
    while i <= n:
        q = n // i
        j = n // q
        s, i = s + q * (j - i + 1), j + 1
    return s


def make_problem(root: Path, name: str) -> Path:
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "hidden").mkdir()
    (folder / "source.c").write_text(MAIN % (SLOW[name].strip(), name))
    big = sized(MAIN % (SLOW[name].strip(), name), start=1_000_000)  # timed on this machine
    cases = {"tests": [[1, 2, 10], [1000], [99991, 250000]], "hidden": [[big, 7]]}
    for sub, groups in cases.items():
        for k, ns in enumerate(groups):
            (folder / sub / f"t{k}.in").write_text("".join(f"{n}\n" for n in ns))
            (folder / sub / f"t{k}.out").write_text("".join(f"{truth(n)}\n" for n in ns))
    return folder


@cache
def fast_function(name: str) -> list[str]:
    """The faster function's lines (label to last line before .size), labels renamed."""
    asm = compile_to_asm(MAIN % (f"long {name}{FAST_BODY}", name))
    lines = function_lines(asm.splitlines(), name)
    return [re.sub(r"\.L(\w+)", r".Lfast\1", ln) for ln in lines]


def function_lines(lines: list[str], name: str) -> list[str]:
    start = lines.index(f"{name}:")
    end = next(k for k in range(start, len(lines)) if lines[k].strip().startswith(".size"))
    return lines[start:end]


def diff_model(messages, request) -> str:
    """Reads the C and the assembly in the first prompt; answers with one edit block that
    replaces the hot function, copying its lines exactly as shown (annotations too)."""
    prompt = messages[0]["content"]
    name = next(n for n in SLOW if f"long {n}(long n)" in prompt)
    shown = next(b.body for b in fenced_blocks(prompt) if b.lang == "assembly")
    search = function_lines(shown.splitlines(), name)
    return "\n".join(
        [
            "I will replace the hot loop.",
            "<<<<<<< SEARCH",
            *search,
            "=======",
            *fast_function(name),
            ">>>>>>> REPLACE",
        ]
    )


def test_a_diff_only_model_is_correct_and_fast_with_hot_and_full_context(tmp_path):
    sandbox_or_skip()
    bench = tmp_path / "bench"
    for name in SLOW:
        make_problem(bench, name)
    db = tmp_path / "runs.sqlite"
    for context in ("hot", "full"):
        out = tmp_path / f"{context}.json"
        with openai_server(diff_model) as url:
            result = runner.invoke(
                app,
                [
                    "eval",
                    "--model",
                    "openai:m",
                    "--base-url",
                    url,
                    "--benchmark",
                    str(bench),
                    "--db",
                    str(db),
                    "--json",
                    str(out),
                    "--run",
                    context,
                    "--context",
                    context,
                    "--answer",
                    "diff",
                ],
            )
            assert result.exit_code == 0, result.output
            prompts = [r["messages"][-1]["content"] for r in url.requests]
        s = json.loads(out.read_text())
        assert (s["problems"], s["accuracy"], s["compilation_rate"]) == (2, 100.0, 100.0), (
            result.output
        )
        for name in SLOW:
            assert s["per_problem"][name]["speedup"] > 3.0, (context, s["per_problem"])
        assert all("<<<<<<< SEARCH" in p and "=======" in p for p in prompts)
        if context == "hot":  # annotated hot lines, main elided, no unwind directives
            assert all(re.search(r"# \d+\.\d%", p) for p in prompts)
            assert all("supercoder: body of main elided" in p for p in prompts)
            assert not any(".cfi_startproc" in p for p in prompts)
        else:
            assert all(".cfi_startproc" in p and "%\n" not in p for p in prompts)
    sft_targets_are_diffs(bench, db)


def sft_targets_are_diffs(bench: Path, db: Path) -> None:
    """``train sft --from-run --answer diff``: each target is edit blocks that rebuild the
    stored (whole) answer from the baseline, under the prompt the model would see."""
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.prompting.answers import resolve_answer
    from supercoder.runs.store import Store
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.toolchain.gcc import same_program
    from supercoder.training.sft import sft_examples

    problems = load_benchmark(str(bench))
    rows = sft_examples("hot", problems, db, context="hot", answer="diff")
    store = Store(db)
    best = {o.problem: o.best.candidate.asm for o in store.outcomes("hot")}
    store.close()
    assert len(rows) == 2
    for problem, row in zip(problems, rows, strict=True):
        target = row["completion"][0]["content"]
        assert target.startswith("<<<<<<< SEARCH") and "```" not in target
        assert "supercoder: body of main elided" in row["prompt"][-1]["content"]
        rebuilt = resolve_answer(target, baseline_asm(problem))
        assert rebuilt.kind == "diff" and same_program(rebuilt.asm, best[problem.name])


def test_a_failed_block_is_quoted_in_refinement_and_the_stored_program_is_whole(tmp_path):
    sandbox_or_skip()
    problem = make_problem(tmp_path, "harmonic")
    bad = "<<<<<<< SEARCH\n\tmovq\t$42, %rax\n=======\n\tnop\n>>>>>>> REPLACE"

    def respond(messages, request):
        return bad if len(messages) == 1 else diff_model(messages, request)

    best = tmp_path / "best.s"
    with openai_server(respond) as url:
        result = runner.invoke(
            app,
            [
                "optimize",
                str(problem),
                "--model",
                "openai:m",
                "--base-url",
                url,
                "--rounds",
                "2",
                "--context",
                "hot",
                "--answer",
                "diff",
                "--no-time",
                "-o",
                str(best),
                "--json",
            ],
        )
        assert result.exit_code == 0, result.output
        feedback = url.requests[1]["messages"][-1]["content"]
    assert "could not be applied" in feedback and "movq\t$42, %rax" in feedback
    out = json.loads(result.output)
    statuses = [a["verdict"]["status"] for a in out["attempts"]]
    assert statuses == ["compile_error", "ok"]
    assert "block 1 of 1" in out["attempts"][0]["verdict"]["message"]
    program = best.read_text()  # the elided main is back, the hot function replaced
    assert "call\t__isoc99_scanf@PLT" in program and ".Lfast" in program


def test_rewards_score_diff_answers(tmp_path):
    sandbox_or_skip()
    from supercoder.problems.loading import load_problem
    from supercoder.prompting.prompts import build_messages
    from supercoder.toolchain.baseline import baseline_asm
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.reward import RewardConfig, verify_batch

    problem = load_problem(make_problem(tmp_path, "pairs"))
    messages = build_messages(problem, baseline_asm=baseline_asm(problem), answer="diff")
    answer = diff_model(messages, {})
    config = RewardConfig(eval_config=CheckConfig(time=False))
    broken = answer.replace("<<<<<<< SEARCH\n", "<<<<<<< SEARCH\n\tud2\n")
    good, bad = verify_batch([problem, problem], [answer, broken], config)
    assert good.correct and bad.status.value == "compile_error" and "block 1" in bad.message


def test_model_shaped_diffs_apply_in_full_and_hot_context(tmp_path):
    """Blocks copied from what the prompt shows (cfi/file lines in full context, %
    annotations and elided bodies in hot context) apply: 100% in both."""
    from supercoder.dataset.benchmarks import load_benchmark
    from supercoder.prompting.prompts import build_messages
    from supercoder.toolchain.baseline import baseline_asm
    from tests.conftest import sandbox_or_skip
    from tests.fakes.diff_model import apply_rate, model_shaped_diff, shown_listing

    sandbox_or_skip()  # the hot view profiles the baseline in the sandbox
    problems = load_benchmark("val")[:3]
    saw_ignorable_only = False
    for context in ("full", "hot"):
        for p in problems:
            shown = shown_listing(build_messages(p, context=context, answer="diff")[-1]["content"])
            rate, errors = apply_rate(shown, baseline_asm(p), range(8))
            assert rate == 100.0, (context, p.name, errors)
            if context == "full":
                answer = model_shaped_diff(shown, 0)
                saw_ignorable_only |= "SEARCH\n\t.cfi_" in answer or "SEARCH\n\t.file" in answer
    assert saw_ignorable_only  # the case that used to be refused was exercised
