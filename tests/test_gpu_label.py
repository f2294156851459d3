"""benchmarks/gpu_label.sh: labellers for a short GPU window, checked here on the CPU (``DEVICE=cpu``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from test_rollout_labels import networks_file

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_label.sh"


def run(out: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), str(out), *args],
        capture_output=True,
        text=True,
        env=os.environ | {"PY": sys.executable} | env,
        timeout=300,
    )


def test_a_kind_it_does_not_label_is_one_line_and_exit_2(tmp_path):
    done = run(tmp_path / "out", "1", "race")
    assert done.returncode == 2
    assert done.stderr.strip() == "gpu_label.sh: KIND must be contact or crashed, not 'race'"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the refusal on a machine without CUDA")
def test_without_cuda_it_refuses_before_labelling(tmp_path):
    done = run(tmp_path / "out", "1", "contact")
    assert done.returncode != 0
    assert "no CUDA device visible to torch" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_labels_for_the_minutes_given_then_stops_cleanly_with_files_its_commands_resume(tmp_path):
    nets = networks_file(tmp_path / "nets.pt")
    out = tmp_path / "out"
    small = {"GAMES": "200", "POSITIONS": "3000", "CHUNK": "4"}
    done = run(out, "0.4", "crashed", "7", NETS=str(nets), DEVICE="cpu", CPU_JOBS="1", **small)
    assert done.returncode == 0, done.stderr
    commands = (out / "commands.txt").read_text().splitlines()
    assert len(commands) == 2  # the "GPU" labeller and one CPU labeller, each its own seed
    assert [c.split("--seed ")[1].split()[0] for c in commands] == ["7", "8"]
    assert all(c.endswith("--device cpu") for c in commands)
    labelled = {}
    for seed in (7, 8):
        log = (out / f"s{seed}.log").read_text()
        assert "Traceback" not in log
        with np.load(out / f"crashed-decisions-2ply-s{seed}.npz") as labels:
            labelled[seed] = int(labels["done"])
            assert f'"seed": {seed}' in str(labels["settings"])
            total = len(labels["boards"])
        assert 0 < labelled[seed] <= total
        if labelled[seed] < total:  # stopped by the time limit, cleanly
            assert "interrupted:" in log and "the same command goes on" in log
    # a command of commands.txt, run as written from anywhere, resumes its file where it stopped
    again = subprocess.run(
        ["timeout", "-s", "TERM", "20", "bash", "-c", commands[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in again.stderr
    with np.load(out / "crashed-decisions-2ply-s7.npz") as labels:
        assert int(labels["done"]) > labelled[7] or labelled[7] == len(labels["boards"])
