#!/bin/bash
# session 43: late prefault, old vs new, PolyBench timer at LARGE, 5 rounds alternating
cd "$(dirname "$0")"
out=$1
for k in */; do k=${k%/}
  for r in 1 2 3 4 5; do
    for v in old new; do t=$(./$k/$v 2>/dev/null | tail -1); echo "$k,$v,$r,$t" >> $out/times.csv; done
  done
done
for k in adi gemver deriche; do
  ./$k/dump_new 2> $out/$k.new.dump > /dev/null; ./$k/dump_gcc 2> $out/$k.gcc.dump > /dev/null
  if cmp -s $out/$k.new.dump $out/$k.gcc.dump; then echo "$k dump identical" >> $out/dumps.txt; else echo "$k dump differs" >> $out/dumps.txt; fi
  cmp -s $out/$k.new.dump $out/$k.gcc.dump && rm -f $out/$k.new.dump $out/$k.gcc.dump
done
cat $out/dumps.txt
