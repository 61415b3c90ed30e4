"""Scripted chat servers on 127.0.0.1 for tests: OpenAI-compatible and Anthropic-compatible.

Usage (from a test file in tests/)::

    from tests.fakes.servers import openai_server

    with openai_server(lambda messages, request: "```assembly\\n...\\n```") as url:
        model = load_model("openai:m", base_url=url, cache=False)
        ...
        assert len(url.requests) == 1

The context manager yields a :class:`BaseURL`: a ``str`` (the base URL) that also holds
``requests``, the JSON bodies received in order. The responder gets
``(messages, request_json)`` and returns the reply text, or a :class:`Reply` to send an
error (status, headers). For ``n`` > 1 the OpenAI server calls the responder once per
choice unless built with ``supports_n=False`` (then it answers with one choice, like
llama.cpp). Token usage is counted in whitespace-separated words. A request with
``"stream": true`` gets the reply as server-sent events (``chat.completion.chunk``
events, then ``data: [DONE]``), as OpenAI streams it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """An HTTP error (or any explicit reply) instead of a completion."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] = field(default_factory=lambda: {"error": {"message": "scripted"}})


Responder = Callable[[list[dict[str, str]], dict[str, Any]], "str | Reply"]


class BaseURL(str):
    requests: list[dict[str, Any]]
    headers: list[dict[str, str]]


def words(text: str) -> int:
    return len(text.split())


def _openai_reply(request: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    prompt = sum(words(m["content"]) for m in request["messages"])
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": request.get("model"),
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
            for i, t in enumerate(texts)
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": sum(words(t) for t in texts),
            "total_tokens": prompt + sum(words(t) for t in texts),
        },
    }


def _openai_events(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """A chat completion as OpenAI's stream of chunks: the content, the finish, the usage."""
    head = {k: reply[k] for k in ("id", "model")} | {"object": "chat.completion.chunk"}
    events = []
    for choice in reply["choices"]:
        delta = {"role": "assistant", "content": choice["message"]["content"]}
        events.append(head | {"choices": [{"index": choice["index"], "delta": delta}]})
        done = {"index": choice["index"], "delta": {}, "finish_reason": choice["finish_reason"]}
        events.append(head | {"choices": [done]})
    events.append(head | {"choices": [], "usage": reply["usage"]})
    return events


def _anthropic_reply(request: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    prompt = sum(words(m["content"]) for m in request["messages"]) + words(
        request.get("system", "")
    )
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": request.get("model"),
        "content": [{"type": "text", "text": texts[0]}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": prompt, "output_tokens": words(texts[0])},
    }


def _serve(responder: Responder, path: str, kind: str, supports_n: bool) -> Iterator[BaseURL]:
    received: list[dict[str, Any]] = []
    headers_seen: list[dict[str, str]] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with lock:
                received.append(body)
                headers_seen.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != path:
                return self._send(Reply(404, body={"error": {"message": f"no route {self.path}"}}))
            if kind == "anthropic" and not (
                self.headers.get("x-api-key") and self.headers.get("anthropic-version")
            ):
                return self._send(Reply(401, body={"error": {"message": "missing auth headers"}}))
            n = int(body.get("n", 1)) if supports_n else 1
            texts = []
            for _ in range(n):
                out = responder(body["messages"], body)
                if isinstance(out, Reply):
                    return self._send(out)
                texts.append(out)
            build = _openai_reply if kind == "openai" else _anthropic_reply
            if kind == "openai" and body.get("stream"):
                return self._stream(_openai_events(build(body, texts)))
            self._send(Reply(200, body=build(body, texts)))

        def _stream(self, events: list[dict[str, Any]]) -> None:
            data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)
            data += b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send(self, reply: Reply) -> None:
            data = json.dumps(reply.body).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    root = f"http://127.0.0.1:{server.server_address[1]}"
    url = BaseURL(root + "/v1" if kind == "openai" else root)
    url.requests = received
    url.headers = headers_seen
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def openai_server(responder: Responder, *, supports_n: bool = True) -> Iterator[BaseURL]:
    """An OpenAI-compatible ``/v1/chat/completions`` server; yields ``http://127.0.0.1:PORT/v1``."""
    yield from _serve(responder, "/v1/chat/completions", "openai", supports_n)


@contextmanager
def anthropic_server(responder: Responder) -> Iterator[BaseURL]:
    """An Anthropic-compatible ``/v1/messages`` server (checks ``x-api-key`` and
    ``anthropic-version``); yields ``http://127.0.0.1:PORT``."""
    yield from _serve(responder, "/v1/messages", "anthropic", False)
