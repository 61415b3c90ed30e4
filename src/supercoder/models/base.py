"""The model vocabulary: ``Completion``, ``Sampling`` and the one-verb ``Model`` protocol.

A leaf of models/: ``complete(messages, sampling, context=None)`` is the whole interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from supercoder.codec import Json, JsonObject, decode, encode, versioned
from supercoder.types import Origin

if TYPE_CHECKING:
    from supercoder.types import Problem


# The response cache's record: format 2 has ``origin`` (1 had ``meta``). No
# ``format_version`` is written (cached rows keep their shape); every row reads through
# the format 1 migration, which leaves an ``origin`` as it is.
@versioned(2, name="cached completion", migrations={1: lambda d: _meta_is_origin(d)}, write=False)
@dataclass(frozen=True)
class Completion:
    """One sampled answer.

    Token counts of a request that returned several choices are split so that they
    add up over the choices (prompt tokens are counted on the first one). A
    ``cached`` completion carries the counts and cost of the request that first
    produced it; it cost nothing this time. ``origin`` is what the model says of the
    answer beyond these (a build strategy's build record, a plugin's provenance; a
    plugin's own keys in ``Origin.extra``): the attempt's ``Origin`` starts from it.
    """

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cached: bool = False
    finish_reason: str | None = None
    origin: Origin = field(default_factory=Origin, compare=False)

    def stamp(self, origin: Origin) -> Origin:
        """``origin`` with who answered and what the answer cost (model, tokens, cost,
        cached, finish reason) taken from this completion."""
        return replace(
            origin,
            model=self.model,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
            cached=self.cached,
            finish_reason=self.finish_reason,
        )

    def to_json(self) -> JsonObject:
        """The response cache's record (through the codec; ``origin`` as ``Origin``'s)."""
        return encode(self)  # type: ignore[return-value]

    @classmethod
    def from_json(cls, d: Mapping[str, Json]) -> Completion:
        """A cached record, today's or one kept before ``origin`` was typed (its ``meta``
        dict: the format 1 migration), through the codec."""
        return decode(cls, d)


def _meta_is_origin(d: JsonObject) -> JsonObject:
    """A cached completion of format 1 (before ``origin`` was typed): its ``meta`` dict,
    when it has no ``origin``, is its origin (read as an older origin)."""
    d = dict(d)
    meta = d.pop("meta", None)
    if not d.get("origin"):
        d["origin"] = meta or {}
    return d


@dataclass(frozen=True)
class Sampling:
    """How to sample one ``complete`` call: ``n`` answers, sample ``i`` seeded ``seed + i``."""

    n: int = 1
    temperature: float = 0.7
    max_tokens: int = 4096
    seed: int = 0

    def part(self, start: int, count: int) -> Sampling:
        """Samples ``start .. start + count - 1`` of these, asked for on their own."""
        return replace(self, n=count, seed=self.seed + start)


DEFAULT_SAMPLING = Sampling()


@runtime_checkable
class Model(Protocol):
    """Anything that samples chat completions. ``name`` is the spec string. What
    ``load_model`` builds one with is its class's ``Provider.from_spec``."""

    name: str

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        """Return up to ``sampling.n`` completions (sample ``i`` is deterministic in
        ``sampling.seed + i`` where the backend allows). ``context``: the problem, for
        models that use more than the messages. Raises InfraError when the service keeps
        failing."""
        ...


@runtime_checkable
class Provider(Protocol):
    """What ``load_model`` needs of a class named in the ``supercoder.providers``
    entry-point group (built-in or plugin): ``from_spec``, making a ``Model`` (a
    ``name`` and ``complete``). A class that lacks it is refused in one line."""

    @classmethod
    def from_spec(cls, target: str, config: ProviderConfig) -> Model:
        """The model for ``--model NAME:TARGET`` (``config``: how to reach it)."""
        ...


@dataclass(frozen=True)
class ProviderConfig:
    """How to reach a provider: one value every provider's ``from_spec`` takes.

    Fields:
        base_url: the server's URL (None: the provider's default or its environment
            variable, e.g. ``OPENAI_BASE_URL``).
        api_key: the key (None: the provider's environment variable).
        concurrency: requests in flight at once.
        timeout: seconds per request.
    """

    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = 4
    timeout: float = 300.0

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for an HTTP provider's constructor."""
        return {
            "base_url": self.base_url,
            "api_key": self.api_key,
            "concurrency": self.concurrency,
            "timeout": self.timeout,
        }
