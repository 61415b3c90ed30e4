"""Provider lookup: ``load_model(spec)`` builds a model from ``NAME:TARGET`` through the
``supercoder.providers`` entry points (``supercoder.plugins``: the built-in providers are
declared in pyproject.toml like any plugin's);
remote and local LLMs are wrapped in the response cache."""

from __future__ import annotations

import os
from typing import Any

from supercoder.errors import UserError
from supercoder.models.base import (
    DEFAULT_SAMPLING,
    Completion,
    Model,
    Provider,
    ProviderConfig,
    Sampling,
)
from supercoder.plugins import PROVIDERS, load, registered

ENTRY_POINT_GROUP = PROVIDERS


def providers() -> dict[str, str]:
    """provider name -> "module:Class", built-ins first, then installed plugins."""
    return registered(PROVIDERS)


def _provider_class(name: str, target: str) -> Any:
    return load(providers()[name], f"model provider {name!r}")


def load_model(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout: float = 300.0,
    cache: bool = True,
) -> Model:
    """A model from its spec ``PROVIDER:TARGET`` (``None`` or empty: ``$SUPERCODER_MODEL``).

    The provider class is looked up in the ``supercoder.providers`` entry-point group
    and built with ``Class.from_spec(target, ProviderConfig(...))``. Every model is
    wrapped in the SQLite response cache unless ``cache=False``. (The build search is no
    model: it is a strategy, ``--strategy builds``.)
    """
    spec = (spec or os.environ.get("SUPERCODER_MODEL") or "").strip()
    name, _, target = spec.partition(":")
    known = providers()
    if name not in known or not target:
        listed = ", ".join(f"{p}:MODEL" for p in known)
        raise UserError(
            f"unknown model spec {spec!r}: use one of {listed} (a build search, no model: "
            "--strategy builds)"
        )
    settings = ProviderConfig(base_url, api_key, concurrency, timeout)
    cls = _provider_class(name, target)
    ref = known[name]
    if not isinstance(cls, Provider):
        raise UserError(
            f"model provider {name!r} ({ref}) has no from_spec(target, config) class "
            "method: a provider needs from_spec, name and complete (see docs/models.md)"
        )
    model = cls.from_spec(target, settings)
    missing = [a for a in ("name", "complete") if not hasattr(model, a)]  # the Model protocol
    if missing:
        raise UserError(
            f"model provider {name!r} ({ref}) made a model without {' and '.join(missing)}: "
            "a provider needs from_spec, name and complete (see docs/models.md)"
        )
    if not cache:
        return model
    from supercoder.models.cache import CachedModel

    return CachedModel(model)


__all__ = [
    "DEFAULT_SAMPLING",
    "Completion",
    "Model",
    "ProviderConfig",
    "Sampling",
    "load_model",
    "providers",
]
