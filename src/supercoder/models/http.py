"""Shared plumbing for HTTP model providers: retries with backoff, errors, prices.

Retried: 408, 409, 429, every 5xx, connection errors and timeouts, with exponential
backoff and full jitter, honouring ``Retry-After`` / ``retry-after-ms``. After the last
attempt a retryable failure raises :class:`InfraError` (the service failed, not the
answer). Any other 4xx raises :class:`RequestRejected` at once (a bad key, an unknown
model, a prompt too long): a :class:`UserError` that callers may record as no answer.

``timeout`` bounds each wait for the server (connect, and each read); a request that
times out twice is not retried again (the server is hung, not busy). A whole problem's
time is bounded by :class:`supercoder.models.deadline.Deadline`. Replies are parsed
defensively (:func:`count`, :func:`text_of`): wrong types from a server are an
:class:`InfraError`, never a crash, and answer text is capped at
:data:`MAX_ANSWER_CHARS` characters before it is stored anywhere.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from supercoder.engine import current
from supercoder.errors import InfraError, UserError, printable

RETRYABLE = frozenset({408, 409, 429})
MAX_TIMEOUTS = 2  # a request that timed out this often is not retried again
MAX_ANSWER_CHARS = 256 * 1024  # longer answers are cut here (and say so) before storing


class RequestRejected(UserError):
    """The server refused the request itself (4xx other than rate limits)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"the model server rejected the request (HTTP {status}): {message}")
        self.status = status


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 300.0  # a server's Retry-After is honoured up to this

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


class HttpClient:
    """POSTs JSON with retries; at most ``concurrency`` requests of this client in flight,
    and each holds one of the engine's model requests (``--requests``) on the wire."""

    def __init__(self, timeout: float, concurrency: int, retry: RetryPolicy | None = None):
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 30.0)))

    def post(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        last, timeouts = "", 0
        for attempt in range(self.retry.attempts):
            with current().requests.hold(), self._slots:  # the run's budget, then this model's
                try:
                    response = self._client.post(url, json=body, headers=headers)
                except httpx.TransportError as e:
                    response, last = None, f"{type(e).__name__}: {e}"
                    timeouts += isinstance(e, httpx.TimeoutException)
            if response is not None:
                if response.status_code < 300:
                    return _json(response)
                last = f"HTTP {response.status_code}: {_error_text(response)}"
                if not _retryable(response.status_code):
                    raise RequestRejected(response.status_code, _error_text(response))
            if timeouts >= MAX_TIMEOUTS:
                raise InfraError(
                    f"{url}: no answer within {self.timeout:g}s, {timeouts} times: the server "
                    f"looks hung ({last}; raise --timeout if it is just slow)"
                )
            if attempt + 1 < self.retry.attempts:
                wait = retry_after(response) if response is not None else None
                time.sleep(self.retry.delay(attempt, wait))
        raise InfraError(f"{url}: failed after {self.retry.attempts} attempts ({last})")

    def close(self) -> None:
        self._client.close()


def _retryable(status: int) -> bool:
    return status in RETRYABLE or status >= 500


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date)."""
    ms = response.headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError as e:
        raise InfraError(f"the model server sent a response that is not JSON: {e}") from e
    if not isinstance(data, dict):
        raise InfraError("the model server sent JSON that is not an object")
    return data


def _error_text(response: httpx.Response) -> str:
    """The server's error message, short and with control characters escaped."""
    try:
        data = response.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        text = str(err.get("message") or err) if isinstance(err, dict) else str(err)
    except ValueError:
        text = response.text
    return printable(text[:500], newlines=False)


def count(value: Any) -> int:
    """A token count from a server: a non-negative int, or 0 for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(0, int(value)) if value == value and abs(value) < 1e15 else 0


def field_of(data: Any, key: str) -> Any:
    """``data[key]`` when ``data`` is a JSON object, else None (servers send odd things)."""
    return data.get(key) if isinstance(data, dict) else None


def text_of(value: Any) -> str:
    """Answer text: a string, or the text of content parts; capped at MAX_ANSWER_CHARS."""
    if value is None:
        return ""
    if isinstance(value, list):  # content parts
        value = "".join(
            p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    if not isinstance(value, str):
        raise InfraError(f"the model server sent answer text of type {type(value).__name__}")
    if len(value) > MAX_ANSWER_CHARS:
        cut = len(value) - MAX_ANSWER_CHARS
        value = value[:MAX_ANSWER_CHARS] + f"\n[supercoder: answer cut here, {cut} more characters]"
    return value


# USD per million (input, output) tokens, matched by longest prefix of the model name.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4-5": (1.00, 5.00),
}


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """Dollar cost from the price table, or None for a model not in it."""
    name = model.rsplit("/", 1)[-1]
    matches = [k for k in PRICES if name.startswith(k)]
    if not matches:
        return None
    inp, out = PRICES[max(matches, key=len)]
    return (prompt_tokens * inp + completion_tokens * out) / 1e6


def split_tokens(total: int, parts: int) -> list[int]:
    """``total`` spread over ``parts`` so that the pieces add up (extra on the first)."""
    if parts <= 0:
        return []
    base, extra = divmod(total, parts)
    return [base + extra] + [base] * (parts - 1)
