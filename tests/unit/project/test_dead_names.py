"""No dead names: every function, class, method and module constant the package defines
is used somewhere (the package, the tests, the benchmarks, pyproject.toml's entry points,
or a name given as text: the lazy re-exports), as a vulture-like check would say; the
few a framework calls by its own name are listed here, each with why."""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from pathlib import Path

from tests.sourcetree import SRC, nodes, python_files, tree

ROOT = SRC.parents[1]

# methods a library calls by their name (overrides), not our code
CALLED_BY_A_FRAMEWORK = {
    "add_command",  # click.Group: cli.LazyGroup
    "list_commands",  # click.Group: cli.LazyGroup
    "_missing_",  # enum.Enum: a value's older spelling
    "prepare_uv_script",  # verifiers' harness: training/verifiers_env.py
}
# a decorator that registers or only reshapes: the name is still ours to use
PLAIN = {"property", "cached_property", "staticmethod", "classmethod", "cache", "dataclass"}


@functools.cache
def used() -> Counter[str]:
    """Every identifier read in the package (names, attributes, imported names, words of
    its string constants) and every word of the tests, benchmarks and pyproject.toml."""
    seen: Counter[str] = Counter()
    for path in python_files():
        for node in nodes(path):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                seen[node.id] += 1
            elif isinstance(node, ast.Attribute):
                seen[node.attr] += 1
            elif isinstance(node, ast.ImportFrom):
                seen.update(a.name for a in node.names)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                seen.update(re.findall(r"\w+", node.value))
    others = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]
    for path in [*others, ROOT / "pyproject.toml"]:
        seen.update(re.findall(r"\w+", path.read_text(encoding="utf-8")))
    return seen


def _decorated(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """Registered by a decorator (a route, a tool, a command): called by name elsewhere."""
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name not in PLAIN:
            return True
    return False


def defined(path: Path) -> list[tuple[int, str]]:
    """(line, name) of each module-level function, class and constant of ``path``, and of
    each method of its classes (dunders, framework overrides and registered ones left out;
    a module constant bound to a call is kept: ``declare(...)`` registers a flag)."""
    out = []
    for node in tree(path).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not _decorated(node):
                out.append((node.lineno, node.name))
        elif isinstance(node, ast.Assign) and not isinstance(node.value, ast.Call):
            out += [(node.lineno, t.id) for t in node.targets if isinstance(t, ast.Name)]
        if isinstance(node, ast.ClassDef):
            out += [
                (m.lineno, f"{node.name}.{m.name}")
                for m in node.body
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                and not _decorated(m)
                and m.name not in CALLED_BY_A_FRAMEWORK
            ]
    return [(n, name) for n, name in out if not name.rpartition(".")[2].startswith("__")]


def test_no_name_is_defined_and_never_used():
    seen = used()
    dead = [
        f"{path.relative_to(SRC)}:{line}: {name}"
        for path in python_files()
        if "data" not in path.relative_to(SRC).parts  # the bundled problems' own scripts
        for line, name in defined(path)
        if not seen[name.rpartition(".")[2]]
    ]
    assert dead == []


def test_the_check_sees_a_dead_name(tmp_path):
    """A function nothing reads is found; one read anywhere is not."""
    unread = "never_read_" + "anywhere"  # spelled apart: this file's words count as reads
    module = tmp_path / "m.py"
    module.write_text(f"def {unread}():\n    pass\n\ndef main():\n    pass\n")
    assert [name for _, name in defined(module)] == [unread, "main"]
    assert not used()[unread] and used()["main"]
