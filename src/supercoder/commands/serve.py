"""`supercoder serve`: the verification service over HTTP (``verify/server.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.machine import current, with_engine
from supercoder.commands.options import (
    HOST,
    PORT,
    AllowRootOpt,
    InsecureLoopbackOpt,
    ServedBenchmarksOpt,
    TokenFileOpt,
    err,
)
from supercoder.commands.optionset import but
from supercoder.errors import UserError
from supercoder.verify.access import read_token  # the rule every server shares
from supercoder.verify.server import ServeConfig
from supercoder.verify.server import serve as run_server


@with_engine(skip=("requests",))
def serve(
    host: Annotated[str, HOST] = "127.0.0.1",
    port: Annotated[int, but(PORT, min=0)] = 8765,
    token_file: TokenFileOpt = None,
    insecure_loopback: InsecureLoopbackOpt = False,
    benchmark: ServedBenchmarksOpt = None,
    allow_root: AllowRootOpt = None,
    queue: Annotated[
        int, typer.Option(min=0, max=100000, help="Requests that may wait; one more gets 429.")
    ] = 16,
    max_body_mb: Annotated[
        float, typer.Option(min=0.001, max=4096, help="Largest request body (MiB).")
    ] = 64.0,
    max_deadline: Annotated[
        float,
        typer.Option(min=1, max=86400, help="Longest deadline a request may ask (seconds)."),
    ] = 3600.0,
    remember: Annotated[
        int,
        typer.Option(
            min=1, max=10**6, help="Answers kept by request id (a retry gets the same answer)."
        ),
    ] = 4096,
    drain_seconds: Annotated[
        float, typer.Option(min=0, max=86400, help="How long SIGTERM waits for work in flight.")
    ] = 600.0,
    header_seconds: Annotated[
        float,
        typer.Option(
            min=0.1,
            max=3600,
            help="How long a connection may take to send a request's line and headers; "
            "past it the connection is closed.",
        ),
    ] = 10.0,
) -> None:
    """Serve the verifier over HTTP: checks, batch rewards, problems, health, metrics.

    The same verification as check and the TRL/verl rewards (one service), behind a
    bearer token (SUPERCODER_TOKEN or --token-file; without one it refuses to start
    unless bound to loopback with --insecure-loopback), with request size caps, a
    bounded queue (429 + Retry-After when full), per-request deadlines and idempotent
    request ids. SIGTERM drains: every accepted request is answered, then it exits 0.

    Clients: supercoder check --server URL, supercoder eval --server URL, and the
    TRL/verl rewards with SUPERCODER_SERVER=URL (SUPERCODER_TOKEN=...): the training
    machine then needs no sandbox, gcc or root. See docs/training.md, "A verification
    service".

    Example: SUPERCODER_TOKEN=$(openssl rand -hex 16) supercoder serve --host 0.0.0.0
    """
    token = _token(token_file)
    workers = current().workers  # requests verified at once, and the worker processes
    config = ServeConfig(
        host=host,
        port=port,
        token=token,
        insecure_loopback=insecure_loopback,
        benchmarks=tuple(benchmark or ("all",)),
        allow_roots=tuple(allow_root or ()),
        workers=workers,
        queue=queue,
        max_body_bytes=int(max_body_mb * (1 << 20)),
        max_deadline_seconds=max_deadline,
        remember=remember,
        drain_seconds=drain_seconds,
        header_seconds=header_seconds,
    )
    config.check()
    for root in config.allow_roots:
        if not root.is_dir():
            raise UserError(f"--allow-root {root}: not a folder")

    def ready(url: str) -> None:
        auth = "bearer token required" if token else "NO TOKEN (loopback only)"
        err.print(f"serving on {url} ({auth}; {workers} worker(s), queue {queue})", soft_wrap=True)

    run_server(config, ready)


def _token(token_file: Path | None) -> str | None:
    return read_token(token_file)
