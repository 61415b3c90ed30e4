"""``supercoder serve``: the one verification service behind HTTP (FastAPI + uvicorn).

The endpoints call exactly what ``check`` and the rewards call in-process
(``verify_together`` for a check of a problem's programs, ``reward.verify_batch`` for a
batch of completions), so a verdict or reward from the server is the one the same
machine gives in-process. Requests and responses are JSON; a verdict is its
``Verdict.to_json`` form (visible tests one by one, the unseen ones as one count and
one status: no hidden input, output or name is ever in a response).

- ``GET /health``: ``{"status": "ok" | "draining", "version", "queue", "running"}``, no
  token needed (liveness probes).
- ``GET /metrics``: Prometheus text format (queue depth, requests by endpoint and code,
  checks, checks/s and CPU-s per check over the last minute, infrastructure failures,
  resident memory).
- ``GET /v1/problems``: the problems served by name (name, split, tags, visible tests).
- ``POST /v1/check``: ``{"problem": REF, "programs": [asm, ...], "time", "target",
  "cpu_limit", "memory_mb", "rounds", "max_cpu_seconds", "group_size", "infra_retries",
  "id", "deadline_s"}`` -> ``{"id", "problem", "verdicts": [verdict + reward +
  paper_reward]}``.
- ``POST /v1/baseline``: ``{"problem": REF}`` -> ``{"id", "problem", "asm"}``: the
  problem's ``gcc -O3`` assembly as this server builds it (a prompt's baseline).
- ``POST /v1/score``: ``{"problems": [REF, ...], "items": [{"problem": INDEX,
  "completion": TEXT}], "reward": {"kind", "failure", "baseline_copy"}, "time",
  "target", "infra_retries", "id", "deadline_s"}`` -> ``{"id", "rewards", "verdicts"}``.

A problem ``REF`` is ``{"name": N}`` (a problem the server serves: ``--benchmark``; with
``"source_sha"`` the server refuses a problem of that name whose source differs),
``{"path": DIR}`` (a problem folder under an ``--allow-root``) or ``{"record": R}`` (a
SuperCoder-schema record, ``extra_info`` with the C code and the tests: what verl rows
carry).

The rules a client can rely on:

- Every endpoint but ``/health`` needs ``Authorization: Bearer TOKEN`` (401 otherwise).
- A request's line and headers must arrive within ``header_seconds`` of the connection
  (or of the previous answer on it), else the connection is closed: a client that
  sends half a request line and stops holds nothing.
- A body over ``max_body_bytes`` gets 413, malformed JSON (or JSON nested deeper than
  ``MAX_JSON_DEPTH``, 64 levels, in any field) 400, a well-formed request
  that asks for something impossible 422 (unknown problem: 404; a path outside the
  allowed roots: 403), each with ``{"error": one line}``.
- At most ``workers`` requests run at once and ``queue`` wait; one more gets 429 with
  ``Retry-After`` (seconds, from the recent time per request).
- A request id (``"id"`` in the body, or the ``Idempotency-Key`` header) runs once: the
  same id again, while it runs or after, gets the same answer (the same id with another
  body: 409). A request that ended in an infrastructure failure (503) is forgotten, so
  its retry runs. The last ``remember`` answers are kept.
- ``deadline_s`` (capped by ``max_deadline_seconds``): a request not answered by then
  gets 504; work not started yet is dropped, work running finishes and its answer is
  kept under its id.
- A client that goes away loses nothing else: its work runs on and is kept by id.
- A verification worker that dies (a process pool child killed) is an infrastructure
  failure: the work is run again on a fresh pool, and after that a 503, never a verdict
  of "wrong". A candidate's own infrastructure failures (a lost sandbox) are verdicts
  with status ``infra_error``: the rewards pay them nothing (None), never 0 as wrong.
- SIGTERM drains: no new connection is accepted, every request accepted is answered
  (new requests on open connections get 503), then the server exits 0.
"""

# no "from __future__ import annotations": FastAPI reads the handlers' annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import signal
import socket
import time
import uuid
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.engine import current
from supercoder.errors import InfraError, UserError, printable, require
from supercoder.paths import package_version
from supercoder.types import Problem
from supercoder.verify.access import bearer_ok, check_access
from supercoder.verify.service import discard_shared_pool
from supercoder.verify.work import MAX_ITEMS, MAX_PROGRAMS, WORK, Problems, RequestError, number

MAX_BODY_BYTES = 64 << 20
BODY_SECONDS = 60.0  # a body not received by then gets 408 (a client that trickles it)
HEADER_SECONDS = 10.0  # a request line and headers not received by then: the connection is cut
MAX_JSON_DEPTH = 64  # nesting a request body may have (400 beyond: never a RecursionError)


