#!/usr/bin/env bash
# Session 51: jacobi-2d LARGE resident kernel, hand variants (kernel ms by CUDA events, median of 7).
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name --format=csv,noheader
for k in v0 v4 v12 v13; do echo "$k $(./d_$k 2>&1 >/dev/null | grep -v KMS | md5sum)"; done
for r in 1 2; do
  for k in v0 v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v12 v13; do
    ts=""; for i in 1 2 3 4 5 6 7; do ts="$ts $(./t_$k 2>&1 >/dev/null | grep KMS | cut -d' ' -f2)"; done
    echo "r$r $k $(echo $ts | tr ' ' '\n' | sort -n | sed -n 4p) [$ts ]"
  done
done
