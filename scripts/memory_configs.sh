#!/usr/bin/env bash
# Kernel times of the memory placement's configurations, side by side in one run
# on the device: `bash scripts/memory_configs.sh OUTDIR DATASET CONFIG...` (carry
# .device; CONFIG among the names below, all of them when none is given).
# Each configuration benches the same kernels with the same seed, without the CPU
# baseline; OUTDIR/summary.csv gets one line per configuration and kernel (status,
# kernel ms, spread, library ms), OUTDIR/<configuration>.log the bench's output.
set -euo pipefail
out="$1"; dataset="$2"; shift 2
kernels=(linear-algebra/blas/gemm linear-algebra/kernels/2mm linear-algebra/kernels/3mm
         linear-algebra/blas/syrk linear-algebra/blas/syr2k linear-algebra/blas/symm
         linear-algebra/blas/trmm datamining/correlation datamining/covariance
         linear-algebra/kernels/doitgen linear-algebra/kernels/atax linear-algebra/kernels/bicg
         linear-algebra/kernels/mvt linear-algebra/blas/gemver linear-algebra/blas/gesummv)
files=()
# KERNELS=all: the whole suite; KERNELS="gemm adi": those kernels of it
[ -n "${KERNELS:-}" ] && mapfile -t kernels < <(cd polybench && find . -mindepth 2 -name '*.c' \
  ! -path './utilities/*' -printf '%h\n' | sed 's|^\./||' | sort)
[ "${KERNELS:-}" = all ] && KERNELS=""
for k in "${kernels[@]}"; do
  # KERNELS="gemm atax" limits the run to those kernels
  if [ -z "${KERNELS:-}" ] || [[ " $KERNELS " == *" $(basename "$k") "* ]]; then
    files+=("polybench/$k/$(basename "$k").c")
  fi
done
declare -A configs=(
  [global]="--no-shared-memory --no-private-memory"
  [shared]="--shared-memory --no-private-memory"
  [shared_private]="--shared-memory --private-memory"
  [shared_private_64]="--shared-memory --private-memory --sizes {kernel[i]->tile[64,64];kernel[i]->block[16,16]}"
  [shared_private_64_all]="--shared-memory --private-memory --memory *:A=shared --memory *:B=shared --sizes {kernel[i]->tile[64,64];kernel[i]->block[16,16]}"
  [private]="--no-shared-memory --private-memory"
  [private_64]="--no-shared-memory --private-memory --sizes {kernel[i]->tile[64,64];kernel[i]->block[16,16]}"
  [tiles]=""
  [tiles_fmad]="--fmad"
  [tiles_64x32]="--sizes {kernel[i]->tile[64,32];kernel[i]->block[16,16]}"
  [tiles_64x64]="--sizes {kernel[i]->tile[64,64];kernel[i]->block[16,16]}"
  [tiles_64x32_fmad]="--fmad --sizes {kernel[i]->tile[64,32];kernel[i]->block[16,16]}"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(global shared shared_private shared_private_64 private_64)
mkdir -p "$out"
reports="$(mktemp -d)"
for name in "${names[@]}"; do
  # shellcheck disable=SC2086
  bash scripts/device_run.sh bench "${files[@]}" -I polybench/utilities --dataset "$dataset" \
    --no-cpu-baseline --repeat 5 --seed 7 ${configs[$name]} --out "$reports/$name" \
    > "$out/$name.log" 2>&1 || echo "$name: bench failed (see $name.log)"
  python3 - "$reports/$name/results.csv" "$name" >> "$out/summary.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([sys.argv[2], row["kernel"], row["status"], row["kernel_ms"],
                    row["kernel_spread"], row["library_ms"], row["minimum_ms"]]))
PY
done
