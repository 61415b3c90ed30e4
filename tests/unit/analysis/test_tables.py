"""Tables are visible: ``analyze`` names a lookup table an answer adds (its size, and
whether its index derives from the input), and a verdict says when the answer's data
grew. Real programs, built by gcc -O3 from C.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_tables.py."""

from __future__ import annotations

from supercoder.analysis.asm import parse
from supercoder.analysis.tables import data_objects


def test_data_objects_sizes_from_directives() -> None:
    text = (
        '\t.section .rodata\n\t.align 16\nA:\n\t.long 1, 2, 3\n\t.quad 7\nB:\n\t.string "ab\\n"\n'
        "\t.data\nC:\n\t.zero 100\n\t.bss\nD:\n\t.fill 10, 4, 0\n\t.comm E,4000,32\n\t.text\nmain:\n\tret\n"
    )
    sizes = {o.name: (o.section, o.size) for o in data_objects(parse(text))}
    assert sizes == {
        "A": (".rodata", 20),
        "B": (".rodata", 4),
        "C": (".data", 100),
        "D": (".bss", 40),
        "E": (".bss", 4000),
    }


def test_the_report_shows_an_answer_whose_data_grew() -> None:
    from supercoder.report.html import _row
    from supercoder.report.page import _candidate, _read_record

    def _record(d: dict, model: str):  # a run file's record, as the page shows it
        return _candidate(_read_record(d), model)

    verdict = {"problem": "p", "status": "ok", "correct": True, "speedup": 9.8}
    grew = {"baseline_bytes": 16, "candidate_bytes": 4112, "threshold_bytes": 512}
    flagged = _record({**verdict, "data": grew}, "m")
    assert "adds 4,096 bytes of data" in flagged.data_grew
    assert "adds 4,096 bytes of data" in _row(flagged, None)
    small = _record({**verdict, "data": {**grew, "candidate_bytes": 272}}, "m")
    assert small.data_grew == "" and _record(verdict, "m").data_grew == ""
