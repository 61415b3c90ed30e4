"""The house's figures for one or more git revisions, side by side (issue 37).

    .venv/bin/python benchmarks/house_figures.py 4cf787e HEAD

Each revision is exported with ``git archive`` into a temporary folder and read as text
(nothing of it is run, except the typer app walk, which imports that revision's
``supercoder.cli`` in a child process with its ``src`` first on ``sys.path``). Rows:

- long flags declared at more than one site: string literals ``"--x"`` passed to
  ``typer.Option(...)`` / ``flags(...)`` / ``declare(...)`` in ``src/``, counted per flag;
- long flags with more than one help text: every command of the typer app walked;
- ``monkeypatch.`` uses under ``tests/``, and lines naming ``monkeypatch`` at all;
- imports inside functions, and their share of every import in ``src/``;
- ``Any`` names and ``dict[str, Any]`` / ``Mapping[str, Any]`` spellings in ``src/``;
- hand-written ``to_json`` / ``from_json`` definitions and ``.context.get(`` reads;
- places that build a thread or process pool; command modules importing another command;
- the time a fresh ``import supercoder.cli`` takes (best of three);
- test files and tests per tier (``tests/unit``, ``tests/integration``, ``tests/adversarial``,
  the rest);
- (issue 43) the files besides a built-in strategy's own module that name it (its module
  or its classes: what adding such a strategy touches), ``.meta[`` / ``.meta.get(`` reads
  of a problem's settings by key, the CPU a fresh ``import supercoder.cli`` takes (best
  of three: load does not decide it), the unit tier's CPU (``pytest tests/unit``, this
  process's children; ``--no-unit`` skips it), modules over 700 lines and the longest
  function.
"""

from __future__ import annotations

import argparse
import ast
import functools
import io
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

APP_WALK = r"""
import json, sys
import typer.main
from supercoder.cli import app
helps = {}
def walk(cmd, path):
    for p in getattr(cmd, "params", []):
        for name in p.opts + list(getattr(p, "secondary_opts", [])):
            if name.startswith("--"):
                helps.setdefault(name, set()).add((getattr(p, "help", "") or "").strip())
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        walk(sub, path + [name])
walk(typer.main.get_command(app), [])
print(json.dumps({k: sorted(v) for k, v in helps.items()}))
"""


def export(rev: str, into: Path) -> Path:
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


@functools.cache
def text(path: Path) -> str:
    return path.read_text()


@functools.cache
def syntax(path: Path) -> ast.Module:
    """Each file is parsed once, however many counts read it."""
    return ast.parse(text(path))


def py_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if p.is_file())


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def flag_sites(src: Path) -> Counter[str]:
    sites: Counter[str] = Counter()
    for path in py_files(src):
        for node in ast.walk(syntax(path)):
            if isinstance(node, ast.Call) and _call_name(node) in {"Option", "flags", "declare"}:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        for name in arg.value.split("/"):
                            if name.startswith("--"):
                                sites[name] += 1
    return sites


