"""The documentation holds: every ``*Config`` lists its fields, README and docs/*.md
render as CommonMark without a broken fence, ARCHITECTURE.md names every module, and
the README's Python example runs."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_example_runs(capsys):
    from tests.conftest import sandbox_or_skip

    text = (ROOT / "README.md").read_text()
    blocks = [t.content for t in _tokens(text) if t.type == "fence" and t.info == "python"]
    assert len(blocks) == 1 and len(blocks[0].splitlines()) <= 12
    sandbox_or_skip()
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    verdict = namespace["verdict"]
    assert verdict.correct and verdict.identical_to_baseline
    assert verdict.tests_passed == len(namespace["problem"].tests) > 0
    assert "ok" in capsys.readouterr().out


def _tokens(text: str):
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").parse(text)
