"""`supercoder mcp`: the verifier as tools for coding agents (Model Context Protocol).
Parses the options and serves ``verify/mcp.py``'s toolbox (its module docstring: the
tools, their bounds)."""

# no "from __future__ import annotations": typer reads the options' annotations

import io
from typing import Annotated

import typer
from rich.console import Console

from supercoder.commands.display import print_verdict
from supercoder.commands.machine import current, engine_options, installs_engine
from supercoder.commands.options import CPU_LIMIT, MEMORY_MB, ServerOptions
from supercoder.commands.optionset import use, with_groups
from supercoder.types import Verdict
from supercoder.verify.mcp import MAX_CANDIDATE_BYTES, McpConfig, Toolbox, Transport, serve


@with_groups(server=use(ServerOptions, port=8766), machine=engine_options(skip=("requests",)))
@installs_engine
def mcp(
    transport: Annotated[
        Transport,
        typer.Option(help="stdio: the agent starts this command; http: streamable HTTP."),
    ] = Transport.STDIO,
    tool_seconds: Annotated[
        float,
        typer.Option(min=1, max=86400, help="Longest a tool call may take (seconds)."),
    ] = 900.0,
    cpu_limit: Annotated[float, CPU_LIMIT] = 10.0,
    memory_mb: Annotated[int, MEMORY_MB] = 2048,
    profile_seconds: Annotated[
        float, typer.Option(min=1, max=3600, help="Most seconds one profile may spend.")
    ] = 60.0,
    max_candidate_kb: Annotated[
        int, typer.Option(min=1, max=65536, help="Largest assembly a call may send (KiB).")
    ] = MAX_CANDIDATE_BYTES >> 10,
    *,
    server: ServerOptions,
) -> None:
    """Serve the verifier to coding agents over MCP: list, show, profile, check, analyze.

    Tools: list_problems, show_problem (source, visible tests, the -O3 baseline),
    profile_baseline (cachegrind on the visible tests), check_candidate (the verdict of
    supercoder check, as text and as structured content: correct? how much faster than
    gcc -O3, with its 95% CI) and analyze_answer (the transformation kinds). Hidden
    tests and the inputs drawn for timing are never shown.

    stdio (default): an agent starts this command itself; add it to Claude Code with
    claude mcp add supercoder -- supercoder mcp (docs/agents.md: codex, opencode).
    --transport http serves streamable HTTP at http://HOST:PORT/mcp behind a bearer
    token (SUPERCODER_TOKEN or --token-file; without one it refuses to start unless
    bound to loopback with --insecure-loopback).

    Problems: the bundled ones by name (or --benchmark), and problem folders under each
    --allow-root by path. Every call is bounded: the candidate's size, the arguments'
    size, --tool-seconds per call, the sandbox's limits per run; a bad argument is
    refused in one line.

    Example: supercoder mcp --allow-root ./problems
    """
    config = McpConfig(
        transport=transport,
        host=server.host,
        port=server.port,
        token=server.token() if transport is Transport.HTTP else None,
        insecure_loopback=server.insecure_loopback,
        benchmarks=server.served(),
        allow_roots=server.roots(),
        workers=current().workers,
        tool_seconds=tool_seconds,
        cpu_limit=cpu_limit,
        memory_mb=memory_mb,
        profile_seconds=profile_seconds,
        max_candidate_bytes=max_candidate_kb << 10,
    )
    config.check()
    serve(config, Toolbox(config, describe=verdict_text))


def verdict_text(verdict: Verdict) -> str:
    """The verdict as ``supercoder check`` prints it (plain text, no colour)."""
    out = io.StringIO()
    print_verdict(verdict, Console(file=out, width=120, color_system=None, highlight=False))
    return out.getvalue().rstrip()
