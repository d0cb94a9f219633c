#!/usr/bin/env bash
# Prepare the wheels that the device machine needs (it has no network).
#
# Copies the carried wheels (PyCUDA and its pure-Python needs, islpy,
# pycparser) from the shared folder into .device/wheels/, which git ignores
# and the device tool carries (carry: [".device"]).  Run it here, once per
# checkout, before the first device call; then, on the device:
#
#     bash scripts/device_run.sh bench polybench/ --dataset LARGE --out "$OUT/large"
#
# Usage: scripts/device_setup.sh [WHEEL_DIR]   (default /work/shared/device-wheels)
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir="${1:-/work/shared/device-wheels}"
shopt -s nullglob
wheels=("$source_dir"/*.whl)
if [ ${#wheels[@]} -eq 0 ]; then
  echo "device_setup: no wheels in $source_dir" >&2
  exit 1
fi
rm -rf .device/wheels
mkdir -p .device/wheels
cp "${wheels[@]}" .device/wheels/
echo "device_setup: ${#wheels[@]} wheels in .device/wheels ($(du -sh .device/wheels | cut -f1))"
