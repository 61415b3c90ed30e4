"""The same problem on every path: one answer, one reward, however it is judged.

Before: a training record (``dataset/records.py``) carried the C code and the tests
only, so the TRL reward (``extra_info`` column) and verl's ``compute_score`` judged a
thinner problem than ``check``: a problem that reads no input lost its ``memorizable``
mark (``check`` paid a precomputed answer 0, TRL 74.3 and verl 80.9), and a problem
whose ``input_model.json`` the user widened lost it (``check`` paid an answer right only
over the visible span 0, TRL and verl ~10). Now a record carries the problem whole
(``problem_files``) and every reward path restores it: ``check``, ``eval`` (its store),
``score_batch``, the TRL reward (the ``problem`` column, ``extra_info`` as a dict and as
JSON text, completions as text and as chat messages) and verl's ``compute_score``
(through verl's own dataset and naive reward manager, from the exported parquet) pay
the same answer the same reward: 0 for both answers here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from supercoder.problems.inputmodel import model_for
from supercoder.problems.loading import load_problem
from supercoder.toolchain.gcc import compile_to_asm
from supercoder.types import Problem, Status
from supercoder.verify.reward import default_reward, score_batch
from tests.conftest import sandbox_or_skip
from tests.fakes.tiny_model import FAST_SOURCE, tiny_problem

# reads no input; its -O3 build keeps a volatile accumulator: ~10 ms
NO_INPUT = r"""#include <stdio.h>
int main(void) {
    volatile unsigned long s = 0;
    for (unsigned long i = 0; i < 4000000UL; i++) s += i ^ (i >> 3);
    printf("%lu\n", (unsigned long)s);
    return 0;
}
"""
BIG = 2_000_000  # the largest visible n of tiny_sum
WIDE = 20 * BIG  # the user widened input_model.json to this


def precomputed(output: bytes) -> str:
    """The memorizable problem's answer: its output, printed."""
    text = output.decode().strip()
    return compile_to_asm(f'#include <stdio.h>\nint main(void) {{ puts("{text}"); return 0; }}\n')


def visible_span_only() -> str:
    """tiny_sum's closed form over the visible span [0, BIG], nonsense above it."""
    source = FAST_SOURCE.replace("long q = n / 7", f"if (n > {BIG}) n = 0;\n    long q = n / 7")
    return compile_to_asm(source)


def widen(node: object) -> object:
    """The inferred model with every int range up to BIG reaching WIDE instead."""
    if isinstance(node, dict):
        return {
            k: [v[0], WIDE] if k == "int" and v == [0, BIG] else widen(v) for k, v in node.items()
        }
    if isinstance(node, list):
        return [widen(v) for v in node]
    return node


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list[tuple[Problem, str]]:
    sandbox_or_skip()
    root = tmp_path_factory.mktemp("same")
    memo = root / "no_input"
    (memo / "tests").mkdir(parents=True)
    (memo / "source.c").write_text(NO_INPUT)
    (memo / "problem.json").write_text(json.dumps({"reads_input": False}))
    (memo / "tests" / "t0.in").write_text("")
    import subprocess

    binary = root / "ref"
    subprocess.run(["gcc", "-O2", "-x", "c", "-", "-o", str(binary)], input=NO_INPUT.encode())
    out = subprocess.run([str(binary)], capture_output=True, check=True).stdout
    (memo / "tests" / "t0.out").write_bytes(out)
    wide = tiny_problem(root / "tiny_sum", big=BIG)
    spec = widen(model_for(wide).spec)
    assert str(WIDE) in json.dumps(spec)
    (root / "tiny_sum" / "input_model.json").write_text(json.dumps(spec))
    return [
        (load_problem(memo), precomputed(out)),
        (load_problem(root / "tiny_sum"), visible_span_only()),
    ]


def fenced(asm: str) -> str:
    return f"Here it is:\n```assembly\n{asm}```\n"


