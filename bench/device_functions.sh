#!/usr/bin/env bash
# The correctly rounded functions on a 4-GPU host in one call (the device tool's budget is
# wall time, so four GPUs check four times the inputs): F32 exhaustive campaigns of the
# functions, a few per GPU (each process owns one adapter, VYRE_ADAPTER=gpu:K, and a share of
# the host's cores: the campaigns are bound by the host's exact oracle), and bench/float.py's
# function rows on the last GPU before its campaigns. Checkpoints and logs go to $OUT (resumable:
# run again with the same checkpoints). Usage: OUT=dir BUDGET=seconds bench/device_functions.sh
set -u
OUT=${OUT:?set OUT}
BUDGET=${BUDGET:-130}
JOBS=${JOBS:-20}
cd "$(dirname "$0")/.."
python3 -m vyre > "$OUT/adapters.txt" 2>&1
campaign() {  # gpu, ops, formats, budget
  VYRE_ADAPTER=gpu:$1 python3 bench/float_campaigns.py --batch functions --only "$2" --formats "$3" \
    --jobs "$JOBS" --budget "$4" --checkpoint "$OUT/functions-gpu$1.jsonl" >> "$OUT/gpu$1.log" 2>&1
}
# GPUS GPUs: campaigns on gpu:0 .. gpu:GPUS-2 (their op lists in GPU0, GPU1, GPU2), the bench and
# then campaigns on the last one
GPUS=${GPUS:-4}
LISTS=("${GPU0:-exp,log,exp10}" "${GPU1:-sin,cos,log2}" "${GPU2:-log10,tan,asin}")
LAST=$((GPUS - 1))
for k in $(seq 0 $((GPUS - 2))); do campaign "$k" "${LISTS[$k]}" "${F32:-f32}" "$BUDGET" & done
(
  VYRE_ADAPTER=gpu:$LAST CUDA_VISIBLE_DEVICES=$LAST python3 bench/float.py --formats f32 --no-sums \
    --ops "${BENCH_OPS:-fexp,fexp10,flog,flog2,flog10,fsin,fcos,ftan,fasin,facos,fatan,fatan2,ftanh,ferf}" \
    --n "${BENCH_N:-16777216}" --reps 10 --trials 3 > "$OUT/bench-float.log" 2>&1
  campaign "$LAST" "${GPU3_16:-exp2,exp,exp10,log,log2,log10,sin,cos,tan,asin,acos,atan,tanh,erf}" f16,bf16 60
  campaign "$LAST" "${GPU3:-acos,atan,erf,tanh}" f32 "$BUDGET"
) &
wait
tail -n 4 "$OUT"/gpu*.log
grep "^| f32" "$OUT/bench-float.log" || tail -n 5 "$OUT/bench-float.log"
