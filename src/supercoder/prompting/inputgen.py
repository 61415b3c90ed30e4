"""A generator and a validator of a problem's inputs, written by an LLM, kept only when
they hold up (``problem init --llm-generator --model SPEC``).

Contest judges pair a generator with a validator; CodeContests+ and HardTests showed
that an LLM given the solution's code and a few inputs writes useful ones. The model
is asked once (``messages``: the prompt below, in our words) for two Python files:

- ``gen.py``: ``generate(seed: int, size: int) -> str`` returning one input,
  deterministic in ``seed``, and ``SIZES = [smallest, ..., largest]`` spanning the
  whole domain the program accepts, up to its largest valid inputs;
- ``validate.py``: reads one input on stdin and exits 0 when it is valid (testlib's
  contract, ``problems/validator.py``), checking every bound and structural promise the
  program relies on.

For a program whose tests take command-line arguments, each input is shown as its
command line apart from its stdin (never the internal form they travel in), and the
prompt asks for ``(args, stdin)`` pairs and a validator that reads ``sys.argv[1:]``.

``write_pair`` keeps them (as ``llm_gen.py`` and ``llm_validate.py`` in the problem
folder, ``problem.json`` ``"llm_generator": SPEC``) only when all of these hold, each
run in the build sandbox like a folder's own files: every input of the problem passes
the validator; the generator runs and draws ``PROBE_DRAWS`` inputs over its sizes
(smallest to largest); every draw passes the validator, and the problem's own
(``validate.py``) where it has one; the reference (the problem's
``-O3`` build) runs cleanly on every draw within ``DRAW_SECONDS`` each. Otherwise they
are dropped and ``PairReport.why`` says which test failed. Checks draw from a kept
pair right after the problem's own generator (``verify/unseen.py``), and the kept
validator judges every drawn input, from any source.

The model is given as a callable (messages -> reply text), so this module needs no
model client (``models/`` sits below ``prompting/``): the command wraps the one the
user named.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import InfraError, UserError
from supercoder.paths import atomic_write_text
from supercoder.problems.generator import generator_sizes, run_generator
from supercoder.problems.loading import generator_source, load_problem
from supercoder.problems.validator import LLM_FILE, LLM_GENERATOR, run_validator, valid_inputs
from supercoder.toolchain.reference import ReferenceBuildError, run_reference
from supercoder.types import split_args

PROBE_DRAWS = 4  # generator draws the reference must run cleanly on
DRAW_SECONDS = 5.0  # CPU seconds the reference may take on one draw (as checks allow)
SHOWN_INPUTS = 4  # visible inputs quoted in the prompt
SHOWN_BYTES = 1500  # of each

SYSTEM = (
    "You write test-data tools for competitive programming judges: an input generator "
    "and an input validator, in Python 3 (standard library only)."
)

PROMPT = """Below is a C program that reads its input on stdin, and some of its inputs.
Write two Python files for it.

1. gen.py: `generate(seed: int, size: int) -> str` returns ONE valid input as text,
   deterministic in `seed` (use `random.Random(seed)`; no I/O, no other state), whose
   size grows with `size`; and `SIZES = [...]`, a list of sizes from the smallest
   valid input to the LARGEST ones the program is meant to handle (infer the limits
   from its code: array bounds, loop ranges, value types; do not stop at the sizes of
   the inputs shown). Cover the whole domain: every value range and structure the
   program accepts, not only what the examples show.
2. validate.py: reads ONE input on stdin and exits with status 0 if it is valid, else
   fails (`assert` or `sys.exit("reason")`). Check the exact format (tokens, line
   breaks), every bound, and every structural promise the program relies on (lengths
   match counts, indices within range, lists sorted, graphs connected...). It must
   accept every input shown below and every input gen.py makes.

Answer with exactly two fenced blocks, in this order, each starting with its file name
as a comment:

```python
# gen.py
...
```

```python
# validate.py
...
```

The program:

```c
{source}
```

Inputs it is given:

