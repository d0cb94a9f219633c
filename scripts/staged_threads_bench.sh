#!/usr/bin/env bash
# Two trees' programs side by side on the GPU (session 32: per-thread staged strips,
# docs/results/staging.md).  DIR (two folders below the repository root) holds old/K.cu and new/K.cu
# (with their K_host.c; V="old new v2 ..." names more folders, the first the baseline), each from `polycu polybench/.../K.c -I polybench/utilities
# -I <K's folder> -D<DATASET>_DATASET -o DIR/old/K.cu` run by one tree (DATASET: LARGE unless set); K lists the programs
# (default: all in DIR/new).  Each build's dump is compared with gcc's, then the
# programs are timed with PolyBench's timer, median of 7, the two builds one after the
# others in each round.  Output: $OUT/<DATASET>_dumps.txt, $OUT/<DATASET>_times.txt.
set -u
cd "${DIR:-.device/s32d}"
U=../../polybench/utilities
K="${K:-$(ls new/*.cu | xargs -n1 basename | sed 's/\.cu$//')}"
V="${V:-old new}"
for k in $K; do d=$(dirname $(find ../../polybench -name "$k.c" | head -1))
  for v in $V; do
    nvcc -O3 -arch=sm_90 -w -I $U -I $d -D${DATASET:-LARGE}_DATASET -DPOLYBENCH_TIME $U/polybench.c $v/$k.cu $v/${k}_host.c -o /tmp/${k}_$v -lm &
    nvcc -O3 -arch=sm_90 -w -I $U -I $d -D${DATASET:-LARGE}_DATASET -DPOLYBENCH_DUMP_ARRAYS $U/polybench.c $v/$k.cu $v/${k}_host.c -o /tmp/${k}_${v}_dump -lm &
  done
  gcc -O3 -I $U -I $d -D${DATASET:-LARGE}_DATASET -DPOLYBENCH_DUMP_ARRAYS $U/polybench.c $d/$k.c -o /tmp/${k}_gcc -lm &
  while (( $(jobs -r | wc -l) >= 16 )); do wait -n; done
done; wait
for k in $K; do
  /tmp/${k}_gcc 2> /tmp/${k}_gcc.dump
  for v in $V; do /tmp/${k}_${v}_dump 2> /tmp/${k}_$v.dump; cmp -s /tmp/${k}_$v.dump /tmp/${k}_gcc.dump && echo "$k $v dump equal to gcc" || echo "$k $v dump DIFFERS"; done
done | tee $OUT/${DATASET:-LARGE}_dumps.txt
for k in $K; do
  for r in 1 2 3 4 5 6 7; do for v in $V; do echo "$k $v $(/tmp/${k}_$v)"; done; done
done | V="$V" python3 -c "
import os, sys, statistics as s, collections
d = collections.defaultdict(list)
for l in sys.stdin:
    k, v, t = l.split(); d[k, v].append(float(t) * 1e3)
vs = os.environ['V'].split()
ks = list(dict.fromkeys(k for k, _ in d))
print('kernel        ' + ''.join(f'{v:>10s} ms' for v in vs) + '   ' + '  '.join(f'{vs[0]}/{v}' for v in vs[1:]) + ' (median of 7, ${DATASET:-LARGE})')
for k in ks:
    m = [s.median(d[k, v]) for v in vs]
    print(f'{k:14s}' + ''.join(f'{x:13.3f}' for x in m) + '   ' + '  '.join(f'{m[0]/x:.3f}' for x in m[1:]))
" | tee $OUT/${DATASET:-LARGE}_times.txt
