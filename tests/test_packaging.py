"""The wheel: built from the repo, installed in a fresh virtualenv, run outside the repo."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_wheel_installed_outside_the_repo_finds_its_networks_and_plays(tmp_path):
    pytest.importorskip("setuptools")
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, ROOT],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("bgnet-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bgnet/networks/bgnet-default.pt" in names
    for game in ("portes", "tavla", "plakoto", "fevga"):  # the other games' bots are package data too
        assert f"bgnet/networks/variants/{game}.pt" in names
    assert any(n.startswith("bgnet_training/") for n in names)
    assert not any(n.startswith("training/") for n in names)  # no top-level name that can clash
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", env], check=True)
    # The dependencies (torch, numba, ...) come from this environment's site-packages, not the network.
    site = Path(sysconfig.get_paths(vars={"base": str(env), "platbase": str(env)})["purelib"])
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)  # a pure-Python wheel installs by unpacking
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    py = env / "bin" / "python"
    cli = "import sys; from bgnet.cli import main; sys.exit(main(sys.argv[1:]))"
    where = subprocess.run(
        [py, "-c", "import bgnet.checkpoint as c; print(c.DEFAULT)"],
        cwd=outside,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(site)), where  # the installed copy, not the repo's
    ranked = subprocess.run(
        [py, "-c", cli, "moves", "4HPwATDgc/ABMA", "31", "--rank"],
        cwd=outside,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ranked.returncode == 0, ranked.stderr
    assert ranked.stdout.splitlines()[0].split()[:2] == ["8/5", "6/5"]
    watched = subprocess.run(
        [py, "-c", cli, "watch", "--delay", "0", "--seed", "3"],
        cwd=outside,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert watched.returncode == 0, watched.stderr
    assert "wins" in watched.stdout.lower()
    # The plakoto bot is found where the wheel put it (not in the repo) and plays a game.
    variant = subprocess.run(
        [py, "-c", cli, "watch", "--variant", "plakoto", "--delay", "0", "--seed", "3"],
        cwd=outside,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert variant.returncode == 0, variant.stderr
    assert "plakoto" in variant.stdout and ("wins" in variant.stdout or "draw" in variant.stdout.lower())
