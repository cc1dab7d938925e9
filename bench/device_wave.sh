#!/usr/bin/env bash
# One call on a multi-GPU host: F32 exhaustive campaigns of the correctly rounded functions on
# gpu:0 .. gpu:GPUS-2 (their op lists in GPU0, GPU1, GPU2; each process owns one adapter,
# VYRE_ADAPTER=gpu:K, and JOBS host cores for the exact oracle), and on the last GPU the
# benchmarks: bench/float.py's function rows, bench/transformer.py (its digests compared with
# the lavapipe digest in bench/results/l4f when present) and bench/tensor.py. Checkpoints, logs
# and digests go to $OUT. Usage: OUT=dir BUDGET=seconds bench/device_wave.sh
set -u
OUT=${OUT:?set OUT}
BUDGET=${BUDGET:-300}
JOBS=${JOBS:-16}
GPUS=${GPUS:-4}
cd "$(dirname "$0")/.."
python3 -m vyre > "$OUT/adapters.txt" 2>&1
LISTS=("${GPU0:-exp10,log10,tan}" "${GPU1:-asin,acos,atan}" "${GPU2:-tanh,erf,sin}")
LAST=$((GPUS - 1))
for k in $(seq 0 $((GPUS - 2))); do
  VYRE_ADAPTER=gpu:$k python3 bench/float_campaigns.py --batch functions --only "${LISTS[$k]}" --formats f32 \
    --jobs "$JOBS" --budget "$BUDGET" --checkpoint "$OUT/functions-gpu$k.jsonl" > "$OUT/gpu$k.log" 2>&1 &
done
(
  export VYRE_ADAPTER=gpu:$LAST CUDA_VISIBLE_DEVICES=$LAST
  timeout "${FLOAT_S:-150}" python3 bench/float.py --formats f32 --no-sums \
    --ops "${BENCH_OPS:-fexp,fexp2,flog,fsin,ftan,fatan,fatan2,ftanh,ferf,fpow}" \
    --n "${BENCH_N:-16777216}" --reps 10 --trials 3 > "$OUT/bench-float.log" 2>&1
  timeout "${BLOCK_S:-240}" python3 bench/transformer.py --sizes "${SIZES:-small,medium,large}" \
    --digest "$OUT/transformer-digest.json" > "$OUT/bench-transformer.log" 2>&1
  [ -f bench/results/l4f/lavapipe-small.json ] && python3 bench/transformer.py --sizes small \
    --compare bench/results/l4f/lavapipe-small.json >> "$OUT/bench-transformer.log" 2>&1
  timeout "${TENSOR_S:-120}" python3 bench/tensor.py > "$OUT/bench-tensor.log" 2>&1
) &
wait
tail -n 3 "$OUT"/gpu*.log
grep "^| f32" "$OUT/bench-float.log" || tail -n 5 "$OUT/bench-float.log"
tail -n 30 "$OUT/bench-transformer.log"
tail -n 15 "$OUT/bench-tensor.log"
