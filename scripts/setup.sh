#!/usr/bin/env bash
# Install everything supercoder needs on Debian/Ubuntu: system packages (gcc, the
# bubblewrap sandbox, clang for the compiler baseline ladder, chromium for the report
# test, valgrind), then a virtual environment in .venv with all extras.
#   bash scripts/setup.sh          # everything (torch CPU build where the machine offers it)
#   bash scripts/setup.sh --lean   # no ML extras (no torch/trl/ray): evaluator, models, analysis
#   bash scripts/setup.sh --no-openenv   # everything but the OpenEnv venv (.venv-openenv)
set -euo pipefail
cd "$(dirname "$0")/.."
lean=0
openenv=1
for arg in "$@"; do
  case "$arg" in
    --lean) lean=1 ;;
    --no-openenv) openenv=0 ;;
    *) echo "setup.sh: unknown option $arg (--lean, --no-openenv)" >&2; exit 2 ;;
  esac
done

# Each step says what it does when it starts and how long it took when it ends (pip
# and apt are quiet: their own output would bury the errors that matter).
started=$SECONDS
step_start=$SECONDS
step() {
  step_start=$SECONDS
  echo "[setup] $*..." >&2
}
done_step() {
  echo "[setup]   done in $((SECONDS - step_start)) s" >&2
}

apt_packages="gcc libc6-dev bubblewrap clang valgrind chromium"
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  step "system packages (apt-get): $apt_packages (1-5 minutes on a fresh machine)"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $apt_packages >/dev/null
  done_step
  # clang PGO (the compiler model): compiler-rt's profile runtime and llvm-profdata of clang's version
  v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1 || true)
  if [ -n "$v" ]; then
    step "clang $v PGO runtime (libclang-rt-$v-dev, llvm-$v)"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "libclang-rt-$v-dev" "llvm-$v" >/dev/null ||
      echo "libclang-rt-$v-dev / llvm-$v not installed: the compiler model skips clang PGO" >&2
    done_step
  fi
else
  echo "no apt-get: install these yourself: $apt_packages" >&2
fi

# started as root, the sandbox runs bubblewrap as this unprivileged user (else nobody)
if ! id supercoder-sandbox >/dev/null 2>&1 && command -v useradd >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    useradd --system --no-create-home --user-group --shell /usr/sbin/nologin supercoder-sandbox
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo useradd --system --no-create-home --user-group --shell /usr/sbin/nologin supercoder-sandbox
  fi
fi

step "virtual environment .venv (python3 -m venv, pip upgraded)"
python3 -m venv .venv
pip=".venv/bin/pip"
$pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
done_step
if [ "$lean" = 1 ]; then
  step "supercoder and its lean extras into .venv (pip, 1-2 minutes)"
  $pip install -q -e '.[analysis,dev]'
  done_step
else
  # torch 2.13.0: a CPU wheel is preinstalled on our CI machines (pip's find-links);
  # elsewhere pip takes it from PyPI.
  # [all] includes the verl extra: verl[verl-core]>=0.9.1,<0.10 (CPU is enough for its
  # config, reward loading and dataset tests); naming torch again keeps the pin.
  step "torch 2.13.0 into .venv (pip: a large download where no wheel is cached, 1-5 minutes)"
  $pip install -q 'torch==2.13.0'
  done_step
  step "supercoder with every extra (TRL, verl, Ray, ...) into .venv (pip, 1-5 minutes)"
  $pip install -q -e '.[all,dev]' 'torch==2.13.0'
  done_step
  # openenv 0.10 cannot share an environment with verifiers 0.4 or the mcp extra (their
  # mcp pins): its environment and tests get a venv of their own, which the test suite
  # drives (tests/test_openenv_venv.py). --no-openenv skips it.
  if [ "$openenv" = 1 ]; then
    step "the OpenEnv environment's own venv .venv-openenv (pip, 1-3 minutes)"
    [ -x .venv-openenv/bin/python ] || python3 -m venv .venv-openenv
    .venv-openenv/bin/pip install -q --disable-pip-version-check -e '.[train,dev,openenv]' 'torch==2.13.0'
    .venv-openenv/bin/pip check >/dev/null
    done_step
  fi
fi
.venv/bin/supercoder version
echo "[setup] ready in $((SECONDS - started)) s: run 'source .venv/bin/activate' to put supercoder on your PATH" >&2
