"""The layering rule, checked on the source: no import cycles (function-level imports
count), and the leaf modules import nothing above them."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.sourcetree import nodes, python_files, tree  # noqa: F401

SRC = Path(__file__).resolve().parents[3] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """module -> supercoder modules it imports anywhere in its body (the tree is parsed
    once per test session, whichever test asks first)."""
    files = {_module_name(p): p for p in SRC.rglob("*.py")}

    def resolve(name: str) -> str:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in nodes(path):
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


def reachable(graph: dict[str, set[str]], module: str) -> set[str]:
    """Every module ``module`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


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
    leaves = {
        "supercoder.errors": set(),
        "supercoder.paths": set(),
        "supercoder.toolchain.asmtext": set(),
    }
    leaves["supercoder.timing.intervals"] = set()
    leaves["supercoder.toolchain.asmcheck"] = {"supercoder.toolchain.asmtext"}
    leaves["supercoder.codec"] = {"supercoder.errors"}
    leaves["supercoder.engine"] = {"supercoder.errors"}
    leaves["supercoder.settings"] = {"supercoder.codec"}
    leaves["supercoder.plugins"] = {"supercoder.errors"}
    leaves["supercoder.origin"] = {
        "supercoder.errors",
        "supercoder.codec",
        # the one registry: a stored answer's provenance is declared in its strategy's
        # module, which the registry names (a built-in's as a plugin's)
        "supercoder.plugins",
    }
    leaves["supercoder.types"] = {
        "supercoder.errors",
        "supercoder.paths",
        "supercoder.codec",
        "supercoder.settings",
        "supercoder.origin",  # a candidate's origin
    }
    for leaf, allowed in leaves.items():
        assert graph[leaf] <= allowed, (leaf, graph[leaf] - allowed)


LAYERS = [  # docs/ARCHITECTURE.md "Layering": a package may import only itself and earlier layers
    ["errors", "paths", "codec", "settings", "plugins", "origin", "types", "engine"],
    ["sandbox"],
    ["toolchain"],
    ["analysis"],
    ["problems"],
    ["timing"],
    ["prompting"],
    ["dataset"],
    ["verify"],
    ["models"],
    ["runs"],
    ["report"],
    ["training"],
    ["commands"],
    ["cli", "kit"],  # the public faces: the command line, the plugin kit's one import
]


def package_of(module: str) -> str:
    """``supercoder.toolchain.gcc`` -> ``toolchain``; the top-level modules are their own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_package_has_a_layer():
    ranked = {m for layer in LAYERS for m in layer} | {"__init__", "data"}
    assert {package_of(m) for m in import_graph()} <= ranked


def test_the_layers_point_one_way():
    """No package imports one of a later layer (the vocabulary imports nothing above it)."""
    rank = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    upward = sorted(
        (m, d)
        for m, deps in import_graph().items()
        if package_of(m) in rank
        for d in deps
        if rank.get(package_of(d), -1) > rank[package_of(m)]
    )
    assert upward == []


def test_the_top_level_holds_only_the_vocabulary():
    top = {p.stem for p in (SRC / "supercoder").glob("*.py")}
    assert top == {
        "__init__",
        "errors",
        "paths",
        "codec",
        "settings",
        "origin",
        "types",
        "engine",
        "plugins",
        "cli",
        "kit",  # ``supercoder.kit``: ``runs/kit.py`` re-exported for plugin authors
    }


def test_package_inits_only_re_export():
    """An ``__init__.py`` holds a docstring, imports and ``__all__``: no logic. The top
    package's re-exports are lazy (``_WHERE`` and a module ``__getattr__``: importing
    ``supercoder`` loads nothing else)."""
    for init in (SRC / "supercoder").rglob("__init__.py"):
        if "data" in init.relative_to(SRC).parts:
            continue
        top = init.parent == SRC / "supercoder"
        for node in tree(init).body:
            if top and (
                (isinstance(node, ast.FunctionDef) and node.name in ("__getattr__", "__dir__"))
                or (isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_WHERE")
            ):
                continue
            ok = isinstance(node, ast.Import | ast.ImportFrom) or (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            )
            ok = ok or (
                isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] in (["__all__"], ["__version__"])
            )
            assert ok, f"{init}: line {node.lineno} is not a re-export"


def test_models_are_model_clients_only():
    """``models/`` holds who answers: nothing there runs, checks or times a program (the
    verification service does, for every source of candidates alike)."""
    verifying = {"sandbox", "timing", "verify"}
    reach = sorted(
        (m, d)
        for m, deps in import_graph().items()
        if package_of(m) == "models"
        for d in deps
        if package_of(d) in verifying
    )
    assert reach == []