def imports(src: Path) -> tuple[int, int]:
    inside = total = 0
    for path in py_files(src):
        tree = syntax(path)
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        nested = {
            id(m) for f in funcs for m in ast.walk(f) if isinstance(m, ast.Import | ast.ImportFrom)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                total += 1
                inside += id(node) in nested
    return inside, total


def any_names(src: Path) -> int:
    n = 0
    for path in py_files(src):
        for node in ast.walk(syntax(path)):
            n += isinstance(node, ast.Name) and node.id == "Any"
            n += isinstance(node, ast.Attribute) and node.attr == "Any"
    return n


def grep(src: Path, pattern: str) -> int:
    rx = re.compile(pattern)
    return sum(len(rx.findall(text(p))) for p in py_files(src))


def command_imports(pkg: Path) -> int:
    """Imports of a command module (one ``cli.py`` registers) by another file of
    ``commands/`` (shared modules such as ``options`` are not commands)."""
    commands = pkg / "commands"
    cli = syntax(pkg / "cli.py")
    names = {
        a.name
        for node in ast.walk(cli)
        if isinstance(node, ast.ImportFrom) and node.module == "supercoder.commands"
        for a in node.names
    }
    shared = {p.stem for p in commands.glob("*.py")} - names
    n = 0
    for path in commands.glob("*.py"):
        for node in ast.walk(syntax(path)):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if parts[:2] == ["supercoder", "commands"] and len(parts) > 2:
                    n += parts[2] in names and parts[2] not in shared
                elif parts[:2] == ["supercoder", "commands"]:
                    n += any(a.name in names - shared for a in node.names)
    return n


def tests_per_tier(tests: Path) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for path in tests.rglob("test_*.py"):
        rel = path.relative_to(tests).parts
        tier = rel[0] if rel[0] in {"unit", "integration", "adversarial"} else "other"
        out[tier][0] += 1
        out[tier][1] += len(re.findall(r"^\s*(?:async )?def test_", path.read_text(), re.M))
    return {k: (v[0], v[1]) for k, v in out.items()}


def app_helps(tree: Path) -> dict[str, list[str]] | None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(tree / 'src')!r})\n" + APP_WALK,
        ],
        capture_output=True,
        text=True,
        cwd=tree,
    )
    if done.returncode:
        print(
            f"  (typer app walk failed: {done.stderr.strip().splitlines()[-1:]})", file=sys.stderr
        )
        return None
    return json.loads(done.stdout)


# a built-in strategy: its own module (or package: a folder, every file in it its own;
# the build search became ``runs/buildsearch/`` in issue 43, with the records that were
# ``runs/trials.py``), and the names that are its own
BUILTINS = {
    "evolve": (("runs/evolve.py",), ("Evolve", "EvolveConfig", "EvolveProvenance", "StartFrom")),
    "builds": (
        ("runs/buildsearch.py", "runs/buildsearch/"),
        ("BuildSearch", "BuildsConfig", "BuildProvenance", "SearchRecord"),
    ),
}


def strategy_files(tree: Path, name: str) -> int:
    """Files besides the strategy's own module or package naming it (an import of it or
    of one of its modules) or one of its classes (``src/`` and ``pyproject.toml``): what
    adding a strategy like it touches."""
    pkg = tree / "src" / "supercoder"
    own, names = BUILTINS[name]
    module = "supercoder." + own[0].removesuffix(".py").replace("/", ".")
    n = int(module in text(tree / "pyproject.toml"))
    for path in py_files(pkg):
        rel = str(path.relative_to(pkg))
        if rel in own or any(o.endswith("/") and rel.startswith(o) for o in own):
            continue
        for node in ast.walk(syntax(path)):
            hit = (
                isinstance(node, ast.ImportFrom)
                and (
                    node.module == module
                    or (node.module or "").startswith(module + ".")
                    or any(a.name in names for a in node.names)
                )
            ) or (isinstance(node, ast.Name | ast.Attribute) and _name(node) in names)
            if hit:
                n += 1
                break
    return n


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def long_modules(pkg: Path, limit: int = 700) -> int:
    return sum(1 for p in py_files(pkg) if text(p).count("\n") > limit)


def longest_function(pkg: Path) -> str:
    best = (0, "")
    for path in py_files(pkg):
        for node in ast.walk(syntax(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                best = max(best, (size, f"{path.relative_to(pkg).with_suffix('')}.{node.name}"))
    return f"{best[0]} ({best[1].split('/')[-1]})"


def import_cpu(tree: Path, runs: int = 3) -> float:
    """The least CPU (user + system) of ``runs`` fresh imports of ``supercoder.cli``."""
    code = (
        f"import sys, time; sys.path.insert(0, {str(tree / 'src')!r}); t = time.process_time()\n"
        "import supercoder.cli\nprint(time.process_time() - t)"
    )
    times = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=tree
        )
        times.append(float(done.stdout.strip() or "nan"))
    return min(times)


def unit_tier_cpu(tree: Path) -> str:
    """CPU seconds (user + system, every process) of ``pytest -q tests/unit`` in ``tree``."""
    import os
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree / "src") + os.pathsep + str(tree)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/unit"],
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = (done.stdout.strip().splitlines() or ["?"])[-1]
    return f"{cpu:.0f} ({tail.split(' in ')[0]})"


