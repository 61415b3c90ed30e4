"""An LLM-written generator and validator (``problem init --llm-generator --model``):
asked once, through a real OpenAI-compatible HTTP server on loopback with a scripted
model behind it; kept only when they hold up, else init says why they were dropped."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from supercoder.models.providers import load_model
from supercoder.problems.loading import load_problem
from supercoder.prompting.inputgen import extract_pair, write_pair
from tests.conftest import SUM_SOURCE, sandbox_or_skip
from tests.fakes.servers import openai_server

GEN = """# gen.py
import random
SIZES = [1, 10, 100, 1000]
def generate(seed, size):
    r = random.Random(seed)
    return f"{size}\\n" + " ".join(str(r.randint(-9, 9)) for _ in range(size)) + "\\n"
"""
VALIDATE = """# validate.py
import sys
data = sys.stdin.read().split()
n = int(data[0])
assert 1 <= n <= 1000, f"n = {n} out of range"
assert len(data) == n + 1, "expected n numbers"
"""
STRICT = VALIDATE.replace("1 <= n <= 1000", "1 <= n <= 4")  # rejects the 5-number input


def reply(gen: str, val: str) -> str:
    return f"Here they are.\n\n```python\n{gen}```\n\n```python\n{val}```\n"


def _inputs(base: Path, source: str = SUM_SOURCE) -> Path:
    (base / "in").mkdir(parents=True)
    (base / "in" / "a.in").write_text("3\n1 2 3\n")
    (base / "in" / "b.in").write_text("5\n1 2 3 4 5\n")
    (base / "sum.c").write_text(source)
    return base


def _init(base: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "supercoder.cli", "problem", "init", str(base / "sum.c")]
        + ["--inputs", str(base / "in"), "-o", str(base / "p"), *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_pair_that_holds_up_is_kept_and_timed_inputs_come_from_it() -> None:
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()))
    with openai_server(lambda messages, request: reply(GEN, VALIDATE)) as url:
        run = _init(base, "--llm-generator", "--model", "openai:writer", "--base-url", url)
        (request,) = url.requests
    assert run.returncode == 0, run.stderr
    prompt = request["messages"][-1]["content"]
    assert "scanf" in prompt and "5\n1 2 3 4 5" in prompt  # the source and the inputs
    folder = base / "p"
    assert (folder / "llm_gen.py").read_text().startswith("# gen.py")
    assert (folder / "llm_validate.py").read_text().startswith("# validate.py")
    assert json.loads((folder / "problem.json").read_text())["llm_generator"] == "openai:writer"
    assert "openai:writer wrote are kept" in run.stdout
    assert "from the generator the model wrote" in run.stdout
    from supercoder.verify.unseen import draw_tests

    tests, source, _ = draw_tests(load_problem(folder), 3, seed=5)
    assert source == "llm-generator" and len(tests) == 3
    assert all(500 <= int(data.split()[0]) <= 1000 for _, data, _ in tests)  # its upper half


def test_a_validator_that_rejects_a_given_input_drops_the_pair() -> None:
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()))
    with openai_server(lambda messages, request: reply(GEN, STRICT)) as url:
        run = _init(base, "--llm-generator", "--model", "openai:writer", "--base-url", url)
    assert run.returncode == 0, run.stderr  # the problem is made; the pair is not kept
    assert "were dropped: its validator rejects the problem's input b" in run.stdout
    assert "n = 5 out of range" in run.stdout
    assert not (base / "p" / "llm_gen.py").exists()
    assert "llm_generator" not in json.loads((base / "p" / "problem.json").read_text())
    assert "input model" in run.stdout  # the inferred model is the source


# a program whose array holds 1000 numbers: a generator drawing more makes it crash
BOUNDED = r"""
#include <stdio.h>
int a[1000];
int main(void) {
    int n; long long s = 0;
    if (scanf("%d", &n) != 1) return 1;
    for (int i = 0; i < n; i++) { if (scanf("%d", &a[i]) != 1) return 1; }
    for (int i = 0; i < n; i++) s += a[i] * (long long)(i + 1);
    printf("%lld\n", s);
    return 0;
}
"""


def test_a_generator_whose_draws_crash_the_reference_drops_the_pair() -> None:
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()), BOUNDED)
    from supercoder.problems.init import InitConfig, create_problem

    create_problem(base / "sum.c", base / "in", base / "p", InitConfig())
    big = GEN.replace("[1, 10, 100, 1000]", "[1, 1000, 100000, 2000000]")
    loose = VALIDATE.replace("n <= 1000", "n <= 2000000")
    with openai_server(lambda messages, request: reply(big, loose)) as url:
        client = load_model("openai:writer", base_url=url, cache=False)
        report = write_pair(base / "p", lambda m: client.complete(m)[0].text, "openai:writer")
    assert not report.kept
    assert "the reference misbehaved on" in report.why and "size 100000" in report.why
    assert not (base / "p" / "llm_gen.py").exists()


def test_replies_without_a_pair_and_models_that_write_no_code() -> None:
    assert extract_pair("no code here") is None
    assert extract_pair(reply(GEN, VALIDATE)) == (GEN, VALIDATE)
    unnamed = reply(GEN.replace("# gen.py\n", ""), VALIDATE.replace("# validate.py\n", ""))
    gen, val = extract_pair(unnamed) or ("", "")
    assert "def generate" in gen and "def generate" not in val
    base = Path(tempfile.mkdtemp())
    (base / "sum.c").write_text(SUM_SOURCE)
    for args, says in (
        (["--llm-generator", "--model", "compiler"], "the build search writes no code"),
        (["--llm-generator"], "--llm-generator needs --model"),
        (["--model", "openai:x"], "--model is used with --llm-generator only"),
    ):
        run = subprocess.run(
            [sys.executable, "-m", "supercoder.cli", "problem", "init", str(base / "sum.c")]
            + ["-o", str(base / "p"), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 2 and says in run.stderr, run.stderr
        assert len(run.stderr.strip().splitlines()) == 1


def test_draws_the_problem_s_own_validator_rejects_drop_the_pair() -> None:
    """The user's validate.py (n <= 50) outranks the model's: a generator drawing up to
    1000 numbers is dropped, naming the problem's validator."""
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()))
    own = base / "v.py"
    own.write_text(VALIDATE.replace("1 <= n <= 1000", "1 <= n <= 50"))
    from supercoder.problems.init import InitConfig, create_problem

    create_problem(base / "sum.c", base / "in", base / "p", InitConfig(validator=own))
    with openai_server(lambda messages, request: reply(GEN, VALIDATE)) as url:
        client = load_model("openai:writer", base_url=url, cache=False)
        report = write_pair(base / "p", lambda m: client.complete(m)[0].text, "openai:writer")
    assert not report.kept
    assert "the problem's validator (validate.py) rejects 2 of 4" in report.why


def test_an_existing_problem_gets_a_pair_with_problem_llm_generator() -> None:
    sandbox_or_skip()
    base = _inputs(Path(tempfile.mkdtemp()))
    from supercoder.problems.init import InitConfig, create_problem

    create_problem(base / "sum.c", base / "in", base / "p", InitConfig())

    def cli(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "supercoder.cli", "problem", "llm-generator", str(base / "p")]
            + ["--model", "openai:writer", "--base-url", url, *extra],
            capture_output=True,
            text=True,
            timeout=300,
        )

    with openai_server(lambda messages, request: reply(GEN, VALIDATE)) as url:
        first = cli()
        again = cli()
    assert first.returncode == 0 and "are kept" in first.stdout, first.stderr
    assert (base / "p" / "llm_gen.py").is_file()
    assert again.returncode == 2 and "--force replaces it" in again.stderr
