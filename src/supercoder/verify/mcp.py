"""The verifier as tools for coding agents (Model Context Protocol): what ``supercoder
mcp`` serves (``commands/mcp.py`` parses its options and calls ``serve``), beside the
HTTP verification server (``verify/server.py``).

An MCP server (the official ``mcp`` Python SDK, ``MCPServer``) over stdio, or over
streamable HTTP behind the token rule of every server we run (``verify/access.py``).
Its tools call what the commands call: ``list_problems`` (``bench list``),
``show_problem`` (the source, visible tests and ``problem baseline``), ``profile_baseline``
(``problem profile``), ``check_candidate`` (``check``: the same ``verify_together``, the
same verdict JSON) and ``analyze_answer`` (``analyze``).

Bounds (``McpConfig``): a candidate's assembly at most ``max_candidate_bytes``; the
arguments of one call at most ``max_argument_bytes``; every call answered within
``tool_seconds`` (past it, an error; the work it started stops by its own limits: CPU
per test run, the meter's CPU budget, the profile budget); at most ``workers`` calls
working at once. What a tool shows is cut at documented sizes (the source and the
baseline at ``max_text_chars``, each shown test at ``test_chars``), saying so. A bad
argument (an unknown problem, a path outside the allowed roots, a huge string, a wrong
type) is refused as a tool error of one line, never a traceback. Hidden tests and the
inputs drawn for timing are never shown: only their count and one status, as ``check``.
"""

# no "from __future__ import annotations": the SDK reads the tools' annotations

import contextlib
import os
import re
import socket
import traceback
from collections.abc import Callable
from typing import Annotated, Any

from rich.console import Console

from supercoder.errors import SupercoderError, UserError, require
from supercoder.paths import package_version
from supercoder.verify.access import BearerAuth
from supercoder.verify.server import HEADER_SECONDS, header_deadline_protocol
from supercoder.verify.toolbox import (  # noqa: F401  (re-exported: the server's values)
    MAX_ARGUMENT_BYTES,
    MAX_CANDIDATE_BYTES,
    MAX_ERROR_CHARS,
    MAX_REF_CHARS,
    PROGRESS_SECONDS,
    Answer,
    McpConfig,
    Toolbox,
    Transport,
    clip,
    one_line,
)

# --- the MCP server -----------------------------------------------------------------------

TOOLS = {
    "list_problems": (
        "List the problems this server checks: bundled ones by name, problem folders by "
        "path. Optional `match` filters by substring."
    ),
    "show_problem": (
        "Show a problem: its C source (stdin -> stdout), its first `tests` visible tests "
        "(input, expected output) and the gcc -O3 baseline assembly to beat. Hidden tests "
        "and timed inputs are never shown."
    ),
    "profile_baseline": (
        "Where the -O3 baseline spends its executed instructions (cachegrind on the "
        "visible tests): functions, loops, the `top` hottest assembly lines."
    ),
    "check_candidate": (
        "Check a whole x86-64 AT&T assembly program for a problem, as `supercoder check`: "
        "built, run on every test (hidden ones too) in the sandbox, outputs compared, and "
        "if correct timed against gcc -O3 on inputs drawn afresh (speedup with a 95% CI). "
        "`time: false` checks correctness only (seconds, not minutes). Send the whole "
        "program as `assembly`, or SEARCH/REPLACE blocks against the baseline as `edits`."
    ),
    "analyze_answer": (
        "Name the transformation kinds (vectorization, loop unrolling, ...) an answer's "
        "assembly applies to the problem's -O3 baseline, with evidence."
    ),
}


