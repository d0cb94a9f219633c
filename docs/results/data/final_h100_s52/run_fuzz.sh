#!/usr/bin/env bash
# Issue 14's close, the correctness runs on the GPU (H100), one device call (under 600 s)
# a part:  bash .../run_fuzz.sh PART OUT
#   fuzz:     the differential tester, seeds 5635145..5635384, checked on the GPU
#   campaign: the random resident stencils (--resident-sync auto), a real cooperative launch
#   fresh:    the differential tester on the next 220 seeds (a third call, same tree)
set -u
part="$1"; out="$2"
fuzz() {  # fuzz FIRST COUNT: the differential tester, every stage, 14 workers
  timeout 540 bash scripts/device_run.sh script scripts/fuzz.py --count "$2" --seed "$1" \
    --jobs 14 --timeout 120 --out "$out/fuzz" > "$out/gpu_fuzz_$1.log" 2>&1
  tail -6 "$out/gpu_fuzz_$1.log"
}
case "$part" in
  fuzz | fresh | campaign) ;;
  *) echo "run_fuzz.sh: PART is fuzz, campaign or fresh, not '$part'" >&2; exit 2 ;;
esac
mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1; head -1 "$out/device.txt"
s=$SECONDS
case "$part" in
  fuzz) fuzz 5635145 240 ;;
  fresh) fuzz 5635385 220 ;;
  campaign)
    timeout 540 bash scripts/device_run.sh script scripts/resident_stencil_campaign.py \
      5285 40 auto 4 --gpu > "$out/campaign_auto.log" 2>&1
    echo "campaign auto: $(grep -c ' match' "$out/campaign_auto.log") match," \
      "$(grep -c MISMATCH "$out/campaign_auto.log") mismatch," \
      "$(grep -c ERROR "$out/campaign_auto.log") error"
    tail -3 "$out/campaign_auto.log" ;;
esac
echo "$part $((SECONDS - s)) s"