def import_seconds(tree: Path, runs: int = 3) -> float:
    """The fastest of ``runs`` fresh imports of ``supercoder.cli`` (what every command pays)."""
    code = (
        f"import sys, time; sys.path.insert(0, {str(tree / 'src')!r}); t = time.perf_counter()\n"
        "import supercoder.cli\nprint(time.perf_counter() - t)"
    )
    times = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=tree
        )
        times.append(float(done.stdout.strip() or "nan"))
    return min(times)


def figures(tree: Path, unit: bool = True) -> dict[str, str]:
    src = tree / "src"
    pkg = src / "supercoder"
    sites = flag_sites(src)
    helps = app_helps(tree)
    inside, total = imports(src)
    tiers = tests_per_tier(tree / "tests")
    rows = {
        "long flags declared at >1 site": str(sum(1 for n in sites.values() if n > 1)),
        "long flag declaration sites": str(sum(sites.values())),
        "long flags with >1 help text": "?"
        if helps is None
        else str(sum(1 for v in helps.values() if len(v) > 1)),
        "monkeypatch uses (tests/)": str(grep(tree / "tests", r"\bmonkeypatch\.")),
        "lines naming monkeypatch (tests/)": str(
            grep(tree / "tests", r"(?m)^.*\bmonkeypatch\b.*$")
        ),
        "imports inside functions": f"{inside} of {total} ({100 * inside / max(total, 1):.0f}%)",
        "Any names (src/)": str(any_names(src)),
        "dict[str, Any] / Mapping[str, Any]": str(grep(src, r"(?:dict|Mapping)\[str, Any\]")),
        "to_json/from_json definitions": str(grep(src, r"def (?:to_json|from_json)\(")),
        ".context.get( / .context[": str(grep(src, r"\.context(?:\.get\(|\[)")),
        "places building a pool": str(grep(src, r"(?:ThreadPool|ProcessPool)Executor\(")),
        "command modules importing a command": str(command_imports(pkg)),
        "import supercoder.cli, best of 3 (s)": f"{import_seconds(tree):.2f}",
        "import supercoder.cli CPU, best of 3 (s)": f"{import_cpu(tree):.2f}",
        "files a built-in strategy touches: evolve": str(strategy_files(tree, "evolve")),
        "files a built-in strategy touches: builds": str(strategy_files(tree, "builds")),
        ".meta[ / .meta.get( reads (src/)": str(grep(src, r"\.meta(?:\[|\.get\()")),
        "modules over 700 lines": str(long_modules(pkg)),
        "longest function (lines)": longest_function(pkg),
        "unit tier CPU (s)": unit_tier_cpu(tree) if unit else "-",
        # the build proposer's own module: models/compiler.py while it was a model, then
        # the builds strategy's module and the strategy registry (its older name)
        "strings 'compiler' outside its own module(s)": str(
            sum(
                len(re.findall(r"[\"']compiler", text(p)))
                for p in py_files(pkg)
                if p.stem not in own_modules(pkg) and "buildsearch" not in p.parts
            )
        ),
    }
    for tier in ("unit", "integration", "adversarial", "other"):
        files, tests = tiers.get(tier, (0, 0))
        rows[f"tests/{tier}: files, test functions"] = f"{files}, {tests}"
    return rows


def own_modules(pkg: Path) -> tuple[str, ...]:
    """The modules allowed to name the build proposer ``compiler`` in a revision (and
    every module of the ``buildsearch`` package, once it is one)."""
    if (pkg / "models" / "compiler.py").exists():
        return ("compiler",)
    return ("buildsearch", "registry")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="+", help="git revisions, e.g. 4cf787e HEAD")
    ap.add_argument("--no-unit", action="store_true", help="skip the unit tier's CPU (minutes)")
    args = ap.parse_args()
    table: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, rev in enumerate(args.revs):
            table[rev] = figures(export(rev, Path(tmp) / str(i)), unit=not args.no_unit)
    names = list(next(iter(table.values())))
    width = max(len(n) for n in names)
    print(f"{'':{width}}  " + "  ".join(f"{r:>16}" for r in args.revs))
    for name in names:
        print(f"{name:{width}}  " + "  ".join(f"{table[r][name]:>16}" for r in args.revs))


if __name__ == "__main__":
    main()
