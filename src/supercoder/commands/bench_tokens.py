"""`supercoder bench tokens`: prompt and answer tokens per problem."""

from __future__ import annotations

import json
from typing import Annotated

from rich.console import Console
from rich.table import Table

from supercoder.commands.options import (
    BENCHMARK,
    MODEL,
    TOKENIZER,
    JsonFile,
    PromptOptions,
)
from supercoder.commands.optionset import but, with_groups
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.paths import atomic_write_text
from supercoder.prompting.answers import check_modes
from supercoder.prompting.tokens import model_tokenizer, problem_tokens, token_counter


@with_groups(prompt=PromptOptions)
def tokens(
    benchmark: Annotated[str, BENCHMARK] = "all",
    tokenizer: Annotated[
        str | None, but(TOKENIZER, show_default="the --model's, else qwen2.5")
    ] = None,
    model: Annotated[str | None, MODEL] = None,
    json_out: JsonFile = None,
    *,
    prompt: PromptOptions,
) -> None:
    """Prompt tokens and answer tokens per problem: the whole -O3 program as an answer next
    to a diff rewriting the hottest loop (its lines once as SEARCH, once as REPLACE).

    --context hot profiles each problem first (cached; see `supercoder problem profile`).

    Example: supercoder bench tokens --benchmark val --context hot --answer diff
    """
    context, answer = prompt.context, prompt.answer
    check_modes(context, answer)
    count = token_counter(tokenizer or model_tokenizer(model))
    rows = [problem_tokens(p, count, context, answer) for p in load_benchmark(benchmark)]
    table = Table(
        "problem",
        "asm lines",
        "prompt",
        "answer: whole",
        "answer: diff",
        title=f"tokens ({context} context, {answer} answers)",
    )
    for r in rows:
        table.add_row(r.problem, str(r.program_lines), str(r.prompt), str(r.whole), str(r.diff))
    totals = [sum(getattr(r, k) for r in rows) for k in ("prompt", "whole", "diff")]
    table.add_row("total", "", *map(str, totals))
    Console(width=max(110, Console().width)).print(table)
    if json_out:
        atomic_write_text(json_out, json.dumps([r.__dict__ for r in rows], indent=2) + "\n")
