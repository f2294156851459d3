#!/usr/bin/env bash
# Check the CUDA path end to end and measure self-play training games/s on a GPU, in under 5 minutes.
# For machines with a CUDA GPU only; nothing else depends on this script.
#   bash benchmarks/gpu_selfplay.sh [GAMES]
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES="${1:-20000}"
PY="${PY:-.venv/bin/python}"
[ -x "$PY" ] || { make setup >/dev/null; PY=.venv/bin/python; }
"$PY" - "$GAMES" <<'PYEOF'
import sys, tempfile, time
import torch
if not torch.cuda.is_available():
    sys.exit("no CUDA device visible to torch: this script is for GPU machines")
print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, device: {torch.cuda.get_device_name(0)}")
from pathlib import Path
from bgnet.checkpoint import load_network
from bgnet_training.config import load_config
from bgnet_training.train import Trainer
games = int(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    for label, config in (("gpu.toml", "configs/gpu.toml"), ("default.toml on cuda", "configs/default.toml")):
        warm = load_config(config, {"games": 512, "eval_every": 0, "name": "warm", "device": "cuda", "snapshot": ""})
        Trainer(warm, tmp, progress=False).run()
        cfg = load_config(config, {"games": games, "eval_every": 0, "name": "bench", "device": "cuda", "snapshot": "",
                                   "checkpoint_every": games})
        trainer = Trainer(cfg, tmp, progress=False)
        assert next(trainer.evaluator.model.parameters()).is_cuda
        t = time.perf_counter()
        st = trainer.run()
        torch.cuda.synchronize()
        el = time.perf_counter() - t
        model, enc, _ = load_network(trainer.latest_checkpoint())  # the checkpoint loads on the CPU
        print(f"{label}: {st.games} games in {el:.1f} s: {st.games / el:.0f} games/s "
              f"(B={cfg.parallel_games}, hidden {list(cfg.hidden)}, {cfg.encoder})")
        import shutil; shutil.rmtree(Path(tmp) / "bench"); shutil.rmtree(Path(tmp) / "warm")
PYEOF
