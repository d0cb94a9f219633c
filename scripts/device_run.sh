#!/usr/bin/env bash
# Run a polycu command on the device machine (no network, python3.12).
#
# Installs the wheels that scripts/device_setup.sh put in .device/wheels/
# into a private site (.device/site), puts it and the checkout on
# PYTHONPATH (polycu itself is not pip-installed there), prints the GPU,
# then runs `python3 -m polycu ARGS...`; `pytest ARGS...` runs the tests
# instead and `script FILE.py ARGS...` a Python script of the checkout.
# Results go wherever ARGS say: give --out "$OUT/..." so that the
# device tool brings them back.
#
# Examples (as the device tool's command, with carry: [".device"]):
#     bash scripts/device_run.sh device
#     bash scripts/device_run.sh check polybench/linear-algebra/blas/gemm/gemm.c \
#         -I polybench/utilities --dataset SMALL
#     bash scripts/device_run.sh bench polybench/ --dataset LARGE --out "$OUT/large"
#     bash scripts/device_run.sh pytest -m gpu -q
set -euo pipefail
cd "$(dirname "$0")/.."
if ! ls .device/wheels/*.whl > /dev/null 2>&1; then
  echo "device_run: no wheels in .device/wheels; run scripts/device_setup.sh first and carry .device" >&2
  exit 1
fi
# Install once per set of wheels (the stamp lists them), not on every call.
wheels="$(cd .device/wheels && ls -1 *.whl)"
if [ "$(cat .device/site/.wheels 2>/dev/null)" != "$wheels" ]; then
  rm -rf .device/site
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target .device/site .device/wheels/*.whl
  echo "$wheels" > .device/site/.wheels
fi
export PYTHONPATH="$PWD/.device/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
if [ "${1:-}" = "pytest" ]; then
  shift
  # one process: the device has no pytest-xdist, and the GPU tests share one GPU
  exec python3 -m pytest -o addopts= "$@"
fi
if [ "${1:-}" = "script" ]; then
  shift
  exec python3 "$@"
fi
exec python3 -m polycu "$@"
