#!/bin/bash
# build OLD (HEAD behaviour: no late prefault) and NEW binaries of PolyBench programs at LARGE
cd /work/main
U=polybench/utilities
k=$1
src=$(find polybench -mindepth 2 -name "$k.c" ! -path '*/utilities/*' | head -1)
d=$(dirname $src)
o=.device/late/$k
mkdir -p $o
.venv/bin/polycu $src -I $U -I $d -DLARGE_DATASET -o $o/$k.cu 2> $o/polycu.err || { echo "$k polycu failed"; exit 0; }
grep -v "polycu_fault_while_busy(polycu_faults);" $o/$k.cu > $o/old.cu
cp $o/${k}_host.c $o/old_host.c
for v in new old; do
  cu=$o/$k.cu; [ $v = old ] && cu=$o/old.cu
  nvcc -O3 -arch=sm_90 -w -I $U -I $d -DLARGE_DATASET -DPOLYBENCH_TIME $U/polybench.c $cu ${cu%.cu}_host.c -o $o/$v -lm || echo "$k $v nvcc failed"
done
echo "$k: $(grep -c add_late $o/$k.cu) late arrays"
