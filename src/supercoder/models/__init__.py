"""Models: one small protocol (``complete``) selected by a spec string.

Specs:

- ``compiler`` (the default): the built-in offline optimizer, no LLM
  (see :mod:`supercoder.models.compiler`);
- ``openai:MODEL``: any OpenAI-compatible chat server (OpenAI, vLLM, SGLang,
  llama.cpp, Ollama); honours ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``;
- ``anthropic:MODEL``: the Anthropic Messages API; honours ``ANTHROPIC_BASE_URL`` /
  ``ANTHROPIC_API_KEY``;
- ``hf:REPO_OR_PATH``: a local Hugging Face model (transformers; vLLM's offline
  engine when installed and a GPU is present).

Remote and local LLM models are wrapped in a SQLite response cache
(:mod:`supercoder.models.cache`) unless ``cache=False``. For tests elsewhere use
:class:`supercoder.models.scripted.ScriptedModel`.
"""

from __future__ import annotations

import os

from supercoder.errors import UserError
from supercoder.models.base import Completion, Model

DEFAULT_MODEL = "compiler"
PROVIDERS = ("compiler", "openai", "anthropic", "hf")


def load_model(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout: float = 300.0,
    cache: bool = True,
) -> Model:
    """A model from its spec string (``None`` or empty: the ``compiler`` default)."""
    spec = (spec or os.environ.get("SUPERCODER_MODEL") or DEFAULT_MODEL).strip()
    provider, _, target = spec.partition(":")
    if provider == "compiler":
        from supercoder.models.compiler import CompilerModel

        return CompilerModel(target or None)
    if provider not in PROVIDERS or not target:
        raise UserError(
            f"unknown model spec {spec!r}: use compiler, openai:MODEL, anthropic:MODEL "
            "or hf:REPO_OR_PATH"
        )
    model = _remote(provider, target, base_url, api_key, concurrency, timeout)
    if not cache:
        return model
    from supercoder.models.cache import CachedModel

    return CachedModel(model)


def _remote(provider, target, base_url, api_key, concurrency, timeout) -> Model:
    if provider == "openai":
        from supercoder.models.openai_api import OpenAIModel

        return OpenAIModel(
            target, base_url=base_url, api_key=api_key, concurrency=concurrency, timeout=timeout
        )
    if provider == "anthropic":
        from supercoder.models.anthropic_api import AnthropicModel

        return AnthropicModel(
            target, base_url=base_url, api_key=api_key, concurrency=concurrency, timeout=timeout
        )
    from supercoder.models.hf import HFModel

    return HFModel(target)


__all__ = ["DEFAULT_MODEL", "Completion", "Model", "load_model"]
