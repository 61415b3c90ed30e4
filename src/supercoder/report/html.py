"""Render an eval run as one self-contained HTML page (inline CSS, JS and SVG).

Every piece of assembly, model or problem text is untrusted and goes through
``html.escape``; numbers are written as formatted numbers only. The page loads nothing
from outside, and its CSP allows only its own inline script, by hash.
"""

from __future__ import annotations

import difflib
import json
import math
from html import escape
from importlib import resources
from string import Template
from typing import Any

from supercoder.analysis.core import Analysis
from supercoder.toolchain.gcc import is_noise_line
from supercoder.types import MEMORIZABLE_WHY, NO_DRAW

_CODE_NOISE = ("\t.cfi_", "\t.p2align", "\t.align")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return escape(str(value))
    if isinstance(value, int | float) and not math.isfinite(value):
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return escape(str(value))


# figures that only a timed run measures (shown "not measured" when nothing was timed)
_TIMING_FIGURES = frozenset(
    {"fast_1.1", "timed_share", "significant_speedups", "significant_slowdowns"}
)


def _summary_cards(summary: Any, compiler: Any | None, compiler_name: str = "") -> str:
    """One card per ``RunSummary.headline()`` figure; ``data-value`` is the figure exactly
    as ``eval --json`` writes it (JSON), the card shows it with its unit
    (``summary.figure_text``: ``48.0%``, ``1.204x``, ``13``), and beside it the figure of
    the ``compiler`` model's run on the same benchmark, named."""
    from supercoder.runs.summary import figure_text

    cards = []
    theirs = compiler.headline() if compiler is not None else None
    unmeasured = not summary.timed_share  # nothing timed: no timing figure is shown
    for key, value in summary.headline().items():
        shown = "not measured" if unmeasured and key in _TIMING_FIGURES else figure_text(key, value)
        beside = ""
        if theirs is not None:
            beside = (
                f"<br><small>compiler model ({escape(compiler_name or 'run')}, same "
                f"benchmark): {escape(figure_text(key, theirs.get(key)))}</small>"
            )
        label = escape(key.replace("_", " "))
        cards.append(
            f'<div class="card" data-figure="{escape(key)}" '
            f'data-value="{escape(json.dumps(value))}"><b>{escape(shown)}</b>'
            f"<br>{label}{beside}</div>"
        )
    return "".join(cards)


def speedup_plot(speedups: list[float], width: int = 640, height: int = 180) -> str:
    """Inline SVG histogram of speedups on a log2 axis, with a line at 1x."""
    vals = [v for v in speedups if v and v > 0]
    if not vals:
        return "<p>No verified candidates with a measured speedup.</p>"
    lo = math.floor(min(math.log2(min(vals)), -1.0))
    hi = math.ceil(max(math.log2(max(vals)), 1.0))
    bins_per_octave = 4
    nbins = (hi - lo) * bins_per_octave
    counts = [0] * nbins
    for v in vals:
        counts[min(int((math.log2(v) - lo) * bins_per_octave), nbins - 1)] += 1
    pad, top = 30, max(counts)
    bw = (width - 2 * pad) / nbins
    parts = [
        f'<svg role="img" aria-label="speedup histogram" width="{width}" '
        f'height="{height + 30}" viewBox="0 0 {width} {height + 30}">'
    ]
    for k, c in enumerate(counts):
        h = (height - 20) * c / top
        x = pad + k * bw
        parts.append(
            f'<rect x="{x:.1f}" y="{height - h:.1f}" width="{bw - 1:.1f}" '
            f'height="{h:.1f}" fill="#4f7fd9"><title>{c}</title></rect>'
        )
    for octave in range(lo, hi + 1):
        x = pad + (octave - lo) * bins_per_octave * bw
        color = "#b42318" if octave == 0 else "#c5cad1"
        parts.append(f'<line x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{height}" stroke="{color}"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{height + 16}" text-anchor="middle">{2.0**octave:g}x</text>'
        )
    parts.append(f'<text x="{pad}" y="10">n = {len(vals)}, max bin {top}</text></svg>')
    return "".join(parts)


