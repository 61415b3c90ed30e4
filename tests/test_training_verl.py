"""verl: the reward module called exactly as verl calls it, and the exported files."""

from __future__ import annotations

import importlib.util
import subprocess

import pytest

from supercoder.errors import InfraError
from supercoder.records import records_for
from supercoder.training import verl_reward
from supercoder.training.tiny import faster_asm, tiny_problem, wrong_asm
from supercoder.training.verl_export import export_verl


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    root = tmp_path_factory.mktemp("verl")
    return [
        tiny_problem(root / "a", name="tiny_a", split="train"),
        tiny_problem(root / "b", name="tiny_b", split="val", big=1000),
    ]


@pytest.fixture(scope="module")
def exported(problems, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    export_verl(problems[:1], problems[1:], out)
    return out


def _load_reward_module(path):
    """As verl does: importlib from custom_reward_function.path."""
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compute_score


def _call(compute_score, record, answer):
    return compute_score(
        data_source=record["data_source"],
        solution_str=answer,
        ground_truth=record["reward_model"]["ground_truth"],
        extra_info=record["extra_info"],
    )


def test_parquet_has_what_verl_reads(exported):
    datasets = pytest.importorskip("datasets")
    train = datasets.load_dataset("parquet", data_files=str(exported / "train.parquet"))["train"]
    val = datasets.load_dataset("parquet", data_files=str(exported / "val.parquet"))["train"]
    assert len(train) == 1 and len(val) == 1
    for column in ("data_source", "prompt", "ability", "reward_model", "extra_info"):
        assert column in train.column_names
    row = train[0]
    assert row["prompt"][0]["role"] == "user" and "```c" in row["prompt"][0]["content"]
    assert row["reward_model"]["style"] == "rule" and "main:" in row["reward_model"]["ground_truth"]
    info = row["extra_info"]
    assert info["split"] == "train" and info["index"] == 0 and "volatile" in info["c_code"]
    assert len(info["inputs"]) == len(info["outputs"]) == 5
    assert val[0]["extra_info"]["split"] == "val"


def test_launch_scripts_carry_the_paper_settings(exported):
    ppo = (exported / "run_ppo.sh").read_text()
    for setting in (
        "algorithm.adv_estimator=gae",
        "actor_rollout_ref.actor.optim.lr=1e-6",
        "critic.optim.lr=1e-5",
        "data.train_batch_size=16",
        "data.max_prompt_length=2000",
        "data.max_response_length=2000",
        "actor_rollout_ref.rollout.temperature=0.5",
        "actor_rollout_ref.actor.use_kl_loss=False",
        "trainer.total_epochs=1",
        'N_GPUS="${N_GPUS:-4}"',
        'trainer.nnodes="$NNODES"',
        "ray start --head",
    ):
        assert setting in ppo, setting
    grpo = (exported / "run_grpo.sh").read_text()
    assert "algorithm.adv_estimator=grpo" in grpo and "critic." not in grpo
    for script in ("run_ppo.sh", "run_grpo.sh"):
        subprocess.run(["bash", "-n", str(exported / script)], check=True)
    assert (
        "Multi" in (exported / "README.md").read_text()
        or "cluster" in (exported / "README.md").read_text()
    )


def test_reward_module_scores_like_the_paper(exported, problems):
    compute_score = _load_reward_module(exported / "reward.py")
    record = records_for(problems[:1])[0]
    faster = _call(compute_score, record, f"```assembly\n{faster_asm()}```")
    assert faster["score"] > 1.5 and faster["correct"] == 1.0
    assert faster["infra_failure"] == 0.0
    wrong = _call(compute_score, record, f"```assembly\n{wrong_asm()}```")
    assert wrong["score"] == 0.0 and wrong["correct"] == 0.0
    assert _call(compute_score, record, "no assembly here")["score"] == 0.0


def test_infra_failure_gives_no_reward(problems, monkeypatch):
    import supercoder.evaluate as ev

    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise InfraError("bubblewrap failed to start")

    monkeypatch.setattr(ev, "evaluate", broken)
    monkeypatch.setenv("SUPERCODER_INFRA_RETRIES", "1")
    record = records_for(problems[:1])[0]
    answer = f"```assembly\n{faster_asm()}```"
    assert _call(verl_reward.compute_score, record, answer) is None
    assert len(calls) == 2  # first try + one retry
    monkeypatch.setenv("SUPERCODER_INFRA_SCORE", "0.5")
    scored = _call(verl_reward.compute_score, record, answer)
    assert scored["score"] == 0.5 and scored["infra_failure"] == 1.0


def test_batch_entry_point_and_numpy_extra_info(problems):
    np = pytest.importorskip("numpy")
    record = records_for(problems[:1])[0]
    info = {k: np.array(v, dtype=object) if isinstance(v, list) else v
            for k, v in record["extra_info"].items()}  # fmt: skip
    out = verl_reward.compute_score_batch(
        data_sources=["supercoder"] * 2,
        solution_strs=[f"```assembly\n{wrong_asm()}```", "nothing"],
        ground_truths=[record["reward_model"]["ground_truth"]] * 2,
        extra_infos=[info, info],
    )
    assert [r["score"] for r in out] == [0.0, 0.0]
