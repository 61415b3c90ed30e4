"""Importing the published SuperCoder dataset: a Parquet file in the exact HF schema.

The parts that start no process (tests/unit/conftest.py); the rest are in
tests/integration/test_import.py."""

from __future__ import annotations

import pytest

from supercoder.dataset.importer import read_source
from supercoder.errors import UserError


def test_hub_name_offline_is_a_clear_error(monkeypatch):
    datasets = pytest.importorskip("datasets")
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # fail fast instead of waiting for retries
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True, raising=False)
    with pytest.raises(UserError, match="Offline\\? Download the dataset's Parquet files"):
        read_source("LLM4Code/definitely_not_a_dataset_here")
