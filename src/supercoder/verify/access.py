"""Who may call supercoder over the network: the one token rule of every server we run
(``supercoder serve``, ``supercoder mcp --transport http``).

- A server needs a bearer token (``SUPERCODER_TOKEN``, or ``--token-file FILE``); every
  request carries ``Authorization: Bearer TOKEN`` (compared in constant time).
- Without a token it refuses to start, unless it is bound to a loopback address
  (127.0.0.1, ::1, localhost) and the user passed ``--insecure-loopback``.

``BearerAuth`` is the rule as plain ASGI middleware (any ASGI app: Starlette, FastAPI,
the MCP SDK's streamable HTTP app): 401 with ``WWW-Authenticate: Bearer`` and a one-line
JSON ``{"error": ...}`` for a request without the token.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from supercoder.errors import UserError, read_regular

TOKEN_ENV = "SUPERCODER_TOKEN"
MAX_TOKEN_BYTES = 4096


def is_loopback(host: str) -> bool:
    """``host`` names this machine only (127.0.0.0/8, ::1, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def read_token(token_file: Path | None) -> str | None:
    """The bearer token: the first line of ``token_file`` when given (an empty file is
    refused), else ``$SUPERCODER_TOKEN``, else None."""
    if token_file is not None:
        raw = read_regular(token_file, MAX_TOKEN_BYTES, "token file")
        text = raw.decode(errors="replace").strip()
        if not text:
            raise UserError(f"{token_file}: the token file is empty")
        return text
    return os.environ.get(TOKEN_ENV) or None


def check_access(host: str, token: str | None, insecure_loopback: bool) -> None:
    """Refuse (UserError) to serve without a token anywhere but loopback, and there only
    with ``--insecure-loopback``."""
    if token is not None and not token.strip():
        raise UserError(f"the token is empty: give a real one ({TOKEN_ENV} or --token-file)")
    if token is None and not insecure_loopback:
        raise UserError(
            f"no token: set {TOKEN_ENV} (or --token-file FILE); to serve without one on "
            "this machine only, bind to 127.0.0.1 and pass --insecure-loopback"
        )
    if token is None and not is_loopback(host):
        raise UserError(
            f"--insecure-loopback serves only on a loopback address, not {host!r}: set a "
            "token to serve on the network"
        )


def bearer_ok(header: str | bytes | None, token: str | None) -> bool:
    """Does the ``Authorization`` header carry ``token`` (always true without a token)?"""
    if token is None:
        return True
    if header is None:
        return False
    text = header.decode("latin-1") if isinstance(header, bytes) else header
    scheme, _, given = text.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BearerAuth:
    """ASGI middleware: every HTTP request (but ``open_paths``) needs the bearer token."""

    def __init__(self, app: Any, token: str | None, open_paths: tuple[str, ...] = ()) -> None:
        self.app = app
        self.token = token
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and scope.get("path") not in self.open_paths:
            header = dict(scope.get("headers") or ()).get(b"authorization")
            if not bearer_ok(header, self.token):
                await _refuse(scope, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Send) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"error": "a bearer token is required (Authorization: Bearer TOKEN)"})
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="supercoder"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})
