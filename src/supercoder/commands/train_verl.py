"""`supercoder train verl`: everything verl 0.9.x needs, written to one folder."""

from __future__ import annotations

from dataclasses import replace
from enum import StrEnum
from typing import Annotated

import typer

from supercoder.commands.options import BENCHMARK
from supercoder.commands.optionset import with_config
from supercoder.dataset.benchmarks import load_benchmark
from supercoder.training.verl_export import ALGOS, VerlExportConfig, export_verl
from supercoder.training.verl_scripts import Algo


class AlgoChoice(StrEnum):
    """``--algo``: verl's algorithms (``verl_scripts.Algo``), or both."""

    PPO = Algo.PPO.value
    GRPO = Algo.GRPO.value
    BOTH = "both"


@with_config(VerlExportConfig, "opts", skip=("algos",))
def verl(
    algo: Annotated[AlgoChoice, typer.Option(help="ppo, grpo or both.")] = AlgoChoice.PPO,
    benchmark: Annotated[str, BENCHMARK] = "train",
    val: Annotated[str, typer.Option(help="Validation problems.")] = "val",
    *,
    opts: VerlExportConfig,
) -> None:
    """Write verl's train/val Parquet, the reward module and launch scripts (verl 0.9.x).

    --benchmark names the training problems, --val the validation ones; --out the export
    folder (parquet files, reward.py, launch scripts, budget.json).

    Every prompt and -O3 answer is measured with the model's tokenizer; the token limits
    cover them unless given, problems that do not fit are named and left out, and the
    export refuses when fewer than one batch of training problems fit.
    """
    opts = replace(opts, algos=ALGOS if algo is AlgoChoice.BOTH else (algo.value,))
    for path in export_verl(load_benchmark(benchmark), load_benchmark(val), opts, echo=typer.echo):
        typer.echo(str(path))
