"""Models: one small protocol (``complete``) selected by a spec string.

Specs (the build search is no model: ``--strategy builds``, ``runs/buildsearch/``):

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

from supercoder.models.base import DEFAULT_SAMPLING, Completion, Model, ProviderConfig, Sampling
from supercoder.models.providers import ENTRY_POINT_GROUP, load_model, providers

__all__ = [
    "Completion",
    "DEFAULT_SAMPLING",
    "ENTRY_POINT_GROUP",
    "Model",
    "ProviderConfig",
    "Sampling",
    "load_model",
    "providers",
]
