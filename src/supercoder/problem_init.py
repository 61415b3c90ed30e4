"""Make problem folders: expected outputs come from running the reference build.

The reference is the user's own C program (not model output); it is still run in
the sandbox when one is available, with the same limits as candidates.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from supercoder.errors import UserError
from supercoder.toolchain import compile_c

INLINE_LIMIT = 64 * 1024  # inputs larger than this are stored as .gen specs when a generator exists


@dataclass(frozen=True)
class RefRun:
    output: bytes
    cpu_seconds: float


def reference_runs(
    source: str, inputs: list[bytes], timeout: float = 20.0, repeat: int = 2
) -> list[RefRun]:
    """Build ``source`` at -O3 and run it twice (``repeat``) on each input.

    Raises UserError if it fails, times out, or prints different output on the two runs.
    """
    from supercoder.sandbox import Limits, open_sandbox

    with tempfile.TemporaryDirectory(prefix="sc-ref-") as tmp:
        build = compile_c(source, Path(tmp) / "ref")
        if not build.ok or build.binary is None:
            raise UserError(f"the reference C program does not compile:\n{build.log}")
        limits = Limits(cpu_seconds=timeout, wall_seconds=2 * timeout)
        results = []
        with open_sandbox({"ref": build.binary}, limits=limits) as box:
            for i, data in enumerate(inputs):
                first = box.run("ref", data)
                second = box.run("ref", data) if repeat > 1 else first
                for run in (first, second):
                    if not run.clean_exit:
                        raise UserError(
                            f"the reference program failed on input #{i}: {run.describe()}"
                        )
                if first.stdout != second.stdout:
                    raise UserError(
                        f"the reference program is non-deterministic on input #{i}: "
                        "two runs printed different output; fix the program or drop that input"
                    )
                results.append(RefRun(first.stdout, min(first.cpu_seconds, second.cpu_seconds)))
        return results


def init_problem(
    source_path: Path, inputs_dir: Path, out_dir: Path, hidden_dir: Path | None = None
) -> Path:
    """``supercoder problem init``: a problem folder from a C file and input files."""
    if not source_path.is_file():
        raise UserError(f"{source_path}: no such C file")
    source = source_path.read_text()
    groups = [("tests", _input_files(inputs_dir))]
    if hidden_dir is not None:
        groups.append(("hidden", _input_files(hidden_dir)))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "source.c").write_text(source)
    for sub, files in groups:
        runs = reference_runs(source, [f.read_bytes() for f in files])
        (out_dir / sub).mkdir(exist_ok=True)
        for f, run in zip(files, runs, strict=True):
            (out_dir / sub / f"{f.stem}.in").write_bytes(f.read_bytes())
            (out_dir / sub / f"{f.stem}.out").write_bytes(run.output)
    meta = {"name": out_dir.name, "origin": str(source_path)}
    (out_dir / "problem.json").write_text(json.dumps(meta, indent=2) + "\n")
    return out_dir


def _input_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise UserError(f"{folder}: not a folder of input files")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise UserError(f"{folder}: no input files")
    return files


def gen_spec(seed: int, size: int, data: bytes) -> dict:
    return {"seed": seed, "size": size, "sha256": hashlib.sha256(data).hexdigest()}
