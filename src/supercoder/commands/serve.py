"""`supercoder serve`: the verification service over HTTP (``verify/server.py``)."""

from __future__ import annotations

from typing import Annotated

import typer

from supercoder.commands.machine import current, engine_options, installs_engine
from supercoder.commands.options import ServerOptions, err
from supercoder.commands.optionset import use, with_groups
from supercoder.errors import UserError
from supercoder.verify.server import ServeConfig
from supercoder.verify.server import serve as run_server


@with_groups(server=use(ServerOptions, port=8765), machine=engine_options(skip=("requests",)))
@installs_engine
def serve(
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
    *,
    server: ServerOptions,
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
    token = server.token()  # the rule every server shares (verify/access.py)
    workers = current().workers  # requests verified at once, and the worker processes
    config = ServeConfig(
        host=server.host,
        port=server.port,
        token=token,
        insecure_loopback=server.insecure_loopback,
        benchmarks=server.served(),
        allow_roots=server.roots(),
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