@dataclass(frozen=True)
class ServeConfig:
    """How ``supercoder serve`` listens and what it accepts.

    Fields:
        host: the address to listen on (loopback by default).
        port: the port (0: any free one; the one taken is printed).
        token: the bearer token every request but ``/health`` must carry (None: only with
            ``insecure_loopback`` on a loopback host).
        insecure_loopback: serve without a token; refused unless ``host`` is loopback.
        benchmarks: the problem sets served by name (``train``, ``val``, ``all``, a folder,
            a records file).
        allow_roots: folders whose problem folders a request may name by path.
        workers: requests verified at once (each fans out over every core itself).
        queue: requests that may wait for a worker; one more gets 429.
        max_body_bytes: the largest request body (413 above it).
        max_programs: programs in one check request.
        max_items: completions in one score request.
        max_deadline_seconds: the longest deadline a request may ask for (and the default).
        remember: finished answers kept by request id (idempotent retries).
        drain_seconds: how long SIGTERM waits for work in flight before giving up on it.
        header_seconds: how long a connection may take to send a request's line and
            headers (from its opening, or from the previous answer on it) before it is
            closed.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    insecure_loopback: bool = False
    benchmarks: tuple[str, ...] = ("all",)
    allow_roots: tuple[Path, ...] = ()
    workers: int = 2
    queue: int = 16
    max_body_bytes: int = MAX_BODY_BYTES
    max_programs: int = MAX_PROGRAMS
    max_items: int = MAX_ITEMS
    max_deadline_seconds: float = 3600.0
    remember: int = 4096
    drain_seconds: float = 600.0
    header_seconds: float = HEADER_SECONDS

    def check(self) -> None:
        """Refuse a configuration that would serve without authentication off loopback."""
        if self.workers < 1 or self.queue < 0:
            raise UserError("--workers must be at least 1 and --queue at least 0")
        check_access(self.host, self.token, self.insecure_loopback)  # the one rule


# --- the queue, the request ids, the figures ------------------------------------------


@dataclass(eq=False)
class _Entry:
    """One accepted request: its body's digest, its work, and its answer once done."""

    id: str
    digest: str
    endpoint: str
    work: Callable[[], dict]
    done: asyncio.Future
    started: bool = False


@dataclass
class Figures:
    """What ``/metrics`` shows (every counter since start; rates over the last minute)."""

    requests: collections.Counter = field(default_factory=collections.Counter)
    rejected: collections.Counter = field(default_factory=collections.Counter)
    checks: int = 0
    check_cpu_seconds: float = 0.0
    infra_failures: int = 0
    work_seconds: float = 0.0
    works: int = 0
    recent: collections.deque = field(default_factory=lambda: collections.deque(maxlen=100_000))

    def add_verdicts(self, verdicts: list[dict]) -> None:
        now = time.monotonic()
        for v in verdicts:
            self.checks += 1
            cpu = float(v.get("cpu_seconds_spent") or 0.0)
            self.check_cpu_seconds += cpu
            self.infra_failures += v.get("status") == "infra_error"
            self.recent.append((now, cpu))

    def last_minute(self) -> tuple[float, float]:
        """(checks per second, CPU seconds per check) over the last 60 s."""
        now = time.monotonic()
        while self.recent and self.recent[0][0] < now - 60:
            self.recent.popleft()
        n = len(self.recent)
        return n / 60.0, (sum(c for _, c in self.recent) / n if n else 0.0)