def by_check(problem: Problem, asm: str, tmp: Path) -> tuple[float, str]:
    from supercoder.cli import app

    answer = tmp / f"{problem.name}.s"
    answer.write_text(asm)
    result = CliRunner().invoke(app, ["check", problem.path, str(answer), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    return data["reward"], data["status"]


def by_eval(problem: Problem, asm: str, tmp: Path) -> tuple[float, str]:
    from supercoder.models.scripted import ScriptedModel
    from supercoder.runs.eval_run import run_eval
    from supercoder.runs.identity import RunConfig
    from supercoder.runs.store import Store

    store = Store(tmp / f"{problem.name}.sqlite")
    config = RunConfig(model="scripted", benchmark=problem.name, concurrency=1)
    run_eval([problem], ScriptedModel(lambda messages, i: fenced(asm)), config, store)
    (outcome,) = store.outcomes(config.run_name)
    verdict = outcome.attempts[0].verdict
    return default_reward(verdict), str(verdict.status)


def by_trl(problem: Problem, asm: str, tmp: Path) -> list[float | None]:
    """The TRL reward on each column form a dataset of ours gives it: the ``problem``
    column, and ``extra_info`` (a SuperCoder JSONL record read back) as a dict and as
    JSON text; completions as text and as a conversation."""
    from supercoder.dataset.records import read_raw, write_records
    from supercoder.training.trl_reward import make_trl_reward

    reward = make_trl_reward([problem])
    (record,) = read_raw(write_records([problem], tmp / f"{problem.name}.jsonl"))
    info = record["extra_info"]
    chat = [{"role": "assistant", "content": fenced(asm)}]
    return [
        *reward(completions=[fenced(asm)], problem=[problem.name]),
        *reward(completions=[chat, fenced(asm)], extra_info=[info, json.dumps(info)]),
    ]


def by_verl(problem: Problem, asm: str, tmp: Path) -> float:
    """verl 0.9's own code: the exported parquet read by its RLHFDataset, the answer
    scored by its naive reward manager calling the exported reward.py's compute_score."""
    pytest.importorskip("verl")
    import numpy as np
    import torch
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer
    from verl import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn
    from verl.utils.import_utils import load_extern_object
    from verl.workers.reward_manager.naive import NaiveRewardManager

    from supercoder.training.verl_export import VerlExportConfig, export_verl
    from tests.fakes.tiny_model import build_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(str(build_tiny_model(tmp / "model")))
    out = tmp / f"verl-{problem.name}"
    export_verl([problem], [], VerlExportConfig(out, train_batch_size=1), tokenizer=tokenizer)
    config = OmegaConf.create(
        {"max_prompt_length": 1 << 20, "filter_overlong_prompts": False, "cache_dir": str(tmp)}
    )
    row = RLHFDataset(str(out / "train.parquet"), tokenizer, config)[0]
    text = tokenizer.apply_chat_template(
        row["raw_prompt"], add_generation_prompt=True, tokenize=False
    )
    prompt = tokenizer(text, add_special_tokens=False)["input_ids"]
    reply = tokenizer(fenced(asm), add_special_tokens=False)["input_ids"]
    ids = torch.tensor([prompt + reply])
    batch = collate_fn([dict(row)])
    data = DataProto.from_dict(
        tensors={
            "prompts": ids[:, : len(prompt)],
            "responses": ids[:, len(prompt) :],
            "attention_mask": torch.ones_like(ids),
        },
        non_tensors={k: v for k, v in batch.items() if isinstance(v, np.ndarray)},
    )
    score = load_extern_object(module_path=str(out / "reward.py"), object_name="compute_score")
    manager = NaiveRewardManager(tokenizer, num_examine=0, compute_score=score)
    return float(manager(data).sum())


def test_one_answer_earns_one_reward_on_every_path(cases, tmp_path):
    for problem, asm in cases:
        check, status = by_check(problem, asm, tmp_path)
        evaluated, eval_status = by_eval(problem, asm, tmp_path)
        batch = score_batch([problem], [fenced(asm)])
        trl = by_trl(problem, asm, tmp_path)
        verl = by_verl(problem, asm, tmp_path)
        rewards = [check, evaluated, *batch, *trl, verl]
        assert rewards == [0.0] * len(rewards), (problem.name, rewards)
        if problem.memorizable:  # correct, and paid nothing: it reads no input
            assert status == eval_status == Status.OK
        else:  # wrong beyond the visible span, on the domain the user gave
            assert status == eval_status == Status.WRONG_OUTPUT


def test_a_worker_on_another_machine_restores_the_problem_it_is_sent(cases, tmp_path):
    """A restored problem goes to a worker whole (its folder lives in this machine's
    cache); a worker that lacks the folder restores it from the files the problem
    carries, so it judges the same problem (here: still memorizable), never a thinner."""
    import shutil

    from supercoder.dataset.records import problem_from_record, records_for
    from supercoder.verify.evaluate import CheckConfig
    from supercoder.verify.service import _job, run_job

    problem, asm = cases[0]
    restored = problem_from_record(records_for([problem])[0])
    job = _job(restored, asm, CheckConfig(time=False), remote=True)
    assert job.problem is not None and job.path is None  # sent whole, not as a path
    shutil.rmtree(restored.path)  # the other machine has no such folder
    result = run_job(job)
    assert result.verdict.status is Status.OK and result.verdict.memorizable
    assert Path(restored.path).is_dir()  # restored there, from what it carries
