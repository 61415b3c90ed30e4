"""The documentation holds: every ``*Config`` lists its fields, README and docs/*.md
render as CommonMark without a broken fence, ARCHITECTURE.md names every module, and
the README's Python example runs.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_docs.py."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.integration.test_docs import ROOT, _tokens  # noqa: F401
from tests.sourcetree import nodes, python_files, tree  # noqa: F401

SRC = ROOT / "src" / "supercoder"


def _dataclass_fields(node: ast.ClassDef) -> list[str]:
    return [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and "ClassVar" not in ast.unparse(s.annotation)
    ]


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def undocumented_fields(source: str | Path) -> dict[str, list[str]]:
    """``*Config`` dataclass -> the fields its docstring's ``Fields:`` section leaves out
    (``source``: a module's text, or its path, parsed once per session)."""
    missing: dict[str, list[str]] = {}
    for node in nodes(source) if isinstance(source, Path) else ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ClassDef) and node.name.endswith("Config")):
            continue
        if not _is_dataclass(node):
            continue
        doc = ast.get_docstring(node) or ""
        _, found, section = doc.partition("Fields:\n")
        listed = {
            line.strip().split(":")[0]
            for line in section.splitlines()
            if line.startswith("    ") and not line.startswith("        ") and ":" in line
        }
        gaps = [f for f in _dataclass_fields(node) if not found or f not in listed]
        if gaps:
            missing[node.name] = gaps
    return missing


def test_the_checker_sees_an_undocumented_field():
    source = '''
from dataclasses import dataclass

@dataclass(frozen=True)
class ToyConfig:
    """A toy.

    Fields:
        a: documented.
            (a continuation line names no field: b)
    """

    a: int = 1
    b: int = 2

class NotADataclassConfig:
    x: int = 1
'''
    assert undocumented_fields(source) == {"ToyConfig": ["b"]}


def test_every_config_documents_every_field():
    missing = {
        f"{path.relative_to(SRC)}:{name}": gaps
        for path in python_files()
        for name, gaps in undocumented_fields(path).items()
    }
    assert missing == {}


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def fence_problems(text: str) -> list[str]:
    """Fences CommonMark (markdown-it) would render other than they read: one never
    closed (it runs to the end), or a line inside one that starts like its closing fence
    but carries text after it (not a closing fence, so what follows renders as code)."""
    from markdown_it import MarkdownIt

    lines = text.splitlines()
    problems = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start, end = token.map
        marker = token.markup  # the opening run of ` or ~
        body = lines[start + 1 : end - 1]
        last = lines[end - 1].strip() if end - 1 > start else ""
        closed = last and set(last) == {marker[0]} and len(last) >= len(marker)
        if not closed:
            body = lines[start + 1 : end]
            problems.append(f"line {start + 1}: fence never closed")
        for i, line in enumerate(body, start + 2):
            stripped = line.lstrip(" ")
            if len(line) - len(stripped) <= 3 and stripped.startswith(marker):
                problems.append(f"line {i}: {stripped[:40]!r} inside a fence is not its end")
    return problems


def test_the_fence_checker_sees_broken_fences():
    good = "text\n\n```python\nx = 1\n```\n\nmore\n\n~~~\n```\n~~~\n"
    assert fence_problems(good) == []
    glued = "```python\nx = 1\n``` The clients are small.\n\n## Heading\n\n```\ny\n```\n"
    assert fence_problems(glued) == [
        "line 3: '``` The clients are small.' inside a fence is not its end",
        "line 9: fence never closed",  # the fence meant to open at line 7 closed the first
    ]
    assert fence_problems("para\n\n```bash\nls\n") == ["line 3: fence never closed"]


def test_readme_and_docs_render_with_well_formed_fences():
    found = {str(p.relative_to(ROOT)): fence_problems(p.read_text()) for p in DOCS}
    assert {k: v for k, v in found.items() if v} == {}
    assert len(DOCS) >= 7  # README + ARCHITECTURE, measurement, sandbox, models, problems, ...


def test_readme_is_a_way_in():
    text = (ROOT / "README.md").read_text()
    assert len(text.encode()) <= 10 * 1024
    # .ci/run and CI depend on these two commands
    assert "bash scripts/setup.sh && .venv/bin/supercoder eval --benchmark val" in text
    assert ".venv/bin/python -m pytest -q" in text
    for doc in ("measurement", "sandbox", "models", "problems", "training", "ARCHITECTURE"):
        assert f"(docs/{doc}.md)" in text


def modules() -> list[str]:
    """Every module of the package (``verify/evaluate.py``, ``sandbox/runner.c``; not data/)."""
    files = sorted([*SRC.rglob("*.py"), *SRC.rglob("*.c")])
    return [str(p.relative_to(SRC)) for p in files if "data" not in p.relative_to(SRC).parts]


def plugin_modules() -> set[str]:
    """The modules pyproject.toml declares as a strategy or a model provider (``module:
    Class`` entry points): a built-in plugin is its module and that line, as a plugin
    package's is, so this file need not name it (its docstring says what it is)."""
    import tomllib

    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    out = set()
    for group in ("supercoder.strategies", "supercoder.providers"):
        for ref in groups.get(group, {}).values():
            path = ref.partition(":")[0].removeprefix("supercoder.").replace(".", "/")
            out |= {f"{path}.py", f"{path}/__init__.py"}
    return out


def unlisted(text: str, names: list[str]) -> list[str]:
    """The modules ``text`` does not name (as ``path`` in backticks)."""
    return [m for m in names if f"`{m}`" not in text]


def layer_sections(text: str, packages: list[str]) -> list[int]:
    """For each package, the index of the numbered section (``## 3. `build/`: ...``)
    that holds it."""
    sections = [t.content for t in _tokens(text) if t.type == "inline" and t.content[:1].isdigit()]
    return [next(i for i, s in enumerate(sections) if f"`{pkg}/`" in s) for pkg in packages]


def test_the_architecture_checks_see_a_missing_module_and_a_wrong_order():
    text = "## 1. `b/`: two\n\n- `b/x.py`\n\n## 2. `a/`: one\n\n- `a/y.py`\n"
    assert unlisted(text, ["a/y.py", "b/x.py", "b/z.py"]) == ["b/z.py"]
    assert layer_sections(text, ["a", "b"]) == [1, 0]


def test_architecture_lists_every_module_in_layer_order():
    from tests.unit.project.test_architecture import LAYERS

    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert "`verify/evaluate.py`" in text and len(modules()) > 100
    assert unlisted(text, [m for m in modules() if m not in plugin_modules()]) == []
    assert {"runs/evolve.py", "runs/buildsearch/__init__.py"} <= plugin_modules()
    order = layer_sections(text, [pkg for (pkg,) in LAYERS[1:-1]])
    assert order == sorted(order), "the package sections are not in layer order"
