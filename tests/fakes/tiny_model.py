"""Test material for the trainers: a tiny random Qwen2 model and tiny problems.

``build_tiny_model(DIR)`` writes a randomly initialised Qwen2 causal LM (a few thousand
parameters) with a byte-level BPE tokenizer trained on a few strings and a minimal chat
template, so the training pipelines can be exercised end to end without downloads
(``python -c "from tests.fakes.tiny_model import build_tiny_model as b; print(b('DIR'))"``
from a checkout, then ``supercoder train grpo --model DIR --steps 2``).

``tiny_problem(DIR)`` writes a problem whose ``-O3`` build is slow (a ``volatile``
accumulator gcc must keep in memory) and ``faster_asm()`` is a correct, much faster
program for it (the closed form, compiled with gcc -O3).
"""

from __future__ import annotations

from pathlib import Path

from supercoder.errors import require
from supercoder.problems.loading import load_problem
from supercoder.types import Problem

SLOW_SOURCE = r"""#include <stdio.h>
int main(void) {
    long n;
    if (scanf("%ld", &n) != 1) return 1;
    volatile long s = 0;
    for (long i = 0; i < n; i++) s += i % 7;
    printf("%ld\n", (long)s);
    return 0;
}
"""

FAST_SOURCE = r"""#include <stdio.h>
int main(void) {
    long n;
    if (scanf("%ld", &n) != 1) return 1;
    long q = n / 7, r = n % 7;
    printf("%ld\n", q * 21 + r * (r - 1) / 2);
    return 0;
}
"""

WRONG_SOURCE = FAST_SOURCE.replace("q * 21", "q * 20")

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
_CORPUS = [
    "int main(void) { long n; scanf printf return 0; }",
    "```assembly\nmain:\n\tmovq %rdi, %rax\n\taddq $1, %rax\n\tret\n```",
    "Here is a C program that reads standard input and writes standard output:",
    "Write a faster version of this program in x86-64 assembly for Linux.",
]
SPECIAL = ["<|pad|>", "<|end|>", "<|user|>", "<|assistant|>", "<|system|>"]


def expected_output(n: int) -> str:
    return f"{(n // 7) * 21 + (n % 7) * (n % 7 - 1) // 2}\n"


def tiny_problem(
    folder: str | Path, name: str = "tiny_sum", split: str = "train", big: int | None = None
) -> Problem:
    """Write the slow problem (tests n = 0, 1, 13, 1000, ``big``) and load it; ``big``
    defaults to a size whose -O3 run is timed on this machine (``sizing.sized``)."""
    import json

    from tests.fakes.sizing import sized

    big = big or sized(SLOW_SOURCE, start=1_000_000)

    root = Path(folder)
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "source.c").write_text(SLOW_SOURCE)
    (root / "problem.json").write_text(json.dumps({"name": name, "split": split}))
    for i, n in enumerate((0, 1, 13, 1000, big)):
        (root / "tests" / f"t{i}.in").write_text(f"{n}\n")
        (root / "tests" / f"t{i}.out").write_text(expected_output(n))
    return load_problem(root)


def faster_asm() -> str:
    from supercoder.toolchain.gcc import compile_to_asm

    return compile_to_asm(FAST_SOURCE)


def wrong_asm() -> str:
    from supercoder.toolchain.gcc import compile_to_asm

    return compile_to_asm(WRONG_SOURCE)


def build_tiny_model(folder: str | Path, hidden_size: int = 32, seed: int = 0) -> Path:
    """A tiny random Qwen2 model + tokenizer saved in ``folder`` (loadable by path)."""
    tokenizers = require("tokenizers", "train")
    transformers = require("transformers", "train")
    torch = require("torch", "train")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_CORPUS, trainer=trainer)
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<|pad|>", eos_token="<|end|>"
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)
    torch.manual_seed(seed)
    config = transformers.Qwen2Config(
        vocab_size=len(fast),
        hidden_size=hidden_size,
        intermediate_size=hidden_size * 2,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=8192,
        pad_token_id=fast.pad_token_id,
        eos_token_id=fast.eos_token_id,
        bos_token_id=fast.eos_token_id,
        tie_word_embeddings=True,
    )
    model = transformers.Qwen2ForCausalLM(config)
    model.generation_config.pad_token_id = fast.pad_token_id
    model.generation_config.eos_token_id = fast.eos_token_id
    model.save_pretrained(out)
    return out


def tiny_grpo_config(folder: Path, **overrides):
    """The ``GrpoConfig`` of a two-step GRPO run on the tiny model built in ``folder``
    (two generations a prompt, eight tokens each, no evaluation split), with
    ``overrides`` on top."""
    from supercoder.training.grpo import GrpoConfig

    settings = dict(
        model=str(build_tiny_model(folder / "model")),
        output=folder / "out",
        steps=2,
        num_generations=2,
        max_completion_length=8,
        lr=1e-3,
        save_steps=2,
        eval_split=None,
    )
    return GrpoConfig(**(settings | overrides))
