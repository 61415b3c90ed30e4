"""``anthropic:MODEL``: the Anthropic Messages API (``/v1/messages``), over httpx.

``base_url`` (else ``ANTHROPIC_BASE_URL``, else api.anthropic.com). System messages
become the top-level ``system`` field. The API has no ``n`` and no seed: samples are
separate requests, in parallel up to ``concurrency``. Temperature is clamped to the
API's range [0, 1].
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from supercoder.engine import current
from supercoder.errors import InfraError, UserError, printable
from supercoder.models.base import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling
from supercoder.models.http import HttpClient, RetryPolicy, cost_usd, count, field_of, text_of

if TYPE_CHECKING:
    from supercoder.types import Problem

ANTHROPIC_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicModel:
    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout: float = 300.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.name = f"anthropic:{model}"
        base = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL).rstrip("/")
        self.url = base + ("/messages" if base.endswith("/v1") else "/v1/messages")
        self.api_key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not self.api_key and urlsplit(self.url).hostname == "api.anthropic.com":
            raise UserError("anthropic: set ANTHROPIC_API_KEY")
        self.concurrency = max(1, concurrency)
        self.cache_identity = f"{self.name}@{self.url}"
        self._http = HttpClient(timeout, self.concurrency, retry)

    @classmethod
    def from_spec(cls, target: str, settings: ProviderConfig) -> AnthropicModel:
        """The provider entry point: ``anthropic:MODEL`` -> a client for MODEL."""
        return cls(target, **settings.client_options())

    def complete(
        self,
        messages: list[dict[str, str]],
        sampling: Sampling = DEFAULT_SAMPLING,
        context: Problem | None = None,
    ) -> list[Completion]:
        n = sampling.n
        if n <= 0:
            return []
        body = _body(self.model, messages, sampling.temperature, sampling.max_tokens)
        headers = {"anthropic-version": API_VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        return current().thread_map(
            lambda _: self._parse(self._http.post(self.url, body, headers)),
            range(n),
            self.concurrency,
        )

    def _parse(self, data: dict[str, Any]) -> Completion:
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise InfraError(
                f"{self.name}: the server returned no content: "
                f"{printable(str(data)[:300], newlines=False)}"
            )
        text = text_of([b for b in blocks if isinstance(b, dict) and b.get("type") == "text"])
        usage = data.get("usage")
        prompt = count(field_of(usage, "input_tokens")) + count(
            field_of(usage, "cache_read_input_tokens")
        )
        output = count(field_of(usage, "output_tokens"))
        reason = data.get("stop_reason")
        return Completion(
            text=text,
            model=self.name,
            prompt_tokens=prompt,
            completion_tokens=output,
            cost_usd=cost_usd(self.model, prompt, output),
            finish_reason=reason if isinstance(reason, str) else None,
        )


def _body(
    model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int
) -> dict[str, Any]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns = [
        {"role": m["role"], "content": m["content"]} for m in messages if m["role"] != "system"
    ]
    body: dict[str, Any] = {
        "model": model,
        "messages": turns,
        "max_tokens": max_tokens,
        "temperature": min(max(temperature, 0.0), 1.0),
    }
    if system:
        body["system"] = system
    return body
