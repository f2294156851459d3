#!/usr/bin/env bash
# Turn a short window on a GPU machine into 2-ply decision labels (docs/strength.md: the main network's
# 2-ply gap fits are short of labels, not of method): one labeller with its search on the GPU and one on
# each other core, each its own seed, for M minutes, then the files, logs and rates in OUT.
#   bash benchmarks/gpu_label.sh OUT [MINUTES] [KIND] [FIRST_SEED]
# KIND: contact (default) or crashed; seeds FIRST_SEED (the GPU's, default 101), FIRST_SEED+1, ...
# DEVICE=cpu runs the same without a GPU (a check of the script); CPU_JOBS overrides the CPU labellers.
# Each file resumes with its own command (in OUT/commands.txt), given the networks file that began it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:?usage: gpu_label.sh OUT [MINUTES] [KIND] [FIRST_SEED]}"
MINUTES="${2:-8}"
KIND="${3:-contact}"
SEED="${4:-101}"
DEVICE="${DEVICE:-cuda}"
NETS="${NETS:-bgnet/networks/bgnet-default.pt}"
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || { make setup >/dev/null; PY=.venv/bin/python; }
case "$KIND" in
  contact) SET=(--kind contact --games 1500) ;;
  crashed) SET=(--kind crashed --starts checkpoints/crashed-starts-any.npz --games 3000) ;;
  *) echo "gpu_label.sh: KIND must be contact or crashed, not '$KIND'" >&2; exit 2 ;;
esac
if [ "$DEVICE" = cuda ]; then
  "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else "no CUDA device visible to torch")'
  "$PY" -c 'import torch; print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")'
fi
CORES="$(nproc)"
CPU_JOBS="${CPU_JOBS:-$((CORES > 1 ? CORES - 1 : 1))}"
mkdir -p "$OUT"
: > "$OUT/commands.txt"
pids=()
for i in $(seq 0 "$CPU_JOBS"); do
  s=$((SEED + i))
  dev=cpu
  [ "$i" = 0 ] && dev="$DEVICE"
  file="$OUT/$KIND-decisions-2ply-s$s.npz"
  cmd=("$PY" -m bgnet_training.rollout_labels "$NETS" "$file" "${SET[@]}" --positions 20000 --plays 4
       --search 2 --screen --chunk 64 --seed "$s" --device "$dev")
  echo "${cmd[*]}" >> "$OUT/commands.txt"
  # TERM, not INT: a background job's SIGINT is ignored; rollout_labels saves each chunk and stops cleanly
  OMP_NUM_THREADS=1 timeout -s TERM "${MINUTES}m" "${cmd[@]}" > "$OUT/s$s.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || { rc=$?; [ "$rc" = 124 ] || [ "$rc" = 130 ] || status=$rc; }; done
for log in "$OUT"/s*.log; do echo "$log: $(grep -E 'labelled|interrupted|Error|error' "$log" | tail -1)"; done
exit "$status"
