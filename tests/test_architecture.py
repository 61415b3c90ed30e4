"""The layering rule, checked on the source: no import cycles (function-level imports
count), and the leaf modules import nothing above them."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> supercoder modules it imports anywhere in its body."""
    files = {_module_name(p): p for p in SRC.rglob("*.py")}

    def resolve(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps.update(resolve(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                deps.update(resolve(f"{base}.{a.name}") or resolve(base) for a in node.names)
        graph[name] = {d for d in deps if d.startswith("supercoder") and d != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_leaves_import_nothing_above_them():
    graph = import_graph()
    leaves = {"supercoder.errors": set(), "supercoder.paths": set(), "supercoder.asmtext": set()}
    leaves["supercoder.intervals"] = set()
    leaves["supercoder.asmcheck"] = {"supercoder.asmtext"}
    leaves["supercoder.types"] = {"supercoder.errors", "supercoder.paths"}
    for leaf, allowed in leaves.items():
        assert graph[leaf] <= allowed, (leaf, graph[leaf] - allowed)


SPINE = [  # docs/ARCHITECTURE.md "Layering": each layer may import only layers before it
    ["errors", "paths", "asmtext", "intervals"],
    ["types", "summary"],
    ["toolchain", "sandbox", "sandbox.bwrap", "sandbox.oneshot", "asmcheck", "compare"],
    ["baseline", "reference", "calibration"],
    ["meter"],
    ["evaluate"],
    ["verify"],
    ["reward", "strategies", "metrics", "store", "runs"],
    ["report", "report.html"],
    ["training.grpo", "training.sft", "training.verl_export", "training.trl_reward"],
    ["commands.options"],
    ["commands.core", "commands.optimize", "commands.train", "commands.calibrate"],
    ["commands.llm", "cli"],
]


def test_the_spine_points_one_way():
    """No module of the documented spine imports one of a later layer."""
    rank = {f"supercoder.{m}": i for i, layer in enumerate(SPINE) for m in layer}
    graph = import_graph()
    assert set(rank) <= set(graph), set(rank) - set(graph)
    upward = [
        (m, d) for m, deps in graph.items() if m in rank for d in deps if rank.get(d, -1) > rank[m]
    ]
    assert upward == []