def _kinds_table(stats: list[Any], total: int) -> str:
    rows = "".join(
        f"<tr><td><span class='kind'>{escape(s.kind)}</span></td><td class='num'>{s.count}</td>"
        f"<td class='num'>{_fmt(s.mean_speedup)}</td></tr>"
        for s in stats
    )
    return (
        f"<table><tr><th>kind</th><th>chosen answers (of {total} analysed, one per "
        "problem)</th>"
        f"<th>geomean speedup</th></tr>{rows}</table>"
    )


def _code_lines(asm: str) -> list[tuple[int, str]]:
    return [
        (n, line)
        for n, line in enumerate(asm.splitlines(), start=1)
        if line.strip() and not is_noise_line(line) and not line.startswith(_CODE_NOISE)
    ]


def _in_loops(spans: tuple[tuple[str, str, int, int], ...]) -> set[int]:
    return {n for _, _, first, last in spans for n in range(first, last + 1)}


DIFF_CONTEXT = 3  # unchanged lines shown around each change
MAX_DIFF_ROWS = 250  # rows of one answer's diff at most (the page stays small)


def side_by_side(
    base: str,
    cand: str,
    analysis: Analysis | None,
    context: int = DIFF_CONTEXT,
    max_rows: int = MAX_DIFF_ROWS,
) -> str:
    """A two-column diff of the changes, ``context`` unchanged lines around each (longer
    unchanged runs collapse to one row saying how many), at most ``max_rows`` rows (a
    row says how many more); lines inside loops (from the CFG analysis) get a marker."""
    b, c = _code_lines(base), _code_lines(cand)
    hot_b = _in_loops(analysis.base_loops) if analysis else set()
    hot_c = _in_loops(analysis.cand_loops) if analysis else set()
    matcher = difflib.SequenceMatcher(
        None, [t.strip() for _, t in b], [t.strip() for _, t in c], autojunk=False
    )
    rows: list[str] = []
    total = 0
    for group in matcher.get_grouped_opcodes(context):
        if rows or group[0][1] > 0:
            rows.append(_skip_row(group[0][1] - (total if rows else 0)))
        for tag, i1, i2, j1, j2 in group:
            css = {"equal": "", "replace": "chg", "delete": "del", "insert": "add"}[tag]
            for k in range(max(i2 - i1, j2 - j1)):
                left = b[i1 + k] if i1 + k < i2 else None
                right = c[j1 + k] if j1 + k < j2 else None
                rows.append(
                    f'<tr class="{css}">{_cell(left, hot_b, "b")}{_cell(right, hot_c, "c")}</tr>'
                )
        total = group[-1][2]
    if len(rows) > max_rows:
        rows = [*rows[:max_rows], _note_row(f"{len(rows) - max_rows} more rows not shown")]
    return (
        '<table class="diff"><tr><th></th><th>baseline</th><th></th><th>candidate</th></tr>'
        + "".join(rows)
        + "</table>"
    )


def _skip_row(lines: int) -> str:
    return _note_row(f"{lines} unchanged lines") if lines > 0 else ""


def _note_row(text: str) -> str:
    return f'<tr class="skip"><td class="ln"></td><td colspan="3">&hellip; {escape(text)}</td></tr>'


def _cell(line: tuple[int, str] | None, hot: set[int], side: str) -> str:
    if line is None:
        return '<td class="ln"></td><td class="code"></td>'
    n, text = line
    loop = " loop" if n in hot else ""
    return (
        f'<td class="ln{loop}">{n}</td>'
        f'<td class="code {side}{loop}">{escape(text.expandtabs(8))}</td>'
    )


def _labels_cell(analysis: Analysis | None) -> str:
    if analysis is None:
        return ""
    out = []
    for label in analysis.labels:
        ev = "".join(f"<li>{escape(e)}</li>" for e in label.evidence)
        out.append(
            f"<div><span class='kind'>{escape(label.kind)}</span>"
            f"<ul class='evidence'>{ev}</ul></div>"
        )
    return "".join(out) or "<i>no transformation found</i>"


