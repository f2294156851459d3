#!/usr/bin/env bash
# Turn a short window on a GPU machine into 2-ply decision labels (docs/strength.md: the main network's
# 2-ply gap fits are short of labels, not of method): one labeller with its search on the GPU and one on
# each other core, each its own seed, for M minutes, then the files, logs and rates in OUT.
#   bash benchmarks/gpu_label.sh OUT [MINUTES] [KIND] [FIRST_SEED]
# KIND: contact (default) or crashed; seeds FIRST_SEED (the GPU's, default 101), FIRST_SEED+1, ...
# Another window: the same OUT and seeds resume the files; a new OUT wants FIRST_SEED past the last one.
# DEVICE=cpu runs the same without a GPU; CPU_JOBS sets the CPU labellers (default: one a core but one);
# NETS the labelling networks (default the shipped file); GAMES, POSITIONS, CHUNK rollout_labels' own.
# Each file resumes with its command in OUT/commands.txt, given the networks file that began it.
set -euo pipefail
OUT="${1:?usage: gpu_label.sh OUT [MINUTES] [KIND] [FIRST_SEED]}"
MINUTES="${2:-8}"
KIND="${3:-contact}"
SEED="${4:-101}"
DEVICE="${DEVICE:-cuda}"
die() { echo "gpu_label.sh: $*" >&2; exit 2; }
case "$KIND" in
  contact) SET=(--kind contact --games "${GAMES:-1500}") ;;
  crashed) SET=(--kind crashed --starts checkpoints/crashed-starts-any.npz --games "${GAMES:-3000}") ;;
  *) die "KIND must be contact or crashed, not '$KIND'" ;;
esac
[[ "$SEED" =~ ^[0-9]+$ ]] || die "FIRST_SEED must be a whole number, not '$SEED'"
[[ "${CPU_JOBS:-0}" =~ ^[0-9]+$ ]] || die "CPU_JOBS must be a whole number, not '$CPU_JOBS'"
# (timeout takes 0 as no limit at all)
[[ "$MINUTES" =~ ^[0-9]*\.?[0-9]+$ ]] && awk "BEGIN { exit !($MINUTES > 0) }" \
  || die "MINUTES must be a positive number, not '$MINUTES'"
OUT="$(realpath -m "$OUT")"  # OUT and NETS as the caller named them, before the cd
NETS="$(realpath -m "${NETS:-$(dirname "$0")/../bgnet/networks/bgnet-default.pt}")"
cd "$(dirname "$0")/.."
[ -f "$NETS" ] || die "no networks file $NETS"
[ "$KIND" = contact ] || [ -f checkpoints/crashed-starts-any.npz ] || die "no checkpoints/crashed-starts-any.npz"
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || { make setup >/dev/null; PY=.venv/bin/python; }
PY="$(realpath -s "$PY")"  # -s: a venv's python is a link that must stay one
if [ "$DEVICE" = cuda ]; then
  "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else "no CUDA device visible to torch")'
  "$PY" -c 'import torch; print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")'
fi
mkdir -p "$OUT" 2>/dev/null || die "cannot make the folder $OUT"
CORES="$(nproc)"
CPU_JOBS="${CPU_JOBS:-$((CORES > 1 ? CORES - 1 : 1))}"
: > "$OUT/commands.txt"
pids=()
files=()
# Ctrl-C or a TERM stops every labeller cleanly (timeout passes TERM on; each saves what it labelled)
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait; exit 130' INT TERM
for i in $(seq 0 "$CPU_JOBS"); do
  s=$((SEED + i))
  dev=cpu
  [ "$i" = 0 ] && dev="$DEVICE"
  file="$OUT/$KIND-decisions-2ply-s$s.npz"
  files+=("$file")
  cmd=("$PY" -m bgnet_training.rollout_labels "$NETS" "$file" "${SET[@]}" --positions "${POSITIONS:-20000}"
       --plays 4 --search 2 --screen --chunk "${CHUNK:-64}" --seed "$s" --device "$dev")
  { printf 'cd %q && OMP_NUM_THREADS=1' "$PWD"; printf ' %q' "${cmd[@]}"; echo; } >> "$OUT/commands.txt"
  # TERM, not INT: a background job's SIGINT is ignored; rollout_labels saves each chunk and stops cleanly
  # (exit 130); -k: one that does not stop within a minute is killed (and the window reported failed)
  OMP_NUM_THREADS=1 timeout --preserve-status -k 60 -s TERM "${MINUTES}m" "${cmd[@]}" > "$OUT/s$s.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || { rc=$?; [ "$rc" = 130 ] || status=1; }; done
for f in "${files[@]}"; do [ -f "$f" ] || { echo "gpu_label.sh: nothing labelled into $f" >&2; status=1; }; done
for log in "$OUT"/s*.log; do echo "$log: $(grep -E 'labelled|interrupted|Error|error' "$log" | tail -1)"; done
exit "$status"