def resident_bytes() -> int:
    """This process's resident memory (VmRSS), 0 where /proc cannot tell."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Service:
    """The server's state: the problems, the queue, the answers by id, the figures."""

    def __init__(self, config: ServeConfig, problems: Problems) -> None:
        self.config = config
        self.problems = problems
        self.pending: collections.deque[_Entry] = collections.deque()
        self.running = 0
        self.by_id: collections.OrderedDict[str, _Entry] = collections.OrderedDict()
        self.figures = Figures()
        self.draining = False
        self.pool = current().thread_executor(config.workers, "sc-serve")
        self._wake: asyncio.Condition | None = None
        self._workers: list[asyncio.Task] = []
        self._idle: asyncio.Event | None = None

    # lifecycle
    async def start(self) -> None:
        self._wake = asyncio.Condition()
        self._idle = asyncio.Event()
        self._idle.set()
        self._workers = [asyncio.create_task(self._worker()) for _ in range(self.config.workers)]

    async def stop(self) -> None:
        """Drain: every accepted request's work runs to its end (bounded by
        ``drain_seconds``), then the workers and pools stop."""
        self.draining = True
        assert self._idle is not None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._idle.wait(), self.config.drain_seconds)
        for task in self._workers:
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)

        discard_shared_pool()

    def _busy(self) -> None:
        assert self._idle is not None
        if self.pending or self.running:
            self._idle.clear()
        else:
            self._idle.set()

    # admission
    def retry_after(self) -> int:
        """Seconds until a slot is likely free: the mean time of a request so far, times
        the requests ahead per worker; 1 to 300."""
        f = self.figures
        each = f.work_seconds / f.works if f.works else 5.0
        ahead = (len(self.pending) + self.running) / self.config.workers
        return int(min(300, max(1, round(each * max(ahead, 1)))))

    async def submit(self, endpoint: str, rid: str | None, body: dict, deadline: float) -> tuple:
        """The answer to a request: ``(status, body, headers)``."""
        digest = hashlib.sha256(
            json.dumps([endpoint, body], sort_keys=True, default=str).encode()
        ).hexdigest()
        entry = self.by_id.get(rid) if rid else None
        if entry is not None:
            if entry.digest != digest:
                raise RequestError(409, f"request id {rid!r} was used for another request")
            self.by_id.move_to_end(rid)  # type: ignore[arg-type]
        else:
            if self.draining:
                raise RequestError(
                    503, "the server is draining (SIGTERM): retry elsewhere", {"Retry-After": "5"}
                )
            work = WORK[endpoint](self.problems, body, self.config)
            if len(self.pending) + self.running >= self.config.queue + self.config.workers:
                self.figures.rejected["queue_full"] += 1
                raise RequestError(
                    429,
                    f"the queue is full ({self.config.queue} waiting): retry later",
                    {"Retry-After": str(self.retry_after())},
                )
            loop = asyncio.get_running_loop()
            entry = _Entry(rid or uuid.uuid4().hex, digest, endpoint, work, loop.create_future())
            self.by_id[entry.id] = entry
            self._forget_old()
            self.pending.append(entry)
            self._busy()
            assert self._wake is not None
            async with self._wake:
                self._wake.notify()
        try:
            status, answer = await asyncio.wait_for(asyncio.shield(entry.done), deadline)
        except TimeoutError:
            self.figures.rejected["deadline"] += 1
            if not entry.started and entry in self.pending:
                self.pending.remove(entry)
                self.by_id.pop(entry.id, None)
                self._busy()
                raise RequestError(504, "the deadline passed before the work started") from None
            raise RequestError(
                504,
                "the deadline passed while the work ran: it goes on; ask again with the "
                f"same id ({entry.id}) for its answer",
                {"Retry-After": str(self.retry_after())},
            ) from None
        return status, {"id": entry.id, **answer}

    def _forget_old(self) -> None:
        finished = [k for k, e in self.by_id.items() if e.done.done()]
        for k in finished[: max(0, len(self.by_id) - self.config.remember)]:
            del self.by_id[k]

    # the workers
    async def _worker(self) -> None:
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while True:
            async with self._wake:
                await self._wake.wait_for(lambda: bool(self.pending))
                entry = self.pending.popleft()
            entry.started = True
            self.running += 1
            began = time.monotonic()
            try:
                status, answer = await loop.run_in_executor(self.pool, self._run, entry)
            except Exception as e:  # never: _run catches everything
                status, answer = 500, {"error": f"{type(e).__name__}: {e}"}
            finally:
                self.running -= 1
            self.figures.works += 1
            self.figures.work_seconds += time.monotonic() - began
            if status == 200:
                self.figures.add_verdicts(answer.get("verdicts", []))
            elif status >= 500:
                self.figures.infra_failures += 1
                self.by_id.pop(entry.id, None)  # a retry with this id runs again
            if not entry.done.done():
                entry.done.set_result((status, answer))
            self._busy()

    @staticmethod
    def _run(entry: _Entry) -> tuple[int, dict]:
        """Run a request's work in a worker thread: a dead process pool is replaced and
        the work run again (twice at most), then it is a 503; a broken problem is a 422."""
        for attempt in range(3):
            try:
                return 200, entry.work()
            except BrokenProcessPool as e:
                discard_shared_pool()
                why = f"a verification worker died ({e})"
                if attempt == 2:
                    return 503, {"error": f"infrastructure failure: {why}"}
            except UserError as e:
                return 422, {"error": str(e)}
            except InfraError as e:
                return 503, {"error": f"infrastructure failure: {e}"}
            except Exception as e:
                return 503, {"error": f"infrastructure failure: {type(e).__name__}: {e}"}
        return 503, {"error": "infrastructure failure"}

    # /metrics
    def metrics_text(self) -> str:
        f = self.figures
        rate, cpu_each = f.last_minute()
        lines: list[str] = []

        def metric(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> None:
            lines.append(f"# HELP supercoder_{name} {help_}")
            lines.append(f"# TYPE supercoder_{name} {kind}")
            for labels, value in samples:
                lines.append(f"supercoder_{name}{labels} {value:g}")

        metric("queue_depth", "gauge", "Requests waiting for a worker.", [("", len(self.pending))])
        metric("queue_capacity", "gauge", "Requests that may wait.", [("", self.config.queue)])
        metric("requests_running", "gauge", "Requests being verified.", [("", self.running)])
        metric("workers", "gauge", "Requests verified at once.", [("", self.config.workers)])
        metric(
            "requests_total",
            "counter",
            "HTTP requests answered, by endpoint and status code.",
            [(f'{{endpoint="{e}",code="{c}"}}', n) for (e, c), n in sorted(f.requests.items())],
        )
        metric(
            "rejected_total",
            "counter",
            "Requests refused or cut short, by reason.",
            [(f'{{reason="{r}"}}', n) for r, n in sorted(f.rejected.items())],
        )
        metric("checks_total", "counter", "Candidates verified.", [("", f.checks)])
        metric(
            "check_cpu_seconds_total",
            "counter",
            "CPU seconds the verdicts report (runs of candidate and baseline).",
            [("", round(f.check_cpu_seconds, 4))],
        )
        metric("checks_per_second", "gauge", "Checks per second, last minute.", [("", rate)])
        metric(
            "cpu_seconds_per_check",
            "gauge",
            "CPU seconds per check, last minute.",
            [("", round(cpu_each, 4))],
        )
        metric(
            "infra_failures_total",
            "counter",
            "Infrastructure failures: verdicts with status infra_error, and requests that "
            "failed with 5xx.",
            [("", f.infra_failures)],
        )
        metric(
            "resident_bytes", "gauge", "Resident memory of the server.", [("", resident_bytes())]
        )
        metric(
            "remembered_answers",
            "gauge",
            "Answers kept by request id (at most --remember).",
            [("", len(self.by_id))],
        )
        metric("draining", "gauge", "1 after SIGTERM.", [("", int(self.draining))])
        return "\n".join(lines) + "\n"


# --- the ASGI app ---------------------------------------------------------------------


def make_app(config: ServeConfig, problems: Problems | None = None) -> Any:
    """The FastAPI app over a ``Service`` (the problems: ``config.benchmarks``)."""
    fastapi = require("fastapi", "serve")
    from fastapi import Request
    from fastapi.responses import JSONResponse, PlainTextResponse
    from starlette.requests import ClientDisconnect

    if problems is None:
        problems = Problems(load_served(config.benchmarks), config.allow_roots)
    service = Service(config, problems)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        await service.start()
        yield
        await service.stop()

    app = fastapi.FastAPI(title="supercoder", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.service = service

    def answer(endpoint: str, status: int, body: dict, headers: dict | None = None):
        service.figures.requests[(endpoint, str(status))] += 1
        return JSONResponse(body, status_code=status, headers=headers)

    def authorized(request: Request) -> bool:
        return bearer_ok(request.headers.get("authorization"), config.token)

    def refused(endpoint: str):
        service.figures.rejected["auth"] += 1
        return answer(
            endpoint,
            401,
            {"error": "missing or wrong bearer token (Authorization: Bearer TOKEN)"},
            {"WWW-Authenticate": "Bearer"},
        )

    async def handle(endpoint: str, request: Request):
        if not authorized(request):
            return refused(endpoint)
        try:
            body = await read_json(request, config.max_body_bytes)
            rid = body.pop("id", None) or request.headers.get("idempotency-key")
            if rid is not None and (not isinstance(rid, str) or not 0 < len(rid) <= 200):
                raise RequestError(422, "'id' must be a string of 1 to 200 characters")
            deadline = number(
                body, "deadline_s", config.max_deadline_seconds, 0.001, config.max_deadline_seconds
            )
            body.pop("deadline_s", None)
            status, out = await service.submit(endpoint, rid, body, deadline)
            return answer(endpoint, status, out)
        except RequestError as e:
            if e.status == 413:
                service.figures.rejected["too_large"] += 1
            elif e.status in (400, 422):
                service.figures.rejected["malformed"] += 1
            return answer(endpoint, e.status, {"error": printable(str(e))}, e.headers)
        except ClientDisconnect:  # gone before its body arrived: nothing was accepted
            service.figures.rejected["disconnected"] += 1
            return answer(endpoint, 400, {"error": "the client went away"})
        except Exception as e:  # a bug: one line, never a traceback in the answer
            service.figures.infra_failures += 1
            text = printable(f"{type(e).__name__}: {e}", newlines=False)[:300]
            return answer(endpoint, 500, {"error": f"internal error: {text}"})

    @app.get("/health")
    async def health():
        return {
            "status": "draining" if service.draining else "ok",
            "version": package_version(),
            "queue": len(service.pending),
            "running": service.running,
        }

    @app.get("/metrics")
    async def metrics(request: Request):
        if not authorized(request):
            return refused("metrics")
        return PlainTextResponse(service.metrics_text(), media_type="text/plain; version=0.0.4")

    @app.get("/v1/problems")
    async def list_problems(request: Request):
        if not authorized(request):
            return refused("problems")
        return answer("problems", 200, {"problems": service.problems.listing()})

    @app.post("/v1/check")
    async def check(request: Request):
        return await handle("check", request)

    @app.post("/v1/score")
    async def score(request: Request):
        return await handle("score", request)

    @app.post("/v1/baseline")
    async def baseline(request: Request):
        return await handle("baseline", request)

    return app


async def read_json(request: Any, max_bytes: int) -> dict:
    """A request's body: a JSON object of at most ``max_bytes``, received within
    ``BODY_SECONDS``, nested at most ``MAX_JSON_DEPTH`` deep (else a ``RequestError``:
    413, 408, 400)."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > max_bytes):
        raise RequestError(413, f"the body is over {max_bytes} bytes")
    chunks: list[bytes] = []

    async def receive() -> None:
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > max_bytes:
                raise RequestError(413, f"the body is over {max_bytes} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(receive(), BODY_SECONDS)
    except TimeoutError:
        raise RequestError(408, f"the body did not arrive within {BODY_SECONDS:g} s") from None
    try:
        body = json.loads(b"".join(chunks))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise RequestError(400, f"the body is not JSON: {str(e)[:200]}") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    if json_depth_over(body, MAX_JSON_DEPTH):
        raise RequestError(400, f"the body is nested deeper than {MAX_JSON_DEPTH} levels")
    return body


def json_depth_over(value: Any, limit: int) -> bool:
    """Does ``value`` (parsed JSON) nest lists and objects deeper than ``limit``? Walked
    without recursion: the answer for any depth the parser accepted."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def header_deadline_protocol(seconds: float) -> type:
    """uvicorn's h11 protocol, cutting a connection whose request line and headers have
    not all arrived ``seconds`` after it opened or after its last answer (uvicorn itself
    waits for them forever: a client sending half a request line held a connection for
    good)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeaderDeadline(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _headers_late(self) -> None:
            self._header_timer = None
            # still waiting for a request's headers (IDLE: no Request event yet)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            super().connection_lost(exc)

    return HeaderDeadline


def load_served(benchmarks: tuple[str, ...]) -> list[Problem]:
    """The problems of every served benchmark, by name (two of one name: refused)."""
    seen: dict[str, Problem] = {}
    for spec in benchmarks:
        for problem in load_benchmark(spec):
            other = seen.get(problem.name)
            if other is not None and other.source_hash() != problem.source_hash():
                raise UserError(
                    f"two served problems are named {problem.name!r} ({spec} and another "
                    "benchmark): serve one of them"
                )
            seen[problem.name] = problem
    return list(seen.values())


def serve(config: ServeConfig, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until SIGTERM/SIGINT, then drain (see module docstring)."""
    config.check()
    uvicorn = require("uvicorn", "serve")
    app = make_app(config)
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((config.host, config.port))
    except OSError as e:
        sock.close()
        raise UserError(f"cannot listen on {config.host}:{config.port}: {e.strerror or e}") from e
    sock.listen(2048)
    port = sock.getsockname()[1]
    host = f"[{config.host}]" if ":" in config.host else config.host
    url = f"http://{host}:{port}"

    class _Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:  # SIGTERM: refuse new work, drain the rest
            app.state.service.draining = True
            super().handle_exit(sig, frame)
            if sig == signal.SIGTERM:  # drained: exit 0, not re-raised after the drain
                self._captured_signals = [s for s in self._captured_signals if s != sig]

    uv_config = uvicorn.Config(
        app,
        log_level="warning",
        timeout_graceful_shutdown=int(config.drain_seconds),
        access_log=False,
        lifespan="on",
        http=header_deadline_protocol(config.header_seconds),
    )
    server = _Server(uv_config)
    if on_ready is not None:
        on_ready(url)
    server.run(sockets=[sock])
