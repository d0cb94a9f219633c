#!/usr/bin/env bash
# Issue 14's close, the correctness runs on the GPU (H100), in two device calls of under
# 600 s each:  bash .../run_fuzz.sh fuzz OUT   then   bash .../run_fuzz.sh campaign OUT
#   fuzz:     the differential tester, 240 random programs, checked on the GPU
#   campaign: the random resident stencils (--resident-sync auto), a real cooperative launch
#   fresh:    the differential tester on the next 220 seeds (a third call, same tree)
set -u
part="$1"; out="$2"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1; head -1 "$out/device.txt"
s=$SECONDS
if [ "$part" = fuzz ]; then
  bash scripts/device_run.sh script scripts/fuzz.py --count 240 --seed 5635145 --jobs 14 \
    --timeout 120 --out "$out/fuzz" > "$out/gpu_fuzz_5635145.log" 2>&1
  tail -4 "$out/gpu_fuzz_5635145.log"
elif [ "$part" = fresh ]; then
  timeout 520 bash scripts/device_run.sh script scripts/fuzz.py --count 220 --seed 5635385 \
    --jobs 14 --timeout 120 --out "$out/fuzz" > "$out/gpu_fuzz_5635385.log" 2>&1
  tail -6 "$out/gpu_fuzz_5635385.log"
else
  timeout 540 bash scripts/device_run.sh script scripts/resident_stencil_campaign.py 5285 40 auto 4 \
    --gpu > "$out/campaign_auto.log" 2>&1
  echo "campaign auto: $(grep -c ' match' "$out/campaign_auto.log") match," \
    "$(grep -c MISMATCH "$out/campaign_auto.log") mismatch," \
    "$(grep -c ERROR "$out/campaign_auto.log") error"
  tail -3 "$out/campaign_auto.log"
fi
echo "$part $((SECONDS - s)) s"
