#!/usr/bin/env bash
# The OpenEnv environment's tests in a virtual environment of their own (.venv-openenv):
# openenv 0.10.0 cannot share one with verifiers 0.4.0 or the mcp extra (their mcp pins;
# docs/training.md, "Environments"), so `.[all]` and CI's .venv leave it out.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv-openenv/bin/python ] || python3 -m venv .venv-openenv
echo "installing supercoder[train,dev,openenv] into .venv-openenv ..." >&2
.venv-openenv/bin/pip install -q --disable-pip-version-check -e '.[train,dev,openenv]' 'torch==2.13.0'
.venv-openenv/bin/pip check
.venv-openenv/bin/python -m pytest -q tests/integration/test_openenv_env.py "$@"
