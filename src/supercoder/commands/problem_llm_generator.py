"""`supercoder problem llm-generator PROBLEM --model SPEC`: a model's generator and
validator for an existing problem folder (as `problem init --llm-generator` does)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from supercoder.commands.options import BASE_URL, FORCE, MODEL, generator_llm
from supercoder.errors import UserError
from supercoder.problems.loading import BUNDLED_ROOT, load_problem
from supercoder.problems.validator import LLM_FILE, LLM_GENERATOR
from supercoder.prompting.inputgen import write_pair


def llm_generator_cmd(
    problem_dir: Annotated[Path, typer.Argument(help="Problem folder.")],
    model: Annotated[str, MODEL],
    base_url: Annotated[str | None, BASE_URL] = None,
    force: Annotated[bool, FORCE] = False,
) -> None:
    """Ask an LLM for a generator and a validator of PROBLEM_DIR's inputs, and keep them
    only if they hold up.

    The model sees the C source and up to four visible inputs (prompting/inputgen.py).
    Its pair is kept, as llm_gen.py and llm_validate.py (problem.json "llm_generator"),
    only if every input of the problem passes the validator, every one of four draws of
    the generator (its smallest size to its largest) passes it too (and the problem's
    own validate.py), and the reference runs cleanly on each draw within 5 CPU seconds;
    else one line says why it was dropped (exit 0 either way: the problem is unchanged).
    A problem with its own generator (gen.py) is not asked for one. Checks then draw
    their timed inputs from the kept generator, right after a problem's own.

    Example: supercoder problem llm-generator problems/cf283a --model openai:gpt-4o
    """
    if not problem_dir.is_dir():
        raise UserError(f"{problem_dir}: not a problem folder")
    folder = problem_dir.resolve()
    if folder.is_relative_to(BUNDLED_ROOT.resolve()):
        raise UserError(f"{problem_dir}: a bundled problem; copy its folder first")
    problem = load_problem(folder)
    if problem.memorizable:
        raise UserError(f"{problem_dir}: the program reads no input: there is none to generate")
    if (folder / LLM_GENERATOR).exists() and not force:
        raise UserError(f"{problem_dir}: already has {LLM_GENERATOR} (--force replaces it)")
    ask = generator_llm(True, model, base_url, None)
    for name in (LLM_GENERATOR, LLM_FILE):
        (folder / name).unlink(missing_ok=True)
    typer.echo(f"asking {model} for a generator and a validator...", err=True)
    typer.echo(write_pair(folder, ask, model).line())
