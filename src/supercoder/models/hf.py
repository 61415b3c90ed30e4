"""``hf:REPO_OR_PATH``: a local Hugging Face causal LM.

vLLM's offline engine is used when ``vllm`` is importable and a CUDA GPU is present
(``SUPERCODER_HF_ENGINE=transformers`` or ``=vllm`` forces one); else transformers'
``generate``. The tokenizer's chat template formats the messages when it has one;
otherwise the turns are joined as ``role: content`` lines. With transformers, sample
``i`` is generated under ``torch.manual_seed(seed + i)``, so it is reproducible and the
response cache can ask for missing samples alone. Generation is serialised per model.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import TYPE_CHECKING, Any

from supercoder.errors import UserError, require
from supercoder.models.base import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling

if TYPE_CHECKING:
    from supercoder.types import Problem


class HFModel:
    def __init__(self, path: str, *, engine: str | None = None) -> None:
        self.name = f"hf:{path}"
        self.cache_identity = self.name
        self.path = path
        choice = engine or os.environ.get("SUPERCODER_HF_ENGINE") or _default_engine()
        if choice not in ("vllm", "transformers"):
            raise UserError(f"SUPERCODER_HF_ENGINE must be vllm or transformers, not {choice!r}")
        self.engine = choice
        self._backend = VLLMBackend(path) if choice == "vllm" else TransformersBackend(path)
        self._lock = threading.Lock()

    @classmethod
    def from_spec(cls, target: str, settings: ProviderConfig) -> HFModel:
        """The provider entry point: ``hf:REPO_OR_PATH`` (no network settings apply)."""
        return cls(target)

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        if sampling.n <= 0:
            return []
        with self._lock:
            samples = self._backend.generate(messages, sampling)
        return [
            Completion(
                text=text,
                model=self.name,
                prompt_tokens=prompt if i == 0 else 0,
                completion_tokens=output,
                finish_reason=reason,
            )
            for i, (text, prompt, output, reason) in enumerate(samples)
        ]


Sample = tuple[str, int, int, str]  # text, prompt tokens, completion tokens, finish reason


def _default_engine() -> str:
    if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("torch") is None:
        return "transformers"
    import torch

    return "vllm" if torch.cuda.is_available() else "transformers"


def render_prompt(tokenizer: Any, messages: list[dict[str, str]]) -> str:
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    turns = [f"{m['role']}: {m['content']}" for m in messages]
    return "\n".join([*turns, "assistant: "])


class TransformersBackend:
    def __init__(self, path: str) -> None:
        self.torch = require("torch", "hf")
        transformers = require("transformers", "hf")
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(path)
            model = transformers.AutoModelForCausalLM.from_pretrained(path)
        except OSError as e:
            raise UserError(f"hf:{path}: cannot load the model or tokenizer ({e})") from e
        self.device = "cuda" if self.torch.cuda.is_available() else "cpu"
        self.model = model.to(self.device).eval()

    def generate(self, messages: list[dict[str, str]], sampling: Sampling) -> list[Sample]:
        temperature, max_tokens = sampling.temperature, sampling.max_tokens
        text = render_prompt(self.tokenizer, messages)
        enc = self.tokenizer(text, return_tensors="pt", add_special_tokens=False).to(self.device)
        prompt_len = int(enc["input_ids"].shape[1])
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        options: dict[str, Any] = {"do_sample": temperature > 0}
        if temperature > 0:
            options["temperature"] = temperature
        out = []
        for i in range(sampling.n):
            self.torch.manual_seed(sampling.seed + i)
            with self.torch.no_grad():
                ids = self.model.generate(
                    **enc,
                    max_new_tokens=max_tokens,
                    pad_token_id=pad,
                    **options,
                )
            new = ids[0, prompt_len:]
            reply = self.tokenizer.decode(new, skip_special_tokens=True)
            reason = "length" if len(new) >= max_tokens else "stop"
            out.append((reply, prompt_len, int(len(new)), reason))
        return out


class VLLMBackend:
    def __init__(self, path: str) -> None:
        if importlib.util.find_spec("vllm") is None:
            raise UserError("SUPERCODER_HF_ENGINE=vllm needs vLLM: pip install vllm (and a GPU)")
        import vllm

        self.vllm = vllm
        self.llm = self.vllm.LLM(model=path)

    def generate(self, messages: list[dict[str, str]], sampling: Sampling) -> list[Sample]:
        params = self.vllm.SamplingParams(
            n=sampling.n,
            temperature=sampling.temperature,
            max_tokens=sampling.max_tokens,
            seed=sampling.seed,
        )
        [result] = self.llm.chat([messages], params, use_tqdm=False)
        prompt = len(result.prompt_token_ids or [])
        return [
            (o.text, prompt, len(o.token_ids), o.finish_reason or "stop") for o in result.outputs
        ]
