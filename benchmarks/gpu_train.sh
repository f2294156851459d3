#!/usr/bin/env bash
# Turn a short GPU window into strength: check CUDA, train for M minutes on the GPU (learner on CUDA,
# self-play workers on every core), and leave the run (checkpoints, metrics.jsonl, config) in OUT.
#   bash benchmarks/gpu_train.sh OUT [MINUTES] [CONFIG]
# Resume later anywhere with: bgnet train --config CONFIG --runs OUT
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:?usage: gpu_train.sh OUT [MINUTES] [CONFIG]}"
MINUTES="${2:-8}"
CONFIG="${3:-configs/gpu.toml}"
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || { make setup >/dev/null; PY=.venv/bin/python; }
"$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else "no CUDA device visible to torch")'
"$PY" -c 'import torch; print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")'
mkdir -p "$OUT"
"$PY" -m bgnet.cli train --config "$CONFIG" --runs "$OUT" --device cuda --minutes "$MINUTES" --no-progress \
  2>&1 | tee "$OUT/train.log"