def build_server(config: McpConfig, box: Toolbox | None = None) -> Any:
    """The ``MCPServer`` with the five tools over ``box`` (default: a new ``Toolbox`` of
    ``config``), each bounded (see the module docstring)."""
    require("mcp", "mcp")
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    functions = _tools(box or Toolbox(config), _bounded(config))
    server = MCPServer(
        "supercoder",
        version=package_version(),
        instructions=(
            "Verified assembly superoptimization: list_problems, show_problem (the C, "
            "visible tests, the gcc -O3 baseline), write a faster whole x86-64 program, "
            "check_candidate (correct on every test? how much faster, with a 95% CI)."
        ),
        middleware=[_OneLineErrors(config.max_argument_bytes)],
        log_level="WARNING",
    )
    for fn in functions:
        runs_code = fn.__name__ == "check_candidate"  # the candidate runs, in the sandbox
        server.add_tool(
            fn,
            name=fn.__name__,
            description=TOOLS[fn.__name__],
            annotations=ToolAnnotations(
                read_only_hint=not runs_code,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
        )
    return server


def _bounded(config: McpConfig) -> Callable[..., Any]:
    """``bounded(work, ctx, what)``: a tool's work run as every tool's is, at most
    ``workers`` at once (see its docstring)."""
    import anyio  # lazy: httpx's dependency, used only by the server
    from mcp.server.mcpserver import Context
    from mcp.types import CallToolResult, TextContent

    limiter = anyio.CapacityLimiter(config.workers)

    async def bounded(work: Callable[[], Answer], ctx: Context, what: str) -> CallToolResult:
        """``work`` in a worker thread, answered within ``tool_seconds``; while it runs,
        a progress notification every ``PROGRESS_SECONDS`` (when the client asked for
        them: a client that resets its timeout on progress waits as long as it takes)."""

        def caught() -> tuple[Answer | None, Exception | None]:
            try:
                return work(), None
            except Exception as e:  # answered as one line below, never a traceback
                if os.environ.get("SUPERCODER_DEBUG") and not isinstance(e, SupercoderError):
                    traceback.print_exc()  # on stderr, for whoever debugs the server
                return None, e

        async def heartbeat() -> None:
            start = anyio.current_time()
            while True:
                spent = anyio.current_time() - start
                with contextlib.suppress(Exception):
                    await ctx.report_progress(spent, None, f"{what}: {spent:.0f} s")
                await anyio.sleep(PROGRESS_SECONDS)

        try:
            with anyio.fail_after(config.tool_seconds):
                async with anyio.create_task_group() as group:
                    group.start_soon(heartbeat)
                    answer, error = await anyio.to_thread.run_sync(
                        caught, abandon_on_cancel=True, limiter=limiter
                    )
                    group.cancel_scope.cancel()
        except TimeoutError:
            answer, error = None, None
        if answer is None:
            text = (
                one_line(error)
                if error
                else clip(
                    f"no answer within {config.tool_seconds:g} s (--tool-seconds); the work it "
                    "started stops by its own limits"
                )
            )
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        return CallToolResult(
            content=[TextContent(type="text", text=answer.text)], structured_content=answer.data
        )

    return bounded


def _tools(box: Toolbox, bounded: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    """The five tools over ``box``, in their order (their parameters, with descriptions,
    are what a client sees), each answering through ``bounded``."""
    from mcp.server.mcpserver import Context
    from mcp.types import CallToolResult
    from pydantic import Field  # lazy: pydantic comes with the mcp extra

    Ref = Annotated[str, Field(description="A problem's name (list_problems), or a folder's path.")]
    Asm = Annotated[
        str,
        Field(description="The whole program: x86-64 AT&T assembly, as gcc -S emits it."),
    ]
    Edits = Annotated[
        str,
        Field(
            description="Instead of assembly: SEARCH/REPLACE blocks applied to the -O3 "
            "baseline (<<<<<<< SEARCH, lines, =======, new lines, >>>>>>> REPLACE)."
        ),
    ]

    async def list_problems(
        ctx: Context,
        match: Annotated[str, Field(description="Only names containing this.")] = "",
    ) -> CallToolResult:
        return await bounded(lambda: box.list_problems(match), ctx, "listing")

    async def show_problem(
        ctx: Context,
        problem: Ref,
        tests: Annotated[int, Field(description="Visible tests to show (0-20).")] = 3,
    ) -> CallToolResult:
        return await bounded(lambda: box.show_problem(problem, tests), ctx, "building")

    async def profile_baseline(
        ctx: Context,
        problem: Ref,
        top: Annotated[int, Field(description="Hottest lines to list (1-200).")] = 15,
    ) -> CallToolResult:
        return await bounded(lambda: box.profile_baseline(problem, top), ctx, "profiling")

    async def check_candidate(
        ctx: Context,
        problem: Ref,
        assembly: Asm = "",
        time: Annotated[
            bool, Field(description="Measure the speedup (false: correctness only).")
        ] = True,
        edits: Edits = "",
    ) -> CallToolResult:
        what = "checking and timing" if time else "checking"
        return await bounded(lambda: box.check_candidate(problem, assembly, time, edits), ctx, what)

    async def analyze_answer(
        ctx: Context, problem: Ref, assembly: Asm = "", edits: Edits = ""
    ) -> CallToolResult:
        return await bounded(lambda: box.analyze_answer(problem, assembly, edits), ctx, "analysing")

    return list_problems, show_problem, profile_baseline, check_candidate, analyze_answer


class _OneLineErrors:
    """Middleware around ``tools/call``: arguments over the cap are refused before they
    are parsed, and every tool error (the SDK's own argument validation too) is one line."""

    def __init__(self, max_argument_bytes: int) -> None:
        self.max_argument_bytes = max_argument_bytes

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, dict) else {}
        size = _json_size(params.get("arguments"), self.max_argument_bytes)
        if size > self.max_argument_bytes:
            text = f"refused: arguments over the cap of {self.max_argument_bytes:,} bytes"
            return {"content": [{"type": "text", "text": text}], "isError": True}
        result = await call_next(ctx)  # the wire form (a dict)
        if isinstance(result, dict) and result.get("isError"):
            texts = [c.get("text", "") for c in result.get("content") or () if isinstance(c, dict)]
            text = re.sub(r"For further information visit \S*", "", " ".join(texts))
            return {**result, "content": [{"type": "text", "text": clip(text)}]}
        return result


def _json_size(value: Any, limit: int) -> int:
    """The size of ``value`` as JSON, counted no further than just past ``limit``."""
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2
            for k, v in item.items():
                total += len(str(k)) + 4
                stack.append(v)
        elif isinstance(item, list):
            total += 2
            stack.extend(item)
        else:
            total += 8
    return total


def serve(config: McpConfig, box: Toolbox | None = None) -> None:
    """Run the server on its transport until the client goes (stdio) or SIGTERM (HTTP).
    The served problem sets are loaded first: a bad ``--benchmark`` stops it here."""
    box = box or Toolbox(config)
    box.served()
    server = build_server(config, box)
    if config.transport is Transport.STDIO:
        server.run("stdio")
        return
    _serve_http(server, config)


def _serve_http(server: Any, config: McpConfig) -> None:
    import uvicorn

    app = BearerAuth(
        server.streamable_http_app(
            host=config.host, max_request_body_size=config.max_argument_bytes + (64 << 10)
        ),
        config.token,
    )
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((config.host, config.port))
        sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    except OSError as e:
        sock.close()
        raise UserError(f"cannot listen on {config.host}:{config.port}: {e.strerror}") from e
    port = sock.getsockname()[1]
    shown = f"[{config.host}]" if family == socket.AF_INET6 else config.host
    auth = "bearer token required" if config.token else "NO TOKEN (loopback only)"
    Console(stderr=True, markup=False, highlight=False).print(
        f"serving MCP on http://{shown}:{port}/mcp ({auth})", soft_wrap=True
    )
    # a client that sends half a request line is cut off, as by ``serve``
    protocol = header_deadline_protocol(HEADER_SECONDS)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", http=protocol)).run(
        sockets=[sock]
    )
