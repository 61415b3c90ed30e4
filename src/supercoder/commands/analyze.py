"""`supercoder analyze`: name the transformation kinds (the paper's nine, and
``lookup_table``) a candidate applies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from supercoder.analysis import analyze as run_analysis
from supercoder.analysis.binary import crosscheck
from supercoder.commands.options import RUN, DbOpt, JsonFlag, note
from supercoder.errors import UserError, printable, read_regular
from supercoder.problems.loading import load_problem_arg, resolve_problem
from supercoder.report.page import analyze_run, kind_table, load_run
from supercoder.toolchain.baseline import baseline_asm
from supercoder.toolchain.gcc import MAX_ASM_BYTES


def _read(path: Path) -> str:
    return read_regular(path, MAX_ASM_BYTES).decode(errors="replace")


def _baseline_text(spec: Path) -> str:
    """The baseline listing: a .s file, or a problem's -O3 baseline (folder or bundled)."""
    if spec.is_file():
        return _read(spec)
    path, _ = resolve_problem(spec)
    if path.is_dir():
        return baseline_asm(load_problem_arg(spec, note))
    return _read(spec)


def analyze(
    baseline: Annotated[
        Path | None,
        typer.Argument(
            help="baseline assembly (.s), or a problem (folder or bundled name): its -O3 baseline"
        ),
    ] = None,
    candidate: Annotated[Path | None, typer.Argument(help="candidate assembly (.s)")] = None,
    run: Annotated[str | None, RUN] = None,
    db: DbOpt = None,
    as_json: JsonFlag = False,
    every: Annotated[
        bool,
        typer.Option(
            "--all-candidates",
            help="with --run: every verified candidate, not only each problem's chosen "
            "answer (what the report analyses)",
        ),
    ] = False,
    check_binary: Annotated[
        bool,
        typer.Option(
            "--check-binary", help="cross-check the parser with capstone on gcc -c output"
        ),
    ] = False,
) -> None:
    if run is not None:
        return _analyze_run(run, db, as_json, every)
    if baseline is None or candidate is None:
        raise UserError("give BASELINE.s and CANDIDATE.s, or --run RUN")

    base_text, cand_text = _baseline_text(baseline), _read(candidate)
    result = run_analysis(base_text, cand_text)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print_labels(result, f"{baseline.name} -> {candidate.name}")
    if check_binary:
        _check_binary({baseline.name: base_text, candidate.name: cand_text})


def _print_labels(result, title: str) -> None:
    table = Table(title=printable(title, newlines=False), show_lines=True)
    table.add_column("kind", style="bold cyan")
    table.add_column("evidence")
    for label in result.labels:
        table.add_row(label.kind, printable("\n".join(label.evidence)))
    if not result.labels:
        table.add_row("-", result.note or "no transformation found")
    Console(markup=False).print(table)


def _check_binary(texts: dict[str, str]) -> None:
    for name, text in texts.items():
        bad = crosscheck(text)
        status = (
            "agrees with capstone"
            if not bad
            else "; ".join(
                f"{m.function}:{m.mnemonic} parsed {m.parsed} decoded {m.decoded}" for m in bad
            )
        )

        typer.echo(printable(f"{name}: parser {status}"))


def _analyze_run(name: str, db: Path | None, as_json: bool, every: bool = False) -> None:
    data = load_run(db, name)
    analyzed = analyze_run(data, best_only=not every)
    what = "verified candidates" if every else "chosen answers (one per problem, as the report)"
    stats = kind_table(analyzed)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "run": data.name,
                    "analysed": "every verified candidate" if every else "chosen answers",
                    "kinds": [
                        {"kind": s.kind, "count": s.count, "geomean_speedup": s.mean_speedup}
                        for s in stats
                    ],
                    "candidates": [
                        {"problem": r.problem, "speedup": r.speedup, **a.to_json()}
                        for r, a in analyzed
                    ],
                },
                indent=2,
            )
        )
        return
    console = Console(markup=False)

    table = Table(title=printable(f"run {data.name}: {len(analyzed)} {what} analysed", False))
    for col in ("kind", "candidates" if every else "chosen answers", "geomean speedup"):
        table.add_column(col, justify="left" if col == "kind" else "right")
    for s in stats:
        table.add_row(s.kind, str(s.count), f"{s.mean_speedup:.3f}" if s.mean_speedup else "-")
    console.print(table)
    for record, result in analyzed:
        speed = f"{record.speedup:.3f}x" if record.speedup else "n/a"
        _print_labels(result, f"{record.problem} ({speed})")
