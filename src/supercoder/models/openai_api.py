"""``openai:MODEL``: any OpenAI-compatible ``/v1/chat/completions`` server, over httpx.

Works with OpenAI, vLLM, SGLang, llama.cpp's server and Ollama without the SDK.
``base_url`` (else ``OPENAI_BASE_URL``, else api.openai.com) may omit the ``/v1``.
``n`` samples are asked for in one request; a server that returns fewer choices (or
rejects ``n``) is then asked once per sample, in parallel up to ``concurrency``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from supercoder.engine import current
from supercoder.errors import InfraError, UserError, printable
from supercoder.models.base import DEFAULT_SAMPLING, Completion, ProviderConfig, Sampling
from supercoder.models.http import (
    HttpClient,
    RequestRejected,
    RetryPolicy,
    cost_usd,
    count,
    field_of,
    split_tokens,
    text_of,
)

if TYPE_CHECKING:
    from supercoder.types import Problem

OPENAI_URL = "https://api.openai.com/v1"
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


class OpenAIModel:
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
        self.name = f"openai:{model}"
        self.base_url = with_v1(base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL)
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not self.api_key and urlsplit(self.base_url).hostname == "api.openai.com":
            raise UserError("openai: set OPENAI_API_KEY (or pass --base-url for a local server)")
        self.concurrency = max(1, concurrency)
        self.cache_identity = f"{self.name}@{self.base_url}"
        self._http = HttpClient(timeout, self.concurrency, retry)
        self._supports_n = True

    @classmethod
    def from_spec(cls, target: str, settings: ProviderConfig) -> OpenAIModel:
        """The provider entry point: ``openai:MODEL`` -> a client for MODEL."""
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
        out: list[Completion] = []
        if self._supports_n or n == 1:
            try:
                out = self._request(messages, sampling)[:n]
            except RequestRejected:
                if n == 1 or not self._supports_n:
                    raise
            if len(out) < n:
                self._supports_n = False
        rest = range(len(out), n)
        singles = current().thread_map(
            lambda i: self._request(messages, sampling.part(i, 1))[0], rest, self.concurrency
        )
        return out + singles

    def _request(self, messages: list[dict[str, str]], sampling: Sampling) -> list[Completion]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "seed": sampling.seed}
        if self.model.startswith(REASONING_PREFIXES):
            body["max_completion_tokens"] = sampling.max_tokens
        else:
            body["max_tokens"] = sampling.max_tokens
            body["temperature"] = sampling.temperature
        if sampling.n > 1:
            body["n"] = sampling.n
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = self._http.post(f"{self.base_url}/chat/completions", body, headers)
        return self._parse(data)

    def _parse(self, data: dict[str, Any]) -> list[Completion]:
        raw = data.get("choices")
        if not isinstance(raw, list) or not raw or not all(isinstance(c, dict) for c in raw):
            kind = type(raw).__name__ if raw else "none"
            raise InfraError(
                f"{self.name}: the server sent no usable choices ({kind}): "
                f"{printable(str(data)[:300], newlines=False)}"
            )
        choices = sorted(raw, key=lambda c: count(c.get("index")))
        usage = data.get("usage")
        prompt = count(field_of(usage, "prompt_tokens"))
        outputs = split_tokens(count(field_of(usage, "completion_tokens")), len(choices))
        result = []
        for i, (choice, out_tokens) in enumerate(zip(choices, outputs, strict=True)):
            in_tokens = prompt if i == 0 else 0
            reason = choice.get("finish_reason")
            result.append(
                Completion(
                    text=text_of(field_of(choice.get("message"), "content")),
                    model=self.name,
                    prompt_tokens=in_tokens,
                    completion_tokens=out_tokens,
                    cost_usd=cost_usd(self.model, in_tokens, out_tokens),
                    finish_reason=reason if isinstance(reason, str) else None,
                )
            )
        return result


def with_v1(url: str) -> str:
    """``http://host:8000`` -> ``http://host:8000/v1``; a URL with a path is kept."""
    url = url.rstrip("/")
    return url + "/v1" if urlsplit(url).path in ("", "/") else url