{inputs}
"""

_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class PairReport:
    """What became of the model's generator and validator: ``kept``, and ``why``
    (what was checked, or why they were dropped)."""

    kept: bool
    why: str
    model: str = ""

    def line(self) -> str:
        """One line for ``problem init``."""
        if self.kept:
            return f"the generator and validator {self.model} wrote are kept: {self.why}"
        return f"the generator and validator {self.model} wrote were dropped: {self.why}"


ARGS_NOTE = """
This program also takes command-line arguments: each input below shows its command
line (`./program ARGUMENTS`; argv[0] is always `./program`) apart from what it reads on
stdin. So gen.py's `generate` returns a pair `(args, stdin)`: a list of argument
strings (without argv[0]) and the stdin text; and validate.py gets the arguments as
its own, `sys.argv[1:]`, with the stdin text alone on its stdin: check them there.
"""


def messages(source: str, inputs: list[bytes]) -> list[dict[str, str]]:
    """The chat messages asking for the pair (``PROMPT``). ``inputs`` are run inputs
    (``TestCase.run_input``): a test's arguments are shown as its command line, apart
    from its stdin (``types.split_args``), and the prompt then asks for them."""
    shown, any_args = [], False
    for i, run_input in enumerate(inputs[:SHOWN_INPUTS], 1):
        args, data = split_args(run_input)
        text = data[:SHOWN_BYTES].decode("utf-8", "replace")
        more = f"\n... ({len(data) - SHOWN_BYTES} more bytes)" if len(data) > SHOWN_BYTES else ""
        line = ""
        if args:
            any_args = True
            line = f"Command line: `{shlex.join(('./program', *args))}`\nStdin:\n"
        shown.append(f"Input {i}:\n{line}```\n{text}{more}\n```")
    any_args = any_args or any(split_args(d)[0] for d in inputs)
    body = PROMPT.replace("{source}", source.strip()).replace("{inputs}", "\n\n".join(shown))
    if any_args:
        body += ARGS_NOTE
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": body}]


def extract_pair(reply: str) -> tuple[str, str] | None:
    """(gen.py, validate.py) from a reply: blocks named by their first-line comment, else
    the one defining ``generate`` and the other; None without both."""
    blocks = [b.strip() + "\n" for b in _BLOCK.findall(reply) if b.strip()]
    named: dict[str, str] = {}
    for block in blocks:
        first = block.splitlines()[0].strip().lstrip("#").strip().lower()
        if first in ("gen.py", "validate.py"):
            named.setdefault(first, block)
    gen = named.get("gen.py") or next((b for b in blocks if "def generate" in b), None)
    val = named.get("validate.py") or next(
        (b for b in blocks if b is not gen and "def generate" not in b), None
    )
    if gen is None or val is None:
        return None
    return gen, val


def write_pair(
    folder: Path, complete: Callable[[list[dict[str, str]]], str], model: str
) -> PairReport:
    """Ask the model (``complete``: messages -> reply) for a generator and a validator of
    the problem in ``folder``, check them (module docstring), and keep them there or say
    why not. A problem with its own generator (``gen.py``) is not asked for one."""
    problem = load_problem(folder)
    if generator_source(problem.settings) is not None:
        return PairReport(False, "the problem has its own generator (gen.py)", model)
    inputs = [t.run_input() for t in problem.tests]  # arguments included (split_args)
    visible = [t.run_input() for t in problem.tests if not t.hidden]
    try:
        reply = complete(messages(problem.source, visible or inputs))
    except (UserError, InfraError) as e:
        return PairReport(False, f"the model could not be asked ({e})", model)
    pair = extract_pair(reply)
    if pair is None:
        return PairReport(
            False, "the reply holds no generator and validator (two ```python blocks)", model
        )
    gen, val = pair
    why = _judge(problem, gen, val, [(t.name, t.run_input()) for t in problem.tests])
    if why is not None:
        return PairReport(False, why, model)

    atomic_write_text(folder / LLM_GENERATOR, gen)
    atomic_write_text(folder / LLM_FILE, val)
    meta_path = folder / "problem.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    meta["llm_generator"] = model
    atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    return PairReport(
        True,
        f"every input of the problem ({len(inputs)}) passes the validator "
        f"({LLM_FILE}), and the reference runs cleanly on {PROBE_DRAWS} of the "
        f"generator's draws ({LLM_GENERATOR}), from its smallest size to its largest",
        model,
    )


def _judge(problem, gen: str, val: str, named: list[tuple[str, bytes]]) -> str | None:
    """Why the pair is not kept (None: it is)."""
    try:
        judged = run_validator(val, [data for _, data in named], label="the validator")
    except UserError as e:
        return str(e)
    for (name, _), j in zip(named, judged, strict=True):
        if not j.valid:
            return f"its validator rejects the problem's input {name} ({j.why})"
    try:
        sizes = sorted(set(generator_sizes(gen))) or [1, 10, 100, 1000]
        picks = [sizes[round(k * (len(sizes) - 1) / (PROBE_DRAWS - 1))] for k in range(PROBE_DRAWS)]
        draws = run_generator(
            gen, [(1000 + k, n) for k, n in enumerate(picks)], label="its generator"
        )
    except UserError as e:
        return str(e)
    try:
        judged = run_validator(val, draws, label="the validator")
    except UserError as e:
        return str(e)
    bad = [(n, j) for n, j in zip(picks, judged, strict=True) if not j.valid]
    if bad:
        return (
            f"its validator rejects {len(bad)} of {len(draws)} of its generator's draws "
            f"(size {bad[0][0]}: {bad[0][1].why})"
        )

    kept = valid_inputs(problem, draws)  # the problem's own validator (validate.py), if any
    if len(kept) < len(draws):
        return (
            f"the problem's validator (validate.py) rejects {len(draws) - len(kept)} of "
            f"{len(draws)} of its generator's draws"
        )
    try:
        results = run_reference(
            problem.source,
            draws,
            runs={"O3": 1},
            cflags=problem.compile_flags,
            ldflags=problem.ldflags,
            timeout=DRAW_SECONDS,
            stop_at_failure=False,
            exit_code=problem.exit_code,
            units=problem.units,  # a multi-file program's other translation units
        )
    except (ReferenceBuildError, UserError, InfraError) as e:
        return f"the reference could not be run on its draws ({e})"
    failed = [(n, r) for n, r in zip(picks, results, strict=True) if not r.ok]
    if failed:
        size, r = failed[0]
        return (
            f"the reference misbehaved on {len(failed)} of {len(draws)} of its generator's "
            f"draws (size {size}: {r.failure}, within {DRAW_SECONDS:g} CPU s)"
        )
    return None