def _row(record: Any, analysis: Analysis | None) -> str:
    verdict = "ok" if record.correct else "bad"
    ci = f"[{float(record.ci[0]):.3f}, {float(record.ci[1]):.3f}]" if record.ci else "-"
    speed = float(record.speedup) if isinstance(record.speedup, int | float) else 0.0
    diff = ""
    name = escape(record.problem) + (
        f" <span class='copy' title='{MEMORIZABLE_WHY}, or {NO_DRAW}: an answer may "
        "print its output without computing it; counted apart'>memorizable</span>"
        if getattr(record, "memorizable", False)
        else ""
    )
    if record.baseline_copy:
        note = "<span class='copy'>the answer is the gcc -O3 baseline itself</span>"
        return (
            f'<tr data-correct="{int(bool(record.correct))}" data-speedup="{speed:.6g}" '
            f'data-baseline="1"><td>{name}</td><td class="{verdict}">'
            f"{escape(record.status)} (baseline)</td><td class='num'>{_fmt(record.speedup)}</td>"
            f"<td class='num'>{ci}</td><td>{note}</td></tr>"
        )
    if record.asm and record.baseline_asm:
        diff = (
            "<details><summary>assembly diff</summary>"
            f"{side_by_side(record.baseline_asm, record.asm, analysis)}</details>"
        )
    msg = f"<div class='evidence'>{escape(record.message[:300])}</div>" if record.message else ""
    runs_on = getattr(record, "runs_on", "")
    msg += f"<div class='evidence isa'>{escape(runs_on)}</div>" if runs_on else ""
    grew = getattr(record, "data_grew", "")
    msg += f"<div class='evidence data'>{escape(grew)}</div>" if grew else ""
    return (
        f'<tr data-correct="{int(bool(record.correct))}" data-speedup="{speed:.6g}">'
        f"<td>{name}</td><td class='{verdict}'>{escape(record.status)}"
        f"{msg}</td><td class='num'>{_fmt(record.speedup)}</td><td class='num'>{ci}</td>"
        f"<td>{_labels_cell(analysis)}{diff}</td></tr>"
    )


def lineage_html(lineages: Any) -> str:
    """Per problem of an evolve run, the best program's lineage: each step's edit (the
    model's answer that made it) and its speedup vs gcc -O3 with the CI."""
    if not lineages:
        return ""
    parts = ["<h2>Lineage of the best program</h2>"]
    for problem, steps in lineages:
        rows = []
        for k, s in enumerate(steps):
            ci = f"[{s.ci[0]:.3f}, {s.ci[1]:.3f}]" if s.ci else "-"
            edit = (
                f"<details><summary>edit</summary><pre>{escape(s.edit)}</pre></details>"
                if s.edit
                else ""
            )
            rows.append(
                f"<tr><td class='num'>{k}</td><td>#{s.program}</td><td>{escape(s.kind)}</td>"
                f"<td>{escape(s.model)}</td><td class='num'>{_fmt(s.speedup)}</td>"
                f"<td class='num'>{ci}</td><td>{edit}</td></tr>"
            )
        parts.append(
            f"<h3>{escape(problem)}</h3><table class='lineage'><thead><tr><th>step</th>"
            "<th>program</th><th>kind</th><th>model</th><th>speedup</th><th>95% CI</th>"
            f"<th>edit</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    return "\n".join(parts)


def render(page: Any) -> str:
    """The whole page from a ``report.Page`` (the run's figures, computed by the caller)."""
    run, analyzed, records = page.run, page.analyzed, page.records
    by_record = {id(r): a for r, a in analyzed}
    raw = (
        resources.files("supercoder").joinpath("templates/report.html").read_text(encoding="utf-8")
    )
    template = Template(raw)
    speedups = [r.speedup for r in records if r.correct and r.speedup]
    return template.substitute(
        title=escape(run.name),
        model=escape(run.model),
        count=len(records),
        summary=_summary_cards(page.summary, page.compiler_summary, page.compiler_name),
        plot=speedup_plot(speedups),
        kinds=_kinds_table(page.kinds, len(analyzed)),
        rows="\n".join(_row(r, by_record.get(id(r))) for r in records),
        lineage=lineage_html(getattr(run, "lineages", ())),
        script_hash=script_hash(raw),
    )


def script_hash(page: str) -> str:
    """The CSP source allowing exactly the page's own inline script (by its SHA-256) and
    no other: text injected into the page could never run as script."""
    import base64
    import hashlib
    import re

    found = re.search(r"<script>(.*?)</script>", page, re.S)
    body = found.group(1) if found else ""
    return f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
