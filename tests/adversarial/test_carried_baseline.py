"""A record (or a problem folder) that lies about its baseline: the reader builds the yardstick.

Before: a record whose ``problem_files`` carried an ``-O0`` listing as ``baseline.s``
while its prompt showed the ``-O3`` one: the ``-O3`` listing (a copy of the prompt) was
paid 3.85 by verl and 3.80 by TRL under the default reward, and ``dataset import``
wrote the ``-O0`` listing as the baseline while printing that every baseline was
rebuilt. Now a carried ``baseline.s`` is used only when byte-identical to the reader's
own ``gcc -O3`` build of the source with the problem's flags; else the reader's build is
the baseline, and the verdict (and the import) says so. Nothing here is timed: a copy
of the baseline earns ``baseline_copy`` by its identity alone.
"""

from __future__ import annotations

import json
import shutil

import pytest

from supercoder.dataset.benchmarks import load_benchmark
from supercoder.dataset.importer import import_records
from supercoder.dataset.records import problem_from_record, problem_to_record
from supercoder.problems.loading import load_problem
from supercoder.prompting.prompts import fence
from supercoder.toolchain.baseline import CARRIED_NOTE, baseline_asm, built_baseline
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Status
from supercoder.verify.evaluate import CheckConfig, evaluate
from supercoder.verify.executors import InlineExecutor
from supercoder.verify.reward import RewardConfig
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import tiny_problem


@pytest.fixture(scope="module")
def lying(tmp_path_factory):
    """(the honest problem, its -O3 listing, a record whose problem_files carry the -O0
    listing as baseline.s while its prompt shows the -O3 one)."""
    sandbox_or_skip()
    root = tmp_path_factory.mktemp("lie")
    problem = tiny_problem(root / "tiny", big=20000)
    o3 = baseline_asm(problem)
    o0 = compile_to_asm(problem.source, ("-O0",))
    assert o0 != o3
    shutil.copytree(root / "tiny", root / "lied")
    (root / "lied" / "baseline.s").write_text(o0)
    record = problem_to_record(load_problem(root / "lied"), "train", 0, o3)
    assert o3 in record["extra_info"]["question"]  # the prompt shows the -O3 listing
    bundle = json.loads(record["extra_info"]["problem_files"])
    assert {"path": "baseline.s", "text": o0} in bundle["files"]  # the record carries -O0
    assert problem_from_record(record).baseline_asm == o0
    return problem, o3, o0, record


def test_a_folder_baseline_that_is_not_the_readers_build_is_not_the_yardstick(lying, tmp_path):
    problem, o3, o0, _ = lying
    folder = tmp_path / "p"
    shutil.copytree(problem.settings.path, folder)
    (folder / "baseline.s").write_text(o0)
    lied = load_problem(folder)
    assert lied.baseline_asm == o0 and baseline_asm(lied) == built_baseline(lied) == o3
    verdict = evaluate(lied, o3, CheckConfig(time=False))
    assert verdict.correct and verdict.identical_to_baseline, verdict.message
    assert verdict.context.provenance.baseline == CARRIED_NOTE
    # an honest folder baseline (byte-identical) is used and says nothing
    (folder / "baseline.s").write_text(o3)
    honest = evaluate(load_problem(folder), o3, CheckConfig(time=False))
    assert honest.identical_to_baseline and not honest.context.provenance.baseline


def test_the_trl_and_verl_rewards_pay_a_copy_of_the_prompt_nothing(lying):
    from supercoder.training.trl_reward import make_trl_reward
    from supercoder.training.verl_reward import compute_score

    _, o3, _, record = lying
    answer = fence(o3, "assembly")
    scored = compute_score(
        data_source=record["data_source"],
        solution_str=answer,
        ground_truth=record["reward_model"]["ground_truth"],
        extra_info=record["extra_info"],
        executor=InlineExecutor(),
    )
    assert scored["correct"] == 1.0 and scored["score"] == 0.0, scored
    trl = make_trl_reward(config=RewardConfig(), executor=InlineExecutor())
    assert trl(completions=[answer], extra_info=[record["extra_info"]]) == [0.0]
    # the serialized form a trainer reads (JSON text) too
    text = json.dumps(record["extra_info"])
    assert trl(completions=[answer], extra_info=[text]) == [0.0]


def test_dataset_import_writes_and_prints_what_is_true(lying, tmp_path):
    _, o3, _, record = lying
    report = import_records([record], tmp_path, check_outputs=False)
    assert report.written == 1, report.reasons
    [imported] = load_benchmark(tmp_path / "train")
    assert imported.baseline_asm == o3  # the rebuild, not the carried -O0 listing
    assert report.carried_replaced == 1
    said = "\n".join(report.lines())
    assert "carried a baseline.s" in said and "replaced" in said
    meta = json.loads((tmp_path / "train" / imported.name / "problem.json").read_text())
    assert "not used" in meta["carried_baseline"]
    assert evaluate(imported, o3, CheckConfig(time=False)).status is Status.OK
